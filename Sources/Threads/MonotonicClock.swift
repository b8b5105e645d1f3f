#if canImport(Glibc)
import Glibc
#endif

/// The process's one monotonic clock: CLOCK_MONOTONIC, which wall-clock changes do not move.
/// Every time the kiosk compares across threads — input stamps (libinput's and evdev's clock),
/// bus deadlines (sd-bus's), the appearance events' arrival, the log limiters' windows, the
/// watchdog and the save retries — is on it. (The frame loop's own clock, `HostClock`, stays
/// on SDL's ticks: SDL stamps its events with them.)
public enum MonotonicClock {
    /// Now, in nanoseconds.
    public static func nanoseconds() -> UInt64 {
        var ts = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Now, in microseconds (sd-bus's unit).
    public static func microseconds() -> UInt64 { nanoseconds() / 1000 }

    /// Now, in seconds.
    public static func seconds() -> Double { seconds(nanoseconds: nanoseconds()) }

    /// A reading in seconds.
    public static func seconds(nanoseconds ns: UInt64) -> Double {
        Double(ns / 1_000_000_000) + Double(ns % 1_000_000_000) / 1e9
    }

    /// The reading `seconds` from now as a `timespec` (negative counts as zero), for
    /// `pthread_cond_timedwait` on a CLOCK_MONOTONIC condition.
    public static func timespec(after seconds: Double) -> Glibc.timespec {
        let total = nanoseconds() &+ UInt64((max(0, seconds) * 1e9).rounded(.down))
        return Glibc.timespec(tv_sec: Int(total / 1_000_000_000), tv_nsec: Int(total % 1_000_000_000))
    }
}
