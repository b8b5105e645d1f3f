/// What the renderer draws at one instant.
public struct ToggleVisualState: Equatable, Sendable {
    /// Day/night appearance progress, 0 light … 1 dark (always within 0…1).
    public var appearance: Double
    /// Celestial (sun/moon) position progress, 0 light … 1 dark (always within 0…1: the
    /// thumb stops at its ends even while the spring behind it overshoots).
    public var position: Double

    public init(appearance: Double, position: Double) {
        self.appearance = appearance
        self.position = position
    }

    /// The resting look of a committed value.
    public static func resting(isOn: Bool) -> ToggleVisualState {
        ToggleVisualState(appearance: isOn ? 1 : 0, position: isOn ? 1 : 0)
    }
}
