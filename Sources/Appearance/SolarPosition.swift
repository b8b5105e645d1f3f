#if canImport(Glibc)
import func Glibc.sin
import func Glibc.cos
import func Glibc.tan
import func Glibc.asin
import func Glibc.acos
import func Glibc.fmod
#elseif canImport(Darwin)
import Darwin
#endif

/// The sun's position after NOAA's solar calculator (the spreadsheet formulas, from Meeus'
/// "Astronomical Algorithms"): declination and equation of time at an instant, sunrise/sunset
/// (or civil dawn/dusk) for a day at a place, and the sun's elevation. Pure math: instants are
/// UTC seconds since the epoch (Doubles).
public enum SolarPosition {
    /// Zenith of the sun's centre at sunrise/sunset: 90° plus 34′ refraction plus 16′ radius.
    public static let officialZenith = 90.833
    /// Zenith at civil dawn/dusk: the sun's centre 6° below the horizon.
    public static let civilZenith = 96.0

    static let rad = Double.pi / 180

    /// Declination (degrees) and equation of time (minutes) at a UTC instant.
    public static func sun(atUTC t: Double) -> (declination: Double, equationOfTime: Double) {
        let jd = t / 86400 + 2440587.5
        let c = (jd - 2451545) / 36525
        let l0 = fmod(280.46646 + c * (36000.76983 + c * 0.0003032), 360)
        let m = 357.52911 + c * (35999.05029 - 0.0001537 * c)
        let e = 0.016708634 - c * (0.000042037 + 0.0000001267 * c)
        let center = sin(m * rad) * (1.914602 - c * (0.004817 + 0.000014 * c))
            + sin(2 * m * rad) * (0.019993 - 0.000101 * c)
            + sin(3 * m * rad) * 0.000289
        let trueLong = l0 + center
        let omega = 125.04 - 1934.136 * c
        let lambda = trueLong - 0.00569 - 0.00478 * sin(omega * rad)
        let eps0 = 23 + (26 + (21.448 - c * (46.815 + c * (0.00059 - c * 0.001813))) / 60) / 60
        let eps = eps0 + 0.00256 * cos(omega * rad)
        let decl = asin(sin(eps * rad) * sin(lambda * rad)) / rad
        let y = tan(eps * rad / 2) * tan(eps * rad / 2)
        let eot = y * sin(2 * l0 * rad) - 2 * e * sin(m * rad)
            + 4 * e * y * sin(m * rad) * cos(2 * l0 * rad)
            - 0.5 * y * y * sin(4 * l0 * rad) - 1.25 * e * e * sin(2 * m * rad)
        return (decl, 4 * eot / rad)
    }

    /// The sun's elevation above the horizon (degrees, no refraction) at a place and instant.
    public static func elevation(latitude: Double, longitude: Double, atUTC t: Double) -> Double {
        let (decl, eot) = sun(atUTC: t)
        let dayMinutes = fmod(fmod(t, 86400) + 86400, 86400) / 60
        let trueSolarMinutes = dayMinutes + eot + 4 * longitude
        let hourAngle = trueSolarMinutes / 4 - 180
        let cosZenith = sin(latitude * rad) * sin(decl * rad)
            + cos(latitude * rad) * cos(decl * rad) * cos(hourAngle * rad)
        return 90 - acos(max(-1, min(1, cosZenith))) / rad
    }

    /// What the sun does on one day at a place.
    public enum Day: Equatable, Sendable {
        /// It crosses the zenith threshold upward at `rise` and downward at `set` (UTC seconds).
        case riseAndSet(rise: Double, set: Double)
        /// It stays above the threshold all day (midnight sun / polar day).
        case alwaysUp
        /// It stays below the threshold all day (polar night).
        case alwaysDown
    }

    /// Sunrise and sunset (or dawn and dusk for `zenith` 96) for the solar day whose mean noon
    /// follows UTC midnight of day number `day` (days since 1970-01-01) at the place. Each
    /// event is refined by evaluating the sun at the event's own time (three passes).
    public static func day(_ day: Int64, latitude: Double, longitude: Double,
                           zenith: Double = officialZenith) -> Day {
        let meanNoon = Double(day) * 86400 + 43200 - longitude * 240
        func event(_ sign: Double) -> Double? {
            var t = meanNoon
            for _ in 0..<3 {
                let (decl, eot) = sun(atUTC: t)
                let cosH = cos(zenith * rad) / (cos(latitude * rad) * cos(decl * rad))
                    - tan(latitude * rad) * tan(decl * rad)
                if cosH > 1 || cosH < -1 { return cosH > 1 ? .infinity : -.infinity }
                let hourAngle = acos(cosH) / rad
                let noon = Double(day) * 86400 + 43200 - longitude * 240 - eot * 60
                t = noon + sign * hourAngle * 240
            }
            return t
        }
        guard let rise = event(-1), let set = event(1) else { return .alwaysDown }
        if rise.isFinite && set.isFinite { return .riseAndSet(rise: rise, set: set) }
        // cos H > 1: the sun never reaches the threshold; < −1: it never goes below it.
        return (rise == .infinity || set == .infinity) ? .alwaysDown : .alwaysUp
    }
}
