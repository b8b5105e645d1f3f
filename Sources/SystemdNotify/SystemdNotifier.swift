import CSystemd
import Log
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's side of the sd_notify(3) protocol: `READY=1`, `STATUS=…`, `WATCHDOG=1`,
/// `STOPPING=1`, sent through a `NotifyChannel` that never blocks (a full notify socket keeps
/// the latest state pending instead of stalling the caller; the host calls `flush()` when it
/// wakes). Every call is a cheap no-op when `NOTIFY_SOCKET` is not set (not started by systemd
/// with `Type=notify`), so the host calls them unconditionally. Thread-safe.
public struct SystemdNotifier: Sendable {
    /// Whether `NOTIFY_SOCKET` was set (and usable) when the notifier was made.
    public let isEnabled: Bool
    /// The watchdog decision (for one log line at start-up).
    public let watchdog: WatchdogEnvironment.Decision
    /// The socket, nil when not enabled.
    public let channel: NotifyChannel?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` (leaves them in the
    /// environment: cage and children may read them too).
    public init(log: @escaping @Sendable (String) -> Void = { Log.warning($0) }) {
        channel = Self.env("NOTIFY_SOCKET").flatMap { NotifyChannel(address: $0, log: log) }
        isEnabled = channel != nil
        var usec: UInt64 = 0
        let r = sd_watchdog_enabled(0, &usec)
        if r > 0 {
            watchdog = .on(microseconds: usec, asParentOf: false)
        } else if r < 0 {
            watchdog = .off(reason: "invalid watchdog settings (\(String(cString: strerror(-r))))")
        } else {
            // sd_watchdog_enabled says no when WATCHDOG_PID is another process; it may be our
            // parent, the compositor the unit started (see WatchdogEnvironment).
            watchdog = WatchdogEnvironment.decide(usec: Self.env("WATCHDOG_USEC"), pid: Self.env("WATCHDOG_PID"),
                                                  ownPID: getpid(), parentPID: getppid())
        }
    }

    /// A schedule for the pings at half the watchdog timeout; nil without a watchdog (or
    /// without a notify socket to send the pings to).
    public var watchdogSchedule: WatchdogSchedule? {
        guard isEnabled, case .on(let usec, _) = watchdog else { return nil }
        return WatchdogSchedule(watchdogMicroseconds: usec)
    }

    /// `READY=1`, with a status line if given: send once the first frame is on screen.
    /// Returns true when it left now (false: not enabled, or kept pending).
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        post(.init(ready: true, status: status.map(Self.oneLine)))
    }

    /// `STATUS=…` (shown by `systemctl status`); newlines become spaces.
    @discardableResult
    public func status(_ text: String) -> Bool { post(.init(status: Self.oneLine(text))) }

    /// `WATCHDOG=1`: the loop is alive.
    @discardableResult
    public func watchdogPing() -> Bool { post(.init(watchdog: true)) }

    /// `STOPPING=1` (with a status line if given), then waits up to `barrierTimeout` seconds
    /// for the service manager to have read it (a `BARRIER=1` datagram carrying a pipe, as
    /// sd_notify_barrier does, but sent without blocking): a process that exits right after
    /// sending can otherwise lose the message, because systemd attributes a datagram from a
    /// non-main process (NotifyAccess=all, under cage) by looking the sender up. When the
    /// socket is full, STOPPING stays pending for one short retry within the barrier time.
    @discardableResult
    public func stopping(status: String? = nil, barrierTimeout: Double = 0.5) -> Bool {
        guard let channel else { return false }
        var sent = post(.init(stopping: true, status: status.map(Self.oneLine)))
        if !sent, barrierTimeout > 0 {
            // The manager may be catching up: a few retries, bounded by the barrier's time.
            let end = NotifyChannel.monotonicNow() + barrierTimeout
            while !sent, NotifyChannel.monotonicNow() < end {
                usleep(20_000)
                sent = channel.flush()
            }
        }
        if sent, barrierTimeout > 0 { _ = channel.barrier(timeout: barrierTimeout) }
        return sent
    }

    /// Sends what a full socket kept pending; true when nothing is pending (or not enabled).
    @discardableResult
    public func flush() -> Bool { channel?.flush() ?? true }

    /// Whether something waits for the socket to take it.
    public var hasPending: Bool { channel?.hasPending ?? false }

    private func post(_ message: NotifyChannel.Pending) -> Bool {
        channel?.post(message) ?? false
    }

    private static func oneLine(_ s: String) -> String {
        String(s.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    private static func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
