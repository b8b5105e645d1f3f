/// Calendar arithmetic on days since 1970-01-01 (proleptic Gregorian), no clock, no time zone
/// database: the caller injects the zone as a UTC-offset function.
public enum CivilTime {
    /// Days since 1970-01-01 for a civil date.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date of a day count since 1970-01-01.
    public static func date(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// Seconds since the epoch of a UTC date and time.
    public static func utc(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        days(year: year, month: month, day: day) * 86400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Floor division for possibly negative instants.
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

/// A local time zone as the caller knows it: the offset east of UTC, in seconds, in force at
/// a UTC instant (the edge passes glibc's `localtime_r` `tm_gmtoff`; tests pass a pure rule).
public struct LocalZone: Sendable {
    public let utcOffset: @Sendable (Int64) -> Int

    public init(utcOffset: @escaping @Sendable (Int64) -> Int) {
        self.utcOffset = utcOffset
    }

    public static let utc = LocalZone { _ in 0 }

    /// The local wall clock at a UTC instant, as seconds since the epoch of that wall reading.
    public func wall(_ utc: Int64) -> Int64 { utc + Int64(utcOffset(utc)) }

    /// The local day number (days since 1970-01-01 on the wall calendar) at a UTC instant.
    public func localDay(_ utc: Int64) -> Int64 { CivilTime.floorDiv(wall(utc), 86400) }

    /// The first UTC instant at which the wall clock reads `wall` or later, looking at the day
    /// around it: for a reading that exists once, that instant; that exists twice (clocks go
    /// back), the earlier; that is skipped (clocks go forward), the instant of the jump.
    /// Assumes at most one offset change within ±14 h of the reading.
    public func firstInstant(atOrAfterWall wall: Int64) -> Int64 {
        let before = Int64(utcOffset(wall - 14 * 3600 - 86400 / 2))
        let after = Int64(utcOffset(wall + 14 * 3600 + 86400 / 2))
        let valid = [wall - before, wall - after].filter { self.wall($0) == wall }
        if let first = valid.min() { return first }
        // Skipped reading: find the jump between the two candidates (offset changes to `after`).
        var lo = wall - after, hi = wall - before // wall(lo) < wall target, the jump is in (lo, hi]
        if lo > hi { swap(&lo, &hi) }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if self.wall(mid) >= wall { hi = mid } else { lo = mid }
        }
        return hi
    }
}
