// sys/eventfd.h is in both CLibinput's and CSystemd's shims: its names come through whichever
// module clang gave the header to in this build, so both are imported.
import CLibinput
import CSystemd
import Synchronization
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// What an input reader thread (`LibinputReader`, `EvdevReader`) and the frame loop share: the
/// queue of stamped input (bounded, moves merged: `DeviceInputQueue`) with one wake-up of the
/// loop per batch that found it empty (`wake`, e.g. one SDL event; a refused wake is tried
/// again with the next batch), and the stop: an eventfd the thread polls, and the wait for the
/// thread's last word. Both readers own one; neither writes the hand-off again.
final class InputHandOff: @unchecked Sendable {
    /// Readable once `stop` was asked: the reader thread polls it beside its devices.
    let stopDescriptor: Int32
    private let wake: @Sendable () -> Bool
    private let queue = Mutex<(items: DeviceInputQueue, wakePending: Bool)>((DeviceInputQueue(), false))
    private let finished = Condition()
    /// Set by `threadEnded` (under `finished`'s lock).
    private var ended = false

    /// Nil when no eventfd can be had (errno says why). `wake` is called from the reader
    /// thread; it must be thread-safe.
    init?(wake: @escaping @Sendable () -> Bool) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { return nil }
        stopDescriptor = fd
        self.wake = wake
    }

    /// Reader thread: queues a batch, and wakes the loop when it had nothing waiting.
    func enqueue(_ batch: [StampedInput]) {
        let shouldWake = queue.withLock { q in
            for item in batch { q.items.append(item) }
            defer { q.wakePending = true }
            return !q.wakePending
        }
        if shouldWake, !wake() {
            // The loop's queue refused it: try again with the next batch.
            queue.withLock { $0.wakePending = false }
        }
    }

    /// Frame loop: everything queued since the last call, oldest first.
    func take(now: Double) -> [StampedInput] {
        queue.withLock { q in
            q.wakePending = false
            return q.items.take(now: now)
        }
    }

    /// Reader thread, its last step (after its devices are released).
    func threadEnded() {
        finished.lock()
        ended = true
        finished.broadcast()
        finished.unlock()
    }

    /// Frame loop: asks the thread to stop, waits for `threadEnded`, closes the eventfd.
    func stop() {
        var one: UInt64 = 1
        _ = write(stopDescriptor, &one, 8)
        finished.lock()
        while !ended { finished.wait() }
        finished.unlock()
        close(stopDescriptor)
    }

    /// A start that failed before the thread ran: closes the eventfd.
    func discard() { close(stopDescriptor) }
}
