import LogLimit
import SDBus

/// Log lines about what other processes send, rate-limited: any session-bus client can send
/// thousands of bad values a second (issue 32, item 8: 20,000 signals made 20,004 lines, one
/// 100,000-element array one 3.4 MB line). The runner's one `LogLimiter` (target `LogLimit`,
/// shared with the kiosk's other repeating causes since issue 39, item 6): the first fault of
/// each kind in a minute is logged (one short line, values cut to `BusValue.brief`), later ones
/// are counted and summed up in one line when the runner's poll loop reaches its `deadline`.
typealias FaultLog = LogLimiter

extension BusValue {
    /// A short description of the value for a log line: at most `limit` characters (then
    /// "…"), built without formatting the whole of a huge array first.
    func brief(limit: Int = 80) -> String {
        var out = ""
        var items = 0
        describe(into: &out, limit: limit, items: &items)
        if out.count > limit { out = String(out.prefix(limit)) + "…" }
        if case .array(let a) = unwrapped, a.count > 8 { out += " (\(a.count) items)" }
        return out
    }

    private func describe(into out: inout String, limit: Int, items: inout Int) {
        if out.count > limit { return }
        switch self {
        case .string(let s): out += "\"" + String(s.prefix(limit)) + (s.count > limit ? "…" : "") + "\""
        case .uint32(let u): out += "uint32 \(u)"
        case .int32(let i): out += "int32 \(i)"
        case .bool(let b): out += "boolean \(b)"
        case .double(let d): out += "double \(d)"
        case .variant(let v): out += "<"; v.describe(into: &out, limit: limit, items: &items); out += ">"
        case .array(let a):
            out += "["
            for (n, v) in a.enumerated() {
                if out.count > limit { out += "…"; break }
                if n > 0 { out += ", " }
                v.describe(into: &out, limit: limit, items: &items)
            }
            out += "]"
        case .entry(let k, let v):
            k.describe(into: &out, limit: limit, items: &items); out += ": "; v.describe(into: &out, limit: limit, items: &items)
        case .structure(let a):
            out += "("
            for (n, v) in a.enumerated() {
                if out.count > limit { out += "…"; break }
                if n > 0 { out += ", " }
                v.describe(into: &out, limit: limit, items: &items)
            }
            out += ")"
        case .other(let c): out += "a value of type '\(c)'"
        }
    }
}
