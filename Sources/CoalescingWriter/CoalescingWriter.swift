#if canImport(Glibc)
import Glibc
#endif
import Threads

/// Saves values off the caller's thread: `submit` hands the newest value to one background
/// thread and returns at once (it only takes a mutex); the thread saves through the injected
/// closure. Values submitted while a save runs are coalesced: only the latest is saved next,
/// and a value equal to the one already saved is not saved again. `flush(timeout:)` waits,
/// bounded, until the latest submitted value is saved — the exit path (SIGTERM/SIGINT) calls
/// it so no commit is lost.
///
/// Generic over the value (e.g. the preferences document). The save closure runs on the writer
/// thread only, one call at a time. Plain pthreads, no Foundation: Foundation's libraries (ICU
/// among them) would cost the kiosk ~5 ms of CPU at every start before `main` runs.
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
        if !ThreadStart.spawn(name: name, { core.run() }) {
            // No thread to be had: saves happen in `submit`, on the caller's thread.
            core.saveInline()
        }
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

        private var inline = false

        /// No writer thread: every submit saves before it returns.
        func saveInline() {
            condition.lock(); defer { condition.unlock() }
            inline = true
        }

        func submit(_ value: Value) {
            condition.lock()
            guard !stopped else { condition.unlock(); return }
            pending = value
            submittedGeneration += 1
            stats.submitted += 1
            condition.broadcast()
            let saveHere = inline
            condition.unlock()
            if saveHere { run(once: true) }
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

        /// The writer thread's loop (`once`: save what is pending, then return).
        func run(once: Bool = false) {
            condition.lock()
            while true {
                if once && pending == nil { break }
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
