import Synchronization
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// What an input reader thread (`LibinputReader`, `EvdevReader`) and the frame loop share: the
/// queue of stamped input (bounded, moves merged: `DeviceInputQueue`) with one wake-up of the
/// loop per batch that found it empty (`wake`, e.g. one SDL event; a refused wake is tried
/// again with the next batch), and the stop: a `WakeDescriptor` the thread polls, and the wait
/// for the thread's last word. Both readers own one; neither writes the hand-off again.
final class InputHandOff: @unchecked Sendable {
    private let stopWake: WakeDescriptor
    /// Readable once `stop` was asked: the reader thread polls it beside its devices.
    var stopDescriptor: Int32 { stopWake.fd }
    private let wake: @Sendable () -> Bool
    private let queue = Mutex<(items: DeviceInputQueue, wakePending: Bool)>((DeviceInputQueue(), false))
    private let finished = Condition()
    /// Set by `threadEnded` (under `finished`'s lock).
    private var ended = false
    /// The device descriptors the reader has open (`heldDescriptors`).
    private let held = Mutex<Set<Int32>>([])

    /// Nil when no eventfd can be had (errno says why). `wake` is called from the reader
    /// thread; it must be thread-safe.
    init?(wake: @escaping @Sendable () -> Bool) {
        guard let stopWake = WakeDescriptor() else { return nil }
        self.stopWake = stopWake
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

    /// Reader thread: a device descriptor opened (after the open) or about to be closed
    /// (before the close, so that a number the kernel hands out again is never taken for ours).
    func holds(_ fd: Int32) { _ = held.withLock { $0.insert(fd) } }
    func releases(_ fd: Int32) { _ = held.withLock { $0.remove(fd) } }

    /// Any thread: the device descriptors the reader has open. The frame loop's idle wait
    /// (`IdleWait`) leaves them out of its poll: the reader's thread reads them, and a device
    /// with input it has not read yet would end the wait at once, again and again — a panel
    /// spewing events kept the loop thread busier than the reader (Tests/vm hostile_devices).
    var heldDescriptors: Set<Int32> { held.withLock { $0 } }

    /// Reader thread, its last step (after its devices are released).
    func threadEnded() {
        finished.lock()
        ended = true
        finished.broadcast()
        finished.unlock()
    }

    /// Frame loop: asks the thread to stop and waits for `threadEnded` (the descriptor is
    /// closed with the hand-off).
    func stop() {
        stopWake.signal()
        finished.lock()
        while !ended { finished.wait() }
        finished.unlock()
    }
}
