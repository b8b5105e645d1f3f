/// Thresholds for the ambient-light source: dark below `darkBelowLux` held for `holdSeconds`,
/// light above `lightAboveLux` held for `holdSeconds`; between the two nothing changes.
public struct LightSensorSettings: Equatable, Sendable {
    public var darkBelowLux: Double
    public var lightAboveLux: Double
    public var holdSeconds: Double

    public init(darkBelowLux: Double = 30, lightAboveLux: Double = 100, holdSeconds: Double = 10) {
        self.darkBelowLux = darkBelowLux
        self.lightAboveLux = lightAboveLux
        self.holdSeconds = holdSeconds
    }
}

/// The light sensor's hysteresis as a pure state machine over a monotonic clock the caller
/// passes in (seconds). Feed every reading with `observe`, and call `advance` when the deadline
/// it returned passes; both return the next deadline a timer is needed for (nil: none).
///
/// The first reading decides at once (a kiosk switched on in the dark should not wait): below
/// the dark threshold dark, above the light threshold light, in between the nearer side of the
/// midpoint. After that a change needs the level beyond the opposite threshold for the whole
/// hold time, so a passing shadow (or flash) does not flip the page.
public struct LightSensorHysteresis: Equatable, Sendable {
    public let settings: LightSensorSettings
    /// `.noPreference` until the first reading.
    public private(set) var scheme: ColorScheme = .noPreference
    /// The scheme the level has been pointing to since `pendingSince`, not yet held long enough.
    public private(set) var pending: ColorScheme?
    public private(set) var pendingSince: Double = 0
    public private(set) var lastLux: Double?

    public init(settings: LightSensorSettings) {
        self.settings = settings
    }

    /// When a pending change takes effect if the level stays where it is.
    public var deadline: Double? { pending == nil ? nil : pendingSince + settings.holdSeconds }

    /// Takes a reading at `now`; returns the deadline to wake for (nil when nothing is pending).
    @discardableResult
    public mutating func observe(lux: Double, at now: Double) -> Double? {
        lastLux = lux
        switch scheme {
        case .noPreference:
            if lux < settings.darkBelowLux { scheme = .dark }
            else if lux > settings.lightAboveLux { scheme = .light }
            else { scheme = lux < (settings.darkBelowLux + settings.lightAboveLux) / 2 ? .dark : .light }
            pending = nil
            return nil
        case .light:
            point(to: lux < settings.darkBelowLux ? .dark : nil, at: now)
        case .dark:
            point(to: lux > settings.lightAboveLux ? .light : nil, at: now)
        }
        return advance(to: now)
    }

    /// Applies a pending change whose hold time has passed by `now`; returns the deadline still
    /// to wake for.
    @discardableResult
    public mutating func advance(to now: Double) -> Double? {
        if let target = pending, now >= pendingSince + settings.holdSeconds {
            scheme = target
            pending = nil
        }
        return deadline
    }

    /// Forgets everything (the sensor went away); the next reading decides at once again.
    public mutating func reset() {
        scheme = .noPreference
        pending = nil
        lastLux = nil
    }

    private mutating func point(to target: ColorScheme?, at now: Double) {
        guard let target else { pending = nil; return }
        if pending != target {
            pending = target
            pendingSince = now
        }
    }
}
