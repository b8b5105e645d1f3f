#if canImport(Glibc)
import Glibc
#endif

/// Saves values off the caller's thread: `submit` hands the newest value to one background
/// thread and returns at once (it only takes a mutex); the thread saves through the injected
/// closure. Values submitted while a save runs are coalesced: only the latest is saved next,
/// and a value equal to the one already saved is not saved again. `flush(timeout:)` waits,
/// bounded, until the latest submitted value is saved — the exit path (SIGTERM/SIGINT) calls
/// it so no commit is lost.
///
/// Generic over the value (e.g. the preferences document). The save closure runs on the writer
/// thread only, one call at a time.
public final class CoalescingWriter<Value: Sendable>: @unchecked Sendable {
    /// How a flush ended.
    public enum FlushResult: Equatable, Sendable {
        /// Everything submitted is saved (or nothing was submitted).
        case written
        /// The latest value's save threw; the message says why.
        case failed(String)
        /// The timeout passed with a save still pending or running.
        case timedOut
    }

    private let core: Core

    /// - Parameters:
    ///   - name: the thread's name (for debuggers and `top -H`).
    ///   - isSame: when it returns true for (pending, last saved), the pending value is dropped.
    ///   - save: saves one value; throws on failure.
    ///   - onError: told about each failed save (on the writer thread), e.g. to log it.
    public init(name: String = "prefs-writer",
                isSame: (@Sendable (Value, Value) -> Bool)? = nil,
                save: @escaping @Sendable (Value) throws -> Void,
                onError: @escaping @Sendable (Error) -> Void = { _ in }) {
        core = Core(isSame: isSame, save: save, onError: onError)
        let core = self.core
        WriterThread.start(name: name) { core.run() }
    }

    deinit { core.stop() }

    /// Queues `value` to be saved, replacing any value still waiting. Never waits for a save.
    public func submit(_ value: Value) { core.submit(value) }

    /// Waits up to `timeout` seconds for every submitted value to be saved.
    public func flush(timeout: Double) -> FlushResult { core.flush(timeout: timeout) }

    /// Flushes (bounded), then ends the thread; later submits are ignored.
    @discardableResult
    public func close(timeout: Double) -> FlushResult {
        let result = core.flush(timeout: timeout)
        core.stop()
        return result
    }

    /// Counters for tests and diagnostics.
    public struct Statistics: Equatable, Sendable {
        public var submitted = 0
        public var saves = 0
        public var failures = 0
        public var skippedAsSame = 0
        public init() {}
    }

    public var statistics: Statistics { core.statistics }

    private final class Core: @unchecked Sendable {
        private let condition = Condition()
        private let isSame: (@Sendable (Value, Value) -> Bool)?
        private let save: @Sendable (Value) throws -> Void
        private let onError: @Sendable (Error) -> Void
        // Guarded by `condition`:
        private var pending: Value?
        private var lastSaved: Value?
        private var submittedGeneration = 0
        private var finishedGeneration = 0
        private var lastError: String?
        private var stopped = false
        private var stats = Statistics()

        init(isSame: (@Sendable (Value, Value) -> Bool)?, save: @escaping @Sendable (Value) throws -> Void,
             onError: @escaping @Sendable (Error) -> Void) {
            self.isSame = isSame
            self.save = save
            self.onError = onError
        }

        var statistics: Statistics {
            condition.lock(); defer { condition.unlock() }
            return stats
        }

        func submit(_ value: Value) {
            condition.lock(); defer { condition.unlock() }
            guard !stopped else { return }
            pending = value
            submittedGeneration += 1
            stats.submitted += 1
            condition.broadcast()
        }

        func stop() {
            condition.lock(); defer { condition.unlock() }
            stopped = true
            condition.broadcast()
        }

        func flush(timeout: Double) -> FlushResult {
            let deadline = Condition.deadline(after: max(0, timeout))
            condition.lock(); defer { condition.unlock() }
            while finishedGeneration < submittedGeneration {
                if stopped && pending == nil { break }  // the thread is gone; nothing more will finish
                if !condition.wait(until: deadline) { break }
            }
            if finishedGeneration < submittedGeneration { return .timedOut }
            return lastError.map { .failed($0) } ?? .written
        }

        func run() {
            condition.lock()
            while true {
                while pending == nil && !stopped { condition.wait() }
                guard let value = pending else { break }  // stopped with nothing left
                pending = nil
                let generation = submittedGeneration
                if let isSame, let lastSaved, isSame(value, lastSaved) {
                    stats.skippedAsSame += 1
                    finishedGeneration = generation
                    lastError = nil
                    condition.broadcast()
                    continue
                }
                condition.unlock()
                var failure: Error?
                do { try save(value) } catch { failure = error }
                if let failure { onError(failure) }
                condition.lock()
                if let failure {
                    stats.failures += 1
                    lastError = String(describing: failure)
                    lastSaved = nil  // unknown state on disk: the next value is saved even if equal
                } else {
                    stats.saves += 1
                    lastError = nil
                    lastSaved = value
                }
                finishedGeneration = generation
                condition.broadcast()
                if stopped && pending == nil { break }
            }
            condition.unlock()
        }
    }
}

extension CoalescingWriter where Value: Equatable {
    /// A writer that skips a value equal to the one last saved.
    public convenience init(name: String = "prefs-writer",
                            save: @escaping @Sendable (Value) throws -> Void,
                            onError: @escaping @Sendable (Error) -> Void = { _ in }) {
        self.init(name: name, isSame: { $0 == $1 }, save: save, onError: onError)
    }
}

/// A mutex with a condition variable (pthread), timed waits on CLOCK_MONOTONIC. Plain POSIX,
/// so the kiosk does not load Foundation (about 8 MB of resident libraries) for one thread.
final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
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

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }
    /// Waits (the mutex held) until woken.
    func wait() { pthread_cond_wait(cond, mutex) }

    /// CLOCK_MONOTONIC `seconds` from now.
    static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let whole = seconds.rounded(.down)
        var ns = Int(now.tv_nsec) + Int((seconds - whole) * 1e9)
        var sec = Int(now.tv_sec) + Int(min(whole, 1e9))
        if ns >= 1_000_000_000 { ns -= 1_000_000_000; sec += 1 }
        return timespec(tv_sec: sec, tv_nsec: ns)
    }

    /// Waits (the mutex held) until woken or `deadline` passes; false when it passed.
    func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(cond, mutex, &d) != ETIMEDOUT
    }
}

/// Starts a detached, named pthread running `body`.
enum WriterThread {
    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) { self.name = name; self.body = body }
    }

    static func start(name: String, _ body: @escaping () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let s = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            // The thread's name (top -H, debuggers): pthread_setname_np is a GNU extension
            // Swift does not import; /proc/thread-self/comm is the same (at most 15 bytes).
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                let bytes = Array(s.name.utf8.prefix(15))
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            s.body()
            return nil
        }, start)
        precondition(rc == 0, "cannot start the \(name) thread (pthread_create: \(rc))")
        pthread_detach(thread)
    }
}
