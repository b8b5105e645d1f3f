/// A wall-clock time of day, written "HH:MM" (00:00–23:59).
public struct WallClock: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly "HH:MM" (two digits each).
    public init?(parsing text: String) {
        let u = Array(text.utf8)
        guard u.count == 5, u[2] == UInt8(ascii: ":"),
              [u[0], u[1], u[3], u[4]].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        self.init(hour: Int(u[0] - 48) * 10 + Int(u[1] - 48), minute: Int(u[3] - 48) * 10 + Int(u[4] - 48))
    }

    public var secondsOfDay: Int64 { Int64(hour * 3600 + minute * 60) }
    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

/// When the schedule source says dark: between two fixed wall-clock times (the window may cross
/// midnight), or from sunset to sunrise at a place (civil dusk to civil dawn when
/// `civilTwilight` is on, so the page stays light through twilight).
public enum ScheduleRule: Equatable, Sendable {
    case fixed(darkFrom: WallClock, lightFrom: WallClock)
    case solar(latitude: Double, longitude: Double, civilTwilight: Bool)
}

/// The schedule at one instant: the scheme now, the next change, and when to wake up.
public struct ScheduleState: Equatable, Sendable {
    public var scheme: ColorScheme
    /// The next instant (UTC seconds) the scheme changes; nil when none within two days
    /// (polar day or night).
    public var nextTransition: Int64?
    /// When to evaluate again: `nextTransition`, or in six hours when there is none.
    public var wakeAt: Int64
}

extension ScheduleRule {
    /// One change of the schedule: at `instant` (UTC seconds) the scheme becomes `scheme`.
    public struct Transition: Equatable, Sendable {
        public var instant: Int64
        public var scheme: ColorScheme
    }

    /// The changes for the local days from `day - before` to `day + after`, sorted by instant.
    public func transitions(aroundLocalDay day: Int64, zone: LocalZone, before: Int64 = 2, after: Int64 = 2) -> [Transition] {
        var out: [Transition] = []
        for d in (day - before)...(day + after) {
            switch self {
            case .fixed(let darkFrom, let lightFrom):
                out.append(Transition(instant: zone.firstInstant(atOrAfterWall: d * 86400 + darkFrom.secondsOfDay), scheme: .dark))
                out.append(Transition(instant: zone.firstInstant(atOrAfterWall: d * 86400 + lightFrom.secondsOfDay), scheme: .light))
            case .solar(let lat, let lon, let civil):
                // The solar day whose noon falls on local day d: shift by the local offset at noon.
                let noonUTC = d * 86400 + 43200 - Int64(zone.utcOffset(d * 86400 + 43200))
                let utcDay = CivilTime.floorDiv(noonUTC, 86400)
                let zenith = civil ? SolarPosition.civilZenith : SolarPosition.officialZenith
                if case .riseAndSet(let rise, let set) = SolarPosition.day(utcDay, latitude: lat, longitude: lon, zenith: zenith) {
                    out.append(Transition(instant: Self.ceil(rise), scheme: .light))
                    out.append(Transition(instant: Self.ceil(set), scheme: .dark))
                }
            }
        }
        // Stable by instant; two equal instants keep the later-listed one last (it wins).
        return out.enumerated().sorted { ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset) }.map(\.element)
    }

    /// The scheme at `now` (UTC seconds) and the next change. The scheme is the one set by the
    /// latest change at or before `now`; with none in the last two days (polar day or night) it
    /// is the sun's elevation against the threshold.
    public func state(atUTC now: Int64, zone: LocalZone) -> ScheduleState {
        let list = Self.effective(transitions(aroundLocalDay: zone.localDay(now), zone: zone))
        let past = list.last { $0.instant <= now }
        let scheme: ColorScheme
        if let past {
            scheme = past.scheme
        } else if case .solar(let lat, let lon, let civil) = self {
            let threshold = 90 - (civil ? SolarPosition.civilZenith : SolarPosition.officialZenith)
            scheme = SolarPosition.elevation(latitude: lat, longitude: lon, atUTC: Double(now)) >= threshold ? .light : .dark
        } else {
            scheme = .noPreference // unreachable for fixed rules: every day has both changes
        }
        let nextInstant = list.first { $0.instant > now && $0.scheme != scheme }?.instant
        return ScheduleState(scheme: scheme, nextTransition: nextInstant, wakeAt: nextInstant ?? now + 6 * 3600)
    }

    /// One change per instant, the one that wins there (the later-listed: `transitions` sorts
    /// stably). Both of a day's times can land on one instant, e.g. both inside the hour a
    /// spring-forward day skips: the scheme then is the winner's, and the loser is no change
    /// to announce or wake for.
    static func effective(_ sorted: [Transition]) -> [Transition] {
        var out: [Transition] = []
        for t in sorted {
            if let last = out.last, last.instant == t.instant { out[out.count - 1] = t } else { out.append(t) }
        }
        return out
    }

    private static func ceil(_ t: Double) -> Int64 {
        let i = Int64(t)
        return Double(i) < t ? i + 1 : i
    }
}
