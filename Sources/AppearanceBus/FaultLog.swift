/// Log lines about what other processes send, rate-limited: any session-bus client can send
/// thousands of bad values a second (issue 32, item 8: 20,000 signals made 20,004 lines, one
/// 100,000-element array one 3.4 MB line). The first fault of each kind is logged (one short
/// line, values cut to `BusValue.brief`); later ones of that kind are counted and summed up in
/// one line at most once per `interval`, when the runner's poll loop reaches `deadline`.
final class FaultLog {
    struct Entry {
        var suppressed = 0
        var lastLine: Double
        var example = ""
    }

    let interval: Double
    let log: (String) -> Void
    let now: () -> Double
    private var entries: [String: Entry] = [:]
    /// Kinds in first-seen order, so summaries come out in a stable order.
    private var order: [String] = []

    init(interval: Double = 60, now: @escaping () -> Double, log: @escaping (String) -> Void) {
        self.interval = interval
        self.now = now
        self.log = log
    }

    /// Records one fault of `kind` (a fixed phrase such as "portal: color-scheme has an
    /// unexpected value"); `detail` (built only when logged) follows it on the first line.
    func note(_ kind: String, _ detail: @autoclosure () -> String = "") {
        let t = now()
        if var e = entries[kind] {
            e.suppressed += 1
            if e.suppressed == 1 { e.example = detail() }
            entries[kind] = e
            if t - e.lastLine >= interval { flush(at: t) }
            return
        }
        entries[kind] = Entry(lastLine: t)
        order.append(kind)
        let d = detail()
        log(d.isEmpty ? kind : "\(kind) \(d)")
    }

    /// The next instant a summary is due (monotonic seconds), nil when nothing is counted.
    var deadline: Double? {
        entries.values.filter { $0.suppressed > 0 }.map { $0.lastLine + interval }.min()
    }

    /// Writes the summaries that are due at `t`.
    func flush(at t: Double) {
        for kind in order {
            guard var e = entries[kind], e.suppressed > 0, t - e.lastLine >= interval else { continue }
            let span = Int((t - e.lastLine).rounded())
            log("\(kind): \(e.suppressed) more in the last \(span) s (first of them: \(e.example.isEmpty ? "-" : e.example))")
            e.suppressed = 0
            e.example = ""
            e.lastLine = t
            entries[kind] = e
        }
    }

    /// How many of `kind` are counted but not yet summed up (tests).
    func pending(_ kind: String) -> Int { entries[kind]?.suppressed ?? 0 }
}

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
