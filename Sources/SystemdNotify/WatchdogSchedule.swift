/// When the service manager's watchdog wants its next `WATCHDOG=1`, as pure arithmetic on a
/// monotonic clock in seconds. The host loop asks `timeoutMilliseconds(now:idle:)` for the
/// wait it may sleep (e.g. in `SDL_WaitEventTimeout`), so an idle loop still wakes to ping,
/// and a stalled loop stops the pings (which is the point: systemd then restarts the kiosk).
public struct WatchdogSchedule: Sendable, Equatable {
    /// Seconds between pings: half the watchdog timeout, as sd_watchdog_enabled(3) advises,
    /// but never less than `minimumInterval`.
    public let interval: Double
    /// The interval `WATCHDOG_USEC` asked for when it was below `minimumInterval` (nil otherwise).
    public let requestedInterval: Double?
    /// When the last ping was sent; nil before the first one (the first is due at once).
    public private(set) var lastPing: Double?

    /// The shortest interval pinged at: `WATCHDOG_USEC=1` would otherwise ask for a ping every
    /// half microsecond, a busy loop sending 20,000+ datagrams a second (issue 32, item 12).
    /// 50 ms is far below any watchdog timeout a service manager would sensibly set.
    public static let minimumInterval = 0.05

    /// A schedule for a watchdog timeout of `watchdogMicroseconds` (the `WATCHDOG_USEC`
    /// value); nil when that is 0 (no watchdog).
    public init?(watchdogMicroseconds: UInt64) {
        guard watchdogMicroseconds > 0 else { return nil }
        let half = Double(watchdogMicroseconds) / 2_000_000
        interval = max(half, Self.minimumInterval)
        requestedInterval = half < Self.minimumInterval ? half : nil
    }

    /// A schedule pinging every `interval` seconds (> 0).
    public init?(interval: Double) {
        guard interval > 0, interval.isFinite else { return nil }
        self.interval = interval
        requestedInterval = nil
    }

    /// When the next ping is due (`now`-independent once a ping was sent).
    public func nextDue(now: Double) -> Double { lastPing.map { $0 + interval } ?? now }

    /// Whether a ping should be sent at `now`.
    public func isDue(now: Double) -> Bool { nextDue(now: now) <= now }

    /// Records a ping sent at `now`.
    public mutating func pinged(at now: Double) { lastPing = now }

    /// The longest the loop may wait at `now` before it must ping: `idle` (milliseconds; the
    /// loop's own timeout, negative for "forever") or the time to the next ping, whichever is
    /// sooner; 0 when a ping is due. Rounded up, so the loop wakes at or just after the due
    /// time and never spins on a 0 ms wait just before it.
    public func timeoutMilliseconds(now: Double, idle: Int32) -> Int32 {
        let remaining = nextDue(now: now) - now
        if remaining <= 0 { return 0 }
        let ms = (remaining * 1000).rounded(.up)
        let due = ms >= Double(Int32.max) ? Int32.max : Int32(ms)
        return idle < 0 ? due : min(idle, due)
    }
}

/// The watchdog the environment asks for (the rules of sd_watchdog_enabled(3), plus one for
/// a compositor in between): `WATCHDOG_USEC` is the timeout in microseconds; `WATCHDOG_PID`,
/// when set, names the process systemd watches. Under cage the watched process is cage (the
/// unit's main process) and the kiosk its child; with `NotifyAccess=all` the child's pings
/// count, so the kiosk also pings when `WATCHDOG_PID` is its parent.
public enum WatchdogEnvironment {
    /// Why the watchdog is on or off, for one log line at start-up.
    public enum Decision: Equatable, Sendable {
        case off(reason: String)
        case on(microseconds: UInt64, asParentOf: Bool)
    }

    public static func decide(usec: String?, pid: String?, ownPID: Int32, parentPID: Int32) -> Decision {
        guard let usec, !usec.isEmpty else { return .off(reason: "WATCHDOG_USEC is not set") }
        guard let value = UInt64(usec), value > 0 else { return .off(reason: "WATCHDOG_USEC=\(usec) is not a positive integer") }
        guard let pid, !pid.isEmpty else { return .on(microseconds: value, asParentOf: false) }
        guard let watched = Int32(pid), watched > 0 else { return .off(reason: "WATCHDOG_PID=\(pid) is not a process id") }
        if watched == ownPID { return .on(microseconds: value, asParentOf: false) }
        if watched == parentPID { return .on(microseconds: value, asParentOf: true) }
        return .off(reason: "WATCHDOG_PID=\(pid) is neither this process (\(ownPID)) nor its parent (\(parentPID))")
    }
}
