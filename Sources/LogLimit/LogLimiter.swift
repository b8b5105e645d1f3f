/// Log lines for causes that can repeat, rate-limited per cause (issue 39, item 6; it grew out
/// of `AppearanceBus`'s `FaultLog`, issue 32, item 8). A fleet tool rewriting the preferences
/// file 50 times a second, a portal that comes and goes every 100 ms or a bus client sending
/// thousands of bad values must not fill the journal: for each cause (`key`, a fixed phrase)
/// at most `burst` lines are written per `interval` (a minute by default); later ones in that
/// window are only counted, and once the window is over one summary line says how many there
/// were ("<key>: 600 more in the last 60 s (first of them: …)"). A quiet minute later the
/// cause is logged again as new.
///
/// Pure: the clock and the output are injected. Not thread-safe (one owner thread, such as the
/// appearance runner's); `SharedLogLimiter` is the same rule behind a lock. Summaries are due
/// at `deadline`: the owner's loop calls `flush(at:)` then (a later `note` of the same key also
/// writes its summary first), and `flushAll(at:)` at exit.
public final class LogLimiter {
    struct Entry {
        /// Start of the current window (the first line of it).
        var windowStart: Double
        /// Lines written in this window.
        var written = 1
        /// Notes counted but not written in this window.
        var suppressed = 0
        var example = ""
    }

    public let interval: Double
    public let burst: Int
    let log: (String) -> Void
    let now: () -> Double
    private var entries: [String: Entry] = [:]
    /// How many keys have lines counted and not yet summed up: with none (the usual case) the
    /// loop's per-pass `deadline` and `flush` return at once.
    private var counting = 0
    /// Keys in first-seen order, so summaries come out in a stable order.
    private var order: [String] = []

    /// - Parameters:
    ///   - interval: the window, seconds (60 in the kiosk; shorter only in tests).
    ///   - burst: lines written per key and window before counting starts (at least 1).
    public init(interval: Double = 60, burst: Int = 1, now: @escaping () -> Double, log: @escaping (String) -> Void) {
        self.interval = interval
        self.burst = max(1, burst)
        self.now = now
        self.log = log
    }

    /// Records one occurrence of `kind` (a fixed phrase such as "portal: color-scheme has an
    /// unexpected value"); `detail` (built only when used) follows it on the line.
    public func note(_ kind: String, _ detail: @autoclosure () -> String = "") {
        record(kind, line: { let d = detail(); return d.isEmpty ? kind : "\(kind) \(d)" }, example: detail)
    }

    /// Records one occurrence of the cause `key` whose line is `line` (a full sentence that
    /// may vary: a path, a reason); a summary names the first suppressed line as its example.
    public func note(key: String, line: @autoclosure () -> String) {
        record(key, line: line, example: line)
    }

    private func record(_ key: String, line: () -> String, example: () -> String) {
        let t = now()
        guard var e = entries[key] else {
            if entries.count >= Self.maxKeys { forgetQuiet(at: t) }
            entries[key] = Entry(windowStart: t)
            order.append(key)
            log(line())
            return
        }
        if t - e.windowStart >= interval {
            if e.suppressed > 0 { summarize(key, e, at: t); counting -= 1 }
            e = Entry(windowStart: t)
            entries[key] = e
            log(line())
            return
        }
        if e.written < burst {
            e.written += 1
            entries[key] = e
            log(line())
            return
        }
        e.suppressed += 1
        if e.suppressed == 1 { e.example = example(); counting += 1 }
        entries[key] = e
    }

    private func summarize(_ key: String, _ e: Entry, at t: Double) {
        let span = Int((t - e.windowStart).rounded())
        log("\(key): \(e.suppressed) more in the last \(span) s (first of them: \(e.example.isEmpty ? "-" : e.example))")
    }

    /// The next instant a summary is due (the injected clock's seconds), nil when nothing is counted.
    public var deadline: Double? {
        guard counting > 0 else { return nil }
        var due: Double?
        for e in entries.values where e.suppressed > 0 { due = min(due ?? .infinity, e.windowStart + interval) }
        return due
    }

    /// Writes the summaries that are due at `t`; each such key starts a new window at `t` (so
    /// a flood that goes on gives `burst` lines and one summary a window).
    public func flush(at t: Double) {
        guard counting > 0 else { return }
        for key in order {
            guard let e = entries[key], e.suppressed > 0, t - e.windowStart >= interval else { continue }
            summarize(key, e, at: t)
            entries[key] = Entry(windowStart: t, written: 0)
            counting -= 1
        }
    }

    /// Writes every pending summary whether due or not (at exit: nothing counted is dropped).
    public func flushAll(at t: Double) {
        for key in order {
            guard let e = entries[key], e.suppressed > 0 else { continue }
            summarize(key, e, at: t)
            entries[key] = Entry(windowStart: t, written: 0)
            counting -= 1
        }
    }

    /// Keys remembered before quiet ones are forgotten (causes keyed by a whole line, such as
    /// the runner's, could otherwise grow without end over months).
    public static let maxKeys = 256

    /// Forgets keys whose window is over with nothing counted: they would be logged as new
    /// anyway, so forgetting them changes no line.
    private func forgetQuiet(at t: Double) {
        for key in order {
            if let e = entries[key], e.suppressed == 0, t - e.windowStart >= interval { entries[key] = nil }
        }
        order.removeAll { entries[$0] == nil }
    }

    /// How many keys are remembered (tests).
    public var keyCount: Int { entries.count }

    /// How many of `key` are counted but not yet summed up (tests).
    public func pending(_ key: String) -> Int { entries[key]?.suppressed ?? 0 }
}
