/// A one-dimensional animation evaluated at absolute times (seconds on the driver's clock).
/// Nothing reads a clock: the caller passes the time. Times before the start are treated as
/// the start.
public protocol ScalarAnimation: Sendable {
    /// The value the animation ends at.
    var target: Double { get }
    /// The presented value at `time`.
    func value(at time: Double) -> Double
    /// The rate of change (units per second) at `time`.
    func velocity(at time: Double) -> Double
    /// True once the animation has come to rest at `target` (and stays there).
    func isSettled(at time: Double) -> Bool
}

/// When a spring counts as at rest: |value − target| below `position` and |velocity| below
/// `velocity`. The defaults suit a 0…1 progress (0.0005 of the travel is under a tenth of a
/// point for any sensible toggle width).
public struct SettleTolerance: Equatable, Sendable {
    public var position: Double
    public var velocity: Double

    public init(position: Double = 0.0005, velocity: Double = 0.005) {
        self.position = position
        self.velocity = velocity
    }

    public static let progress = SettleTolerance()
}
