import CThreadDefaults
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A helper thread that sleeps in `poll()` and is stopped from outside: started once, it polls
/// `wakeDescriptor` beside its own descriptors, and after each wake-up calls `drainWake()` and
/// ends when `stopping` is true. `stop()` sets that, wakes it and joins it. The appearance
/// sources and the accessibility provider run on one each.
public final class ServiceThread: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var thread: JoinableThread?
    }
    private let state = Mutex(State())
    private let waker = WakeDescriptor()
    /// Readable after `wake()` until `drainWake()`; -1 when none could be made (then `start` fails).
    public var wakeDescriptor: Int32 { waker?.fd ?? -1 }

    public init() {}

    /// Runs `body` on a new thread; false when it could not start or was started before.
    public func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        guard wakeDescriptor >= 0 else { return false }
        let first = state.withLock { s -> Bool in
            if s.started { return false }
            s.started = true
            return true
        }
        guard first else { return false }
        guard let thread = JoinableThread.start(name: name, body) else {
            state.withLock { $0.started = false }
            return false
        }
        state.withLock { $0.thread = thread }
        return true
    }

    /// True once `stop` was called: the thread should end at its next wake-up.
    public var stopping: Bool { state.withLock { $0.stopping } }

    /// Makes `wakeDescriptor` readable (any thread).
    public func wake() { waker?.signal() }

    /// Reads the wake-ups so far (on the thread, after its poll).
    public func drainWake() { waker?.drain() }

    /// Asks the thread to end and waits for it. Safe to call twice, or without a start.
    public func stop() {
        let thread = state.withLock { s -> JoinableThread? in
            s.stopping = true
            defer { s.thread = nil }
            return s.thread
        }
        wake()
        thread?.join()
    }
}
