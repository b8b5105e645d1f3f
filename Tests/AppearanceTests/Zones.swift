import Appearance

/// Pure time-zone rules for the tests (no tz database): the EU rule Europe/Berlin and
/// Europe/Oslo (Tromsø) follow since 1996 — summer time from 01:00 UTC on the last Sunday of
/// March to 01:00 UTC on the last Sunday of October, CET +1 h otherwise.
enum Zones {
    static func lastSunday(year: Int, month: Int) -> Int64 {
        let firstOfNext = CivilTime.days(year: year, month: month + 1, day: 1)
        let last = firstOfNext - 1
        let weekday = ((last % 7) + 7 + 4) % 7 // 1970-01-01 was a Thursday (4); 0 = Sunday
        return last - weekday
    }

    static let centralEurope = LocalZone { t in
        let y = CivilTime.date(days: t >= 0 ? t / 86400 : (t - 86399) / 86400).year
        let start = lastSunday(year: y, month: 3) * 86400 + 3600
        let end = lastSunday(year: y, month: 10) * 86400 + 3600
        return (t >= start && t < end) ? 7200 : 3600
    }

    /// A local wall time in a zone, as UTC seconds (the first instant it reads that).
    static func local(_ zone: LocalZone, _ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> Int64 {
        zone.firstInstant(atOrAfterWall: CivilTime.utc(year: y, month: mo, day: d, hour: h, minute: mi))
    }

    static func hhmm(_ zone: LocalZone, _ t: Int64) -> String {
        let w = zone.wall(t)
        let s = ((w % 86400) + 86400) % 86400
        let h = s / 3600, m = (s % 3600) / 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}
