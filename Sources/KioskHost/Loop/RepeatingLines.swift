import LogLimit

/// The host's log lines whose cause can repeat without end: a flapping connector (each
/// coalesced burst of hot-plug events, each loss and return of the display) and an automation
/// that puts the screen to sleep and wakes it again and again. Each cause (`Key`) writes at
/// most `linesPerCause` lines a window (a minute; `DARKMODE_KIOSK_TEST_LOG_WINDOW_S` in tests),
/// then one summary ("<cause>: N more in the last 60 s (first of them: …)") when the window
/// ends — the rule of `LogLimiter`, whose two instances here write info and warning lines.
///
/// The first line of a cause is always written (a display lost once still says so in one
/// line). The loop thread owns it: `FrameLoop` wakes for `deadline` and calls `flush`, and
/// `flushAll` when it ends. Pure: clock and outputs injected.
final class RepeatingLines {
    /// The causes, each a fixed phrase that begins its summary line.
    enum Key: String {
        case hotplug = "display: hot-plug rescans"
        case displayLost = "display: disconnections"
        case displayFound = "display: connections"
        case asleep = "screen: fell asleep"
        case awake = "screen: woke"
    }

    /// Lines a cause writes a window before they are only counted (as `LiveAppearance`'s).
    static let linesPerCause = 3

    private let infos: LogLimiter
    private let warnings: LogLimiter

    init(interval: Double, now: @escaping () -> Double,
         info: @escaping (String) -> Void, warning: @escaping (String) -> Void) {
        infos = LogLimiter(interval: interval, burst: Self.linesPerCause, now: now, log: info)
        warnings = LogLimiter(interval: interval, burst: Self.linesPerCause, now: now, log: warning)
    }

    func info(_ key: Key, _ line: @autoclosure () -> String) { infos.note(key: key.rawValue, line: line()) }

    func warning(_ key: Key, _ line: @autoclosure () -> String) { warnings.note(key: key.rawValue, line: line()) }

    /// The instant (the injected clock's) a summary is due; nil while nothing is counted.
    var deadline: Double? {
        switch (infos.deadline, warnings.deadline) {
        case (let a?, let b?): return min(a, b)
        case (let a, let b): return a ?? b
        }
    }

    /// Writes the summaries due at `t`.
    func flush(at t: Double) {
        infos.flush(at: t)
        warnings.flush(at: t)
    }

    /// Writes every pending summary (at the end of the loop: nothing counted is dropped).
    func flushAll(at t: Double) {
        infos.flushAll(at: t)
        warnings.flushAll(at: t)
    }
}
