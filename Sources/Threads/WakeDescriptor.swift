import CThreadDefaults
#if canImport(Glibc)
import Glibc
#endif

/// A descriptor that polls readable once signalled, until drained (an eventfd, non-blocking,
/// close-on-exec): how one thread wakes another that sleeps in `poll()`. The one way the
/// package makes one: `ServiceThread`'s wake-up, an input reader's stop (`InputHandOff`), the
/// idle wait's (`IdleWait`, written by an SDL event watch and by `QuitSignal`), calibrate's
/// loop. Closed on deinit.
public final class WakeDescriptor: Sendable {
    /// The descriptor to poll (POLLIN); also written to directly by C callbacks and signal
    /// handlers, which may only `write(fd, 8 bytes)`.
    public let fd: Int32

    /// Nil when the kernel gives no eventfd (errno says why).
    public init?() {
        let fd = dmk_wake_descriptor()
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Makes `fd` readable (any thread); false when the write failed.
    @discardableResult
    public func signal() -> Bool {
        var one: UInt64 = 1
        return write(fd, &one, 8) == 8
    }

    /// Reads the signals so far: `fd` is not readable again until the next `signal`.
    public func drain() {
        var value: UInt64 = 0
        _ = read(fd, &value, 8)
    }

    /// Sleeps until signalled or `milliseconds` passed (-1: no limit), then drains.
    public func wait(milliseconds: Int32) {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, milliseconds) > 0 { drain() }
    }
}
