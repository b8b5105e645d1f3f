@_exported import Appearance

/// What an input handler asks the driver to do. The engine never saves anything itself.
public enum KioskOutput: Equatable, Sendable {
    /// The person chose a preference (a toggle stores `.light`/`.dark`, the button `.system`):
    /// the driver saves it.
    case preferenceChanged(AppearancePreference)
}

extension AppearancePreference {
    /// The fixed preference for a mode (what a toggle tap or drag stores).
    public init(isDark: Bool) { self = isDark ? .dark : .light }
}

extension SystemAppearance {
    /// The effective mode for `preference` ("no preference" is light, as the freedesktop portal
    /// defines it).
    public func resolves(_ preference: AppearancePreference) -> Bool {
        isDark(for: preference, noPreferenceIsDark: false)
    }
}
