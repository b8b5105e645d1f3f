#if canImport(Glibc)
import Glibc
#endif

/// A pthread (with a stack of `ThreadStacks.bytes`, named when a name is given) running a
/// closure, joined with `join` or let go with `detach`. The one way the kiosk starts a thread.
public final class JoinableThread: @unchecked Sendable {
    private var thread: pthread_t?

    private init(_ thread: pthread_t) { self.thread = thread }

    /// The closure and name the new thread takes (a C thread entry cannot refer to a generic type).
    private final class Start {
        let name: String?
        let body: () -> Void
        init(name: String?, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread; nil when no thread could be made.
    public static func start(name: String? = nil, _ body: @escaping () -> Void) -> JoinableThread? {
        let box = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        guard ThreadStacks.create(&thread, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            if let name = start.name { Condition.nameThisThread(name) }
            start.body()
            return nil
        }, box) == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            return nil
        }
        return JoinableThread(thread)
    }

    /// Waits for the thread to end (once; later calls return at once).
    public func join() {
        guard let t = thread else { return }
        thread = nil
        pthread_join(t, nil)
    }

    /// Lets the thread end on its own (it cannot be joined then).
    public func detach() {
        guard let t = thread else { return }
        thread = nil
        pthread_detach(t)
    }
}

/// A detached, named thread running a closure.
public enum ThreadStart {
    /// False when no thread could be started.
    public static func spawn(name: String, _ body: @escaping () -> Void) -> Bool {
        guard let t = JoinableThread.start(name: name, body) else { return false }
        t.detach()
        return true
    }
}

/// A pthread mutex and condition variable on CLOCK_MONOTONIC (timed waits ignore wall-clock
/// changes), at fixed addresses.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func broadcast() { pthread_cond_broadcast(cond) }
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Names the calling thread (the kernel keeps 15 bytes) for debuggers and `top -H`.
    public static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Waits until signalled or `deadline` (`MonotonicClock.timespec(after:)`); false when the deadline passed.
    public func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(cond, mutex, &d) != ETIMEDOUT
    }
}
