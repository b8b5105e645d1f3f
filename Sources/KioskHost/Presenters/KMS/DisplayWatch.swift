import CDRM
import Log
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's word that a display came, went or changed: drm `change` uevents with
/// `HOTPLUG=1` (`DisplayRules.asksForRescan`) read from a netlink socket (the kernel's own
/// messages: no udevd needed), a burst coalesced into one rescan (`DisplayRules.RescanCoalescer`).
/// Its descriptor wakes the loop's idle wait (`IdleWait`); the loop calls `service` after each
/// wait and rescans the connectors when it says so, and wakes for `deadline`.
final class DisplayWatch {
    let descriptor: Int32
    private var coalescer = DisplayRules.RescanCoalescer()
    private var buffer = [UInt8](repeating: 0, count: 8192)
    /// Rescans asked for since the start (the timing lines and tests read it).
    private(set) var rescans = 0
    /// Hot-plug events read since the start.
    private(set) var events = 0

    /// Where the rescan lines go (a flapping connector must not write one a burst forever).
    private let lines: RepeatingLines

    /// Nil (one warning) when the socket cannot be had: the display is then read once, at start.
    init?(lines: RepeatingLines) {
        self.lines = lines
        let fd = cdrm_uevent_open()
        guard fd >= 0 else {
            Log.warning("cannot follow display hot-plug (netlink uevent socket: \(String(cString: strerror(-fd)))); "
                        + "a display connected later is not seen")
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Reads what the socket holds; true when a rescan is due now (the burst has settled).
    func service(now: Double = MonotonicClock.seconds()) -> Bool {
        while true {
            let n = buffer.withUnsafeMutableBytes { cdrm_uevent_receive(descriptor, $0.baseAddress, UInt(8192)) }
            if n == -Int(EINTR) { continue }
            if n < 0 { break }
            guard n > 0, let event = DisplayRules.parseUevent(Array(buffer[0..<n])),
                  DisplayRules.asksForRescan(event) else { continue }
            events += 1
            coalescer.event(at: now)
        }
        let burst = coalescer.pending
        guard coalescer.take(at: now) else { return false }
        rescans += 1
        lines.info(.hotplug, "display: \(burst) hot-plug event\(burst == 1 ? "" : "s"), connectors read again")
        return true
    }

    /// Seconds from `now` until a coalesced rescan is due (nil: none waiting).
    func secondsToRescan(now: Double = MonotonicClock.seconds()) -> Double? {
        coalescer.deadline.map { max(0, $0 - now) }
    }
}
