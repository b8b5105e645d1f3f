import JSONText

/// A small JSON writer for the fleet's messages (pure; members in the order given).
public indirect enum FleetJSON: Equatable, Sendable {
    case string(String)
    case number(Double)
    case int(Int)
    case bool(Bool)
    case null
    case array([FleetJSON])
    case object([(String, FleetJSON)])

    public static func == (a: FleetJSON, b: FleetJSON) -> Bool { a.text == b.text }

    /// The compact JSON text.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .number(let n):
            if n.isFinite { out += n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : "\(n)" } else { out += "null" }
        case .int(let n): out += String(n)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONText.appendQuoted(k, to: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }
}
