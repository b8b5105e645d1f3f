import JSONText

/// Serialises `JSONValue`s: numbers are written with their original text, object members in
/// their order, strings escaped per RFC 8259 (non-ASCII written as UTF-8).
public enum JSONWriter {
    /// Compact form on one line (for JSON-lines output).
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    /// Indented with two spaces, ending in a newline (for files people may read).
    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: "  ", level: 0)
        out += "\n"
        return out
    }

    /// `s` as a quoted JSON string.
    public static func quoted(_ s: String) -> String { JSONText.quoted(s) }

    private static func write(_ value: JSONValue, into out: inout String, indent: String?, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.text
        case .string(let s): out += quoted(s)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(item, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let object):
            guard !object.members.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, m) in object.members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                out += quoted(m.key)
                out += indent == nil ? ":" : ": "
                write(m.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: indent, count: level)
    }
}
