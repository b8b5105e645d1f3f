/// What the person chose on the page: a fixed mode, or "follow the system".
public enum AppearancePreference: String, CaseIterable, Equatable, Sendable {
    case system, light, dark
}

/// A colour scheme as a source states it.
public enum ColorScheme: String, Equatable, Sendable {
    case noPreference = "no-preference"
    case light, dark
}

/// The places "system" can come from, named as the config names them.
public enum AppearanceSourceKind: String, CaseIterable, Equatable, Hashable, Sendable {
    case portal
    case lightSensor = "light-sensor"
    case schedule

    /// The default order: desktop portal, then ambient light, then the clock.
    public static let defaultOrder: [AppearanceSourceKind] = [.portal, .lightSensor, .schedule]

    /// Its name in machine-readable state (the fleet's state, the state file): `portal`,
    /// `lightSensor`, `schedule`.
    public var identifier: String {
        switch self {
        case .portal: return "portal"
        case .lightSensor: return "lightSensor"
        case .schedule: return "schedule"
        }
    }

    /// Words for the page's label and `replay` ("Following System · light sensor").
    public var label: String {
        switch self {
        case .portal: return "desktop"
        case .lightSensor: return "light sensor"
        case .schedule: return "schedule"
        }
    }
}

/// What one source says right now.
public enum SourceReading: Equatable, Sendable {
    /// Not on this machine, not running, or failed: skipped.
    case absent
    /// Present and states a scheme (`.noPreference` also falls through to the next source).
    case scheme(ColorScheme)
}

/// Accessibility settings the desktop portal publishes alongside the colour scheme; nil when
/// the portal is absent or does not publish the key.
public struct AccessibilityHints: Equatable, Sendable {
    public var highContrast: Bool?
    public var reducedMotion: Bool?
    /// The labels' size over the standard one (GNOME's text-scaling-factor).
    public var textScale: Double?
    public init(highContrast: Bool? = nil, reducedMotion: Bool? = nil, textScale: Double? = nil) {
        self.highContrast = highContrast
        self.reducedMotion = reducedMotion
        self.textScale = textScale
    }
}

/// The system's appearance after arbitration: the scheme and which source drives it.
public struct SystemAppearance: Equatable, Sendable, CustomStringConvertible {
    public var scheme: ColorScheme
    /// The source whose reading decided `scheme`; nil when no source states one.
    public var source: AppearanceSourceKind?
    public var hints: AccessibilityHints

    public init(scheme: ColorScheme, source: AppearanceSourceKind?, hints: AccessibilityHints = .init()) {
        self.scheme = scheme
        self.source = source
        self.hints = hints
    }

    public static let noPreference = SystemAppearance(scheme: .noPreference, source: nil)

    /// "light sensor", "desktop", "schedule" or "no preference".
    public var sourceLabel: String { source?.label ?? "no preference" }

    /// The page's (English) button label while following the system: "Following System ·
    /// light sensor", or plain "Following System" when no source states a scheme (as
    /// `PageStrings.followingLabel(source:)` words it in every language).
    public var followingLabel: String { source.map { "Following System · \($0.label)" } ?? "Following System" }

    /// Dark or not for a person's preference; `noPreferenceIsDark` decides the "no preference" case.
    public func isDark(for preference: AppearancePreference, noPreferenceIsDark: Bool = false) -> Bool {
        switch preference {
        case .light: return false
        case .dark: return true
        case .system:
            switch scheme {
            case .dark: return true
            case .light: return false
            case .noPreference: return noPreferenceIsDark
            }
        }
    }

    public var description: String { "\(scheme.rawValue) (\(sourceLabel))" }
}

/// Picks the first source in the configured order that is present and states light or dark.
/// A source that is absent, failed, or says "no preference" is skipped; when none states a
/// scheme the result is `.noPreference`. The portal's accessibility hints travel along
/// whichever source wins.
public struct SourceArbiter: Equatable, Sendable {
    public var order: [AppearanceSourceKind]

    public init(order: [AppearanceSourceKind] = AppearanceSourceKind.defaultOrder) {
        self.order = order
    }

    public func arbitrate(_ readings: [AppearanceSourceKind: SourceReading],
                          hints: AccessibilityHints = .init()) -> SystemAppearance {
        for kind in order {
            if case .scheme(let s)? = readings[kind], s != .noPreference {
                return SystemAppearance(scheme: s, source: kind, hints: hints)
            }
        }
        return SystemAppearance(scheme: .noPreference, source: nil, hints: hints)
    }
}
