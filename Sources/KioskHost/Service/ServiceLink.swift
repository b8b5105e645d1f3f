import Log
import Synchronization
import SystemdNotify

/// The host's side of systemd: READY=1 after the first presented frame, STATUS= when the
/// summary changes, WATCHDOG=1 from the loop thread at half WATCHDOG_USEC, STOPPING=1 at the
/// end. Every call is a no-op without NOTIFY_SOCKET.
struct ServiceLink {
    let notifier: SystemdNotifier
    private(set) var watchdog: WatchdogSchedule?
    private var lastStatus: String?
    private(set) var isReady = false

    init(notifier: SystemdNotifier = SystemdNotifier()) {
        self.notifier = notifier
        watchdog = notifier.watchdogSchedule
        if notifier.isEnabled, case .off(let reason) = notifier.watchdog, reason != "WATCHDOG_USEC is not set" {
            Log.warning("no watchdog pings: \(reason)")
        }
        if let w = watchdog, w.requestedInterval != nil, case .on(let usec, _) = notifier.watchdog {
            Log.warning("WATCHDOG_USEC=\(usec) asks for a ping every \(Double(usec) / 2) µs; pinging every "
                        + "\(Int((w.interval * 1000).rounded())) ms instead (the watchdog may fire between pings: raise WatchdogSec=)")
        }
    }

    /// READY=1 with the first status (once).
    mutating func ready(status: String) {
        guard !isReady else { return }
        isReady = true
        lastStatus = status
        notifier.ready(status: status)
    }

    /// STATUS= when `text` differs from the last one sent (only after READY).
    mutating func status(_ text: String) {
        guard isReady, text != lastStatus else { return }
        lastStatus = text
        notifier.status(text)
    }

    /// How long the idle loop may sleep (ms, -1 forever) so that it wakes for the next ping,
    /// or to retry what a full notify socket kept pending (`NotifyChannel.retryDelay`).
    func idleTimeout(now: Double) -> Int32 {
        let ping = watchdog?.timeoutMilliseconds(now: now, idle: -1) ?? -1
        guard notifier.hasPending else { return ping }
        let retry = Int32(NotifyChannel.retryDelay * 1000)
        return ping < 0 ? retry : min(ping, retry)
    }

    /// WATCHDOG=1 when due (and anything a full socket kept pending). Called from the loop
    /// only, so a stalled loop stops the pings. Never blocks (`NotifyChannel`).
    mutating func pingIfDue(now: Double) {
        if notifier.hasPending { notifier.flush() }
        guard var w = watchdog, w.isDue(now: now) else { return }
        if !Self.loopPinged.load(ordering: .relaxed) { Self.loopPinged.store(true, ordering: .relaxed) }
        notifier.watchdogPing()
        w.pinged(at: now)
        watchdog = w
    }

    func stopping(status: String) { notifier.stopping(status: status) }

    /// Set at the first watchdog ping sent through a `ServiceLink` (the frame loop's, or the
    /// output wait's): `WaylandOutputWait`'s start pings end then.
    static let loopPinged = Atomic<Bool>(false)
}
