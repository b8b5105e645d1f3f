/// At most `limit` log lines per cause in each `window` seconds. Lines past the limit are
/// counted, not written; when the window ends the count is said in one line ("… 198 more times
/// in the last 60 s"). Any client of the session bus can switch `org.a11y.Status.IsEnabled`
/// (joining and leaving the registry, a line each) as fast as it likes: 200 lines in 6 s before
/// this. Pure: the caller gives the time.
struct LogThrottle {
    let limit: Int
    let window: Double

    private struct Cause {
        var started: Double
        var written: Int
        var suppressed: Int
        /// The last line not written: the summary repeats it.
        var last: String
    }
    private var causes: [String: Cause] = [:]

    init(limit: Int = 3, window: Double = 60) {
        self.limit = limit
        self.window = window
    }

    /// The lines to write now for `line` of `cause` at `now`: the line itself while under the
    /// limit, nothing past it; first a summary of the window that ended, if lines were held back.
    mutating func lines(_ line: String, cause: String, now: Double) -> [String] {
        var out = flush(now: now, only: cause)
        var c = causes[cause] ?? Cause(started: now, written: 0, suppressed: 0, last: "")
        if c.written < limit {
            c.written += 1
            out.append(line + (c.written == limit ? " (more like this in the next \(Int(window)) s are counted, not logged)" : ""))
        } else {
            c.suppressed += 1
            c.last = line
        }
        causes[cause] = c
        return out
    }

    /// Summaries of the windows that have ended by `now` (each cause's window restarts); with
    /// `all`, of every window (at exit).
    mutating func flush(now: Double, only: String? = nil, all: Bool = false) -> [String] {
        var out: [String] = []
        for (key, c) in causes.sorted(by: { $0.key < $1.key }) where (only == nil || key == only) && (all || now - c.started >= window) {
            if c.suppressed > 0 {
                let seconds = Int(exactly: max(0, min(now - c.started, 1e9)).rounded()) ?? 0
                out.append("\(c.last) — \(c.suppressed) more time\(c.suppressed == 1 ? "" : "s") in the last \(seconds) s")
            }
            causes[key] = nil
        }
        return out
    }

    /// When the next summary is due (nil: nothing held back).
    var nextDeadline: Double? {
        causes.values.filter { $0.suppressed > 0 }.map { $0.started + window }.min()
    }
}
