#if canImport(Glibc)
import Glibc
#endif

/// A detached, named pthread (with a stack of `ThreadStacks.bytes`) running a closure (a C thread entry cannot refer to a generic type).
public final class ThreadStart: @unchecked Sendable {
    let name: String
    let body: () -> Void

    private init(name: String, body: @escaping () -> Void) {
        self.name = name
        self.body = body
    }

    /// False when no thread could be started.
    public static func spawn(name: String, _ body: @escaping () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        guard ThreadStacks.create(&thread, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            Condition.nameThisThread(start.name)
            start.body()
            return nil
        }, box) == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
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

    /// CLOCK_MONOTONIC `seconds` from now (negative counts as zero).
    public static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        let whole = total.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((total - whole) * 1e9))
    }

    /// Waits until signalled or `deadline`; false when the deadline passed.
    public func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(cond, mutex, &d) != ETIMEDOUT
    }
}
