/// The toggle's accessibility semantics as data (the counterpart of SwiftUI's
/// accessibilityLabel/Value/Hint/Identifier and the `.isSelected` trait), from the
/// `accessibility` block of the art spec.
public struct AccessibilityState: Equatable, Sendable {
    public static let label = "Dark Mode"
    public static let hint = "Double tap to change appearance"
    public static let identifier = "darkModeToggle"
    public static let valueOn = "On"
    public static let valueOff = "Off"

    /// The committed mode this state describes.
    public let isDark: Bool

    public init(isDark: Bool) { self.isDark = isDark }

    public var label: String { Self.label }
    /// "On" when dark, "Off" when light.
    public var value: String { isDark ? Self.valueOn : Self.valueOff }
    public var hint: String { Self.hint }
    public var identifier: String { Self.identifier }
    /// Selected when dark.
    public var isSelected: Bool { isDark }
    /// One line for window titles and logs: "Dark Mode: On".
    public var summary: String { "\(label): \(value)" }
}
