/// JSON's string syntax, shared by the writers that make JSON text (`KioskSupport`'s
/// `JSONWriter`, the fleet's `FleetJSON`): the standard library only, so that the pure modules
/// can use it.
public enum JSONText {
    /// Appends `s` to `out` as a quoted JSON string: `"` and `\` escaped, the control
    /// characters (and DEL) as `\n`, `\r`, `\t` or `\u00XX`, everything else as it is (UTF-8).
    public static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F:
                let hex = String(u.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }

    /// `s` as a quoted JSON string (see `appendQuoted`).
    public static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }
}
