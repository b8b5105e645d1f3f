import Appearance
import KioskSupport

/// Words for the `appearance` settings (`run --check`): the sources in order, the light
/// sensor's thresholds, the schedule and, given a clock and zone, the schedule's mode now and
/// its next change in local time.
public enum AppearanceSummary {
    /// One line per setting, e.g. "system appearance follows: portal, then light-sensor, then
    /// schedule, then no preference (light)".
    public static func lines(_ c: AppearanceConfig) -> [String] {
        let order = c.systemSources.map(\.rawValue) + ["no preference (light)"]
        var out = ["system appearance follows: " + order.joined(separator: ", then ")]
        if c.systemSources.contains(.lightSensor) {
            let s = c.lightSensor
            out.append("light sensor: dark below \(number(s.darkBelowLux)) lux, light above \(number(s.lightAboveLux)) lux, "
                       + "each held \(number(s.holdSeconds)) s")
        }
        if c.systemSources.contains(.schedule) || c.schedule != nil {
            out.append("schedule: " + (c.schedule.map(describe) ?? "none configured (skipped)"))
        }
        return out
    }

    public static func describe(_ rule: ScheduleRule) -> String {
        switch rule {
        case .fixed(let dark, let light):
            return "dark from \(dark) to \(light) local time"
        case .solar(let lat, let lon, let civil):
            return "dark from sunset to sunrise at latitude \(number(lat)), longitude \(number(lon))"
                + (civil ? " (civil twilight counts as light)" : "")
        }
    }

    /// "schedule now: dark (since …), next change: light at 2026-10-25 07:00:00 +0100", for the
    /// instant `now` (UTC seconds) in `zone`; nil without a schedule.
    public static func scheduleNow(_ c: AppearanceConfig, atUTC now: Int64, zone: LocalZone) -> String? {
        guard let rule = c.schedule else { return nil }
        let state = rule.state(atUTC: now, zone: zone)
        var line = "schedule now: \(state.scheme.rawValue) at \(localTime(now, zone: zone))"
        if let next = state.nextTransition {
            let to: ColorScheme = state.scheme == .dark ? .light : .dark
            line += "; next change: \(to.rawValue) at \(localTime(next, zone: zone))"
        } else {
            line += "; no change within two days (polar day or night; re-checked every 6 h)"
        }
        return line
    }

    /// "2026-10-25 02:59:00 +0200": the wall clock in `zone` with its UTC offset.
    public static func localTime(_ utc: Int64, zone: LocalZone) -> String {
        let offset = zone.utcOffset(utc)
        let wall = utc + Int64(offset)
        let day = wall >= 0 ? wall / 86400 : (wall - 86399) / 86400
        let secs = Int(wall - day * 86400)
        let d = CivilTime.date(days: day)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let sign = offset < 0 ? "-" : "+"
        let a = abs(offset)
        return "\(d.year)-\(two(d.month))-\(two(d.day)) \(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60)) "
            + "\(sign)\(two(a / 3600))\(two(a / 60 % 60))"
    }

    private static func number(_ v: Double) -> String { JSONNumber(v)?.text ?? "\(v)" }
}
