/// The GNOME settings that carry the desktop's accessibility choices where the portal's
/// `org.freedesktop.appearance` namespace does not: xdg-desktop-portal before 1.19 (Debian 12
/// ships 1.16) publishes `color-scheme` but no `contrast`, and before 1.21 no
/// `reduced-motion`; its GNOME backend does publish the GNOME keys, which GTK4 and libadwaita
/// fall back to. So do we:
///
/// - `org.gnome.desktop.a11y.interface high-contrast` (b) → high contrast;
/// - `org.gnome.desktop.interface enable-animations` (b), false → Reduce Motion;
/// - `org.gnome.desktop.interface text-scaling-factor` (d) → the labels' size (no portal key has it).
///
/// Each counts only where the `org.freedesktop.appearance` key is absent (nil in the portal's
/// hints); the options (flags, config) still win over high contrast and Reduce Motion
/// (`KioskApp.effective`).
public struct GnomeAccessibilityKeys: Equatable, Sendable {
    public static let a11yInterface = "org.gnome.desktop.a11y.interface"
    public static let interface = "org.gnome.desktop.interface"
    /// Every key read, as (namespace, key).
    public static let keys: [(namespace: String, key: String)] = [
        (a11yInterface, "high-contrast"), (interface, "enable-animations"), (interface, "text-scaling-factor"),
    ]

    public var highContrast: Bool?
    public var enableAnimations: Bool?
    public var textScalingFactor: Double?

    public init(highContrast: Bool? = nil, enableAnimations: Bool? = nil, textScalingFactor: Double? = nil) {
        self.highContrast = highContrast
        self.enableAnimations = enableAnimations
        self.textScalingFactor = textScalingFactor
    }

    /// Takes the text-scaling-factor (a double); false for any other key.
    @discardableResult
    public mutating func apply(namespace: String, key: String, double value: Double?) -> Bool {
        guard namespace == Self.interface, key == "text-scaling-factor" else { return false }
        textScalingFactor = value
        return true
    }

    /// Takes one key's value (a boolean); false when the key is not one of ours. A value of
    /// another type counts as absent.
    @discardableResult
    public mutating func apply(namespace: String, key: String, bool value: Bool?) -> Bool {
        switch (namespace, key) {
        case (Self.a11yInterface, "high-contrast"): highContrast = value
        case (Self.interface, "enable-animations"): enableAnimations = value
        default: return false
        }
        return true
    }

    /// `portal`'s hints with each absent one taken from the GNOME keys.
    public func filling(_ portal: AccessibilityHints) -> AccessibilityHints {
        var h = portal
        if h.highContrast == nil { h.highContrast = highContrast }
        if h.reducedMotion == nil { h.reducedMotion = enableAnimations.map { !$0 } }
        if h.textScale == nil { h.textScale = textScalingFactor }
        return h
    }
}
