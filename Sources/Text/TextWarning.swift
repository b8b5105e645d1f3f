/// A problem with text that still lets the page draw; the app logs `description`.
public enum TextWarning: Equatable, Sendable, CustomStringConvertible {
    /// The requested family is not installed; fontconfig chose another.
    case familySubstituted(requested: String, used: String)
    /// No installed face has glyphs for these characters of `text`; they are not drawn (no tofu).
    case missingGlyphs(text: String, scalars: [Unicode.Scalar], family: String)

    public var description: String {
        switch self {
        case .familySubstituted(let requested, let used):
            return "text: font family \"\(requested)\" is not installed; using \"\(used)\" (Debian: fonts-inter)"
        case .missingGlyphs(let text, let scalars, let family):
            let list = scalars.map { s in "U+" + String(s.value, radix: 16, uppercase: true).leftPadded(4) + " '\(s)'" }
            let cjk = scalars.contains { (0x2E80...0x9FFF).contains($0.value) || (0xF900...0xFAFF).contains($0.value) }
            let hint = cjk ? "; install a CJK font (Debian: fonts-noto-cjk)" : ""
            return "text: no installed font has \(list.joined(separator: ", ")) in \"\(text)\" "
                + "(searched \"\(family)\" and fontconfig's fallbacks); those characters are left out\(hint)"
        }
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
