import Synchronization

/// A `LogLimiter` that several threads may note into (the kiosk's loop thread and its
/// preferences writer). The lines are written outside the lock, in the order they were made.
public final class SharedLogLimiter: Sendable {
    private final class Box: @unchecked Sendable {
        var limiter: LogLimiter!
        var out: [String] = []
    }
    private let state: Mutex<Box>
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    /// The window, seconds.
    public let interval: Double

    public init(interval: Double = 60, burst: Int = 1, now: @escaping @Sendable () -> Double,
                log: @escaping @Sendable (String) -> Void) {
        let box = Box()
        box.limiter = LogLimiter(interval: interval, burst: burst, now: now, log: { [box] in box.out.append($0) })
        state = Mutex(box)
        self.log = log
        self.now = now
        self.interval = interval
    }

    private func withLimiter(_ body: (LogLimiter) -> Void) {
        let lines = state.withLock { box -> [String] in
            body(box.limiter)
            defer { box.out.removeAll() }
            return box.out
        }
        for line in lines { log(line) }
    }

    /// See `LogLimiter.note(_:_:)`.
    public func note(_ kind: String, _ detail: @autoclosure () -> String = "") {
        withLimiter { $0.note(kind, detail()) }
    }

    /// See `LogLimiter.note(key:line:)`.
    public func note(key: String, line: @autoclosure () -> String) {
        withLimiter { $0.note(key: key, line: line()) }
    }

    /// Seconds from now until a summary is due, nil when none is pending.
    public var secondsUntilDue: Double? {
        let t = now()
        return state.withLock { $0.limiter.deadline }.map { max(0, $0 - t) }
    }

    /// Writes the summaries due now.
    public func flush() { let t = now(); withLimiter { $0.flush(at: t) } }

    /// Writes every pending summary (at exit).
    public func flushAll() { let t = now(); withLimiter { $0.flushAll(at: t) } }
}
