/// When to try the broker again after a failed or lost connection: 1 s, doubling to 60 s,
/// each delay jittered down by up to a quarter (so a fleet that lost its broker together does
/// not come back in one burst); a connection that was accepted starts again at 1 s.
public struct ReconnectBackoff: Equatable, Sendable {
    public static let first = 1.0
    public static let longest = 60.0
    /// The largest share of a delay taken off at random.
    public static let jitter = 0.25

    /// Failures since the last accepted connection.
    public private(set) var failures = 0

    public init() {}

    /// The next delay in seconds; `random` is a number in 0..<1 (the caller's generator).
    public mutating func nextDelay(random: Double) -> Double {
        let base = min(Self.longest, Self.first * Double(1 << min(failures, 10)))
        failures += 1
        return base * (1 - Self.jitter * min(max(random, 0), 1))
    }

    /// The broker accepted the connection.
    public mutating func reset() { failures = 0 }
}
