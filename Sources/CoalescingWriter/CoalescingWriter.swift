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
/// With a `RetrySchedule` (issue 39, item 3) a failed save is not forgotten: the value is tried
/// again on the schedule's backoff (and sooner after `retrySoon()`, e.g. when the folder
/// changed) until a save succeeds, unless a newer value was submitted meanwhile — the newer one
/// is saved instead and the older is dropped, so an older choice never overwrites a later one.
/// `close(timeout:)` tries a value still waiting for its retry once more at once.
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
    ///   - retry: when given, a failed value is tried again on this schedule (see the type).
    ///   - onRecovered: told, on the writer thread, when a save succeeds after failures: the
    ///     number of attempts (the failed ones and this one) and the value saved.
    public init(name: String = "prefs-writer",
                isSame: (@Sendable (Value, Value) -> Bool)? = nil,
                retry: RetrySchedule? = nil,
                save: @escaping @Sendable (Value) throws -> Void,
                onError: @escaping @Sendable (Error) -> Void = { _ in },
                onRecovered: @escaping @Sendable (_ tries: Int, Value) -> Void = { _, _ in }) {
        core = Core(isSame: isSame, retry: retry, save: save, onError: onError, onRecovered: onRecovered)
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

    /// Tries a value that waits for its retry soon (at once, or `RetrySchedule.closest` after
    /// the last attempt): something changed that may let it succeed. Nothing when none waits.
    public func retrySoon() { core.retrySoon() }

    /// Why the latest value is not saved (its last attempt failed and no later save
    /// succeeded), or nil.
    public var unsavedReason: String? { core.unsavedReason }

    /// Flushes (bounded), then ends the thread; later submits are ignored. A value waiting for
    /// its retry is tried once more first.
    @discardableResult
    public func close(timeout: Double) -> FlushResult {
        core.retryNowForClose()
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
        /// Attempts that tried a failed value again.
        public var retries = 0
        public init() {}
    }

    public var statistics: Statistics { core.statistics }

    private final class Core: @unchecked Sendable {
        private let condition = Condition()
        private let isSame: (@Sendable (Value, Value) -> Bool)?
        private let save: @Sendable (Value) throws -> Void
        private let onError: @Sendable (Error) -> Void
        private let onRecovered: @Sendable (Int, Value) -> Void
        private let schedule: RetrySchedule?
        // Guarded by `condition`:
        /// A value whose save failed, waiting for its retry at `retryAt` (monotonic seconds).
        private var retryValue: Value?
        private var retryAt = 0.0
        private var lastAttempt = 0.0
        /// Failed attempts since the last successful save.
        private var failures = 0
        private var pending: Value?
        private var lastSaved: Value?
        private var submittedGeneration = 0
        private var finishedGeneration = 0
        private var lastError: String?
        private var stopped = false
        private var stats = Statistics()

        init(isSame: (@Sendable (Value, Value) -> Bool)?, retry: RetrySchedule?, save: @escaping @Sendable (Value) throws -> Void,
             onError: @escaping @Sendable (Error) -> Void, onRecovered: @escaping @Sendable (Int, Value) -> Void) {
            self.isSame = isSame
            self.schedule = retry
            self.save = save
            self.onError = onError
            self.onRecovered = onRecovered
        }

        var unsavedReason: String? {
            condition.lock(); defer { condition.unlock() }
            return failures > 0 ? lastError : nil
        }

        func retrySoon() {
            condition.lock(); defer { condition.unlock() }
            guard let schedule, retryValue != nil else { return }
            retryAt = schedule.retryOnChange(now: MonotonicClock.seconds(), scheduled: retryAt, lastAttempt: lastAttempt)
            condition.broadcast()
        }

        /// Moves a value waiting for its retry back to pending, as a new generation, so the
        /// flush that follows waits for this last attempt.
        func retryNowForClose() {
            condition.lock(); defer { condition.unlock() }
            guard let value = retryValue, pending == nil, !stopped else { return }
            retryValue = nil
            pending = value
            submittedGeneration += 1
            stats.retries += 1
            condition.broadcast()
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
            retryValue = nil  // a newer value supersedes one waiting for its retry
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
            let deadline = MonotonicClock.timespec(after: max(0, timeout))
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
                waitForWork()
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
                lastAttempt = MonotonicClock.seconds()
                condition.unlock()
                var failure: Error?
                do { try save(value) } catch { failure = error }
                if let failure { onError(failure) }
                condition.lock()
                let recoveredAfter = record(value, failure: failure)
                if recoveredAfter > 0 {
                    condition.unlock()
                    onRecovered(recoveredAfter + 1, value)
                    condition.lock()
                }
                finishedGeneration = generation
                condition.broadcast()
                if stopped && pending == nil { break }
            }
            condition.unlock()
        }

        /// Waits (the lock held) until a value is pending, a failed value's retry is due (it
        /// becomes pending again) or the writer is stopped.
        private func waitForWork() {
            while pending == nil && !stopped {
                guard let waiting = retryValue else { condition.wait(); continue }
                let now = MonotonicClock.seconds()
                if now >= retryAt {
                    retryValue = nil
                    pending = waiting
                    submittedGeneration += 1
                    stats.retries += 1
                    return
                }
                _ = condition.wait(until: MonotonicClock.timespec(after: retryAt - now))
            }
        }

        /// Counts one save's outcome (the lock held), a failed value kept for its retry; returns
        /// the failures in a row a success ended (0 otherwise).
        private func record(_ value: Value, failure: Error?) -> Int {
            guard let failure else {
                stats.saves += 1
                lastError = nil
                lastSaved = value
                defer { failures = 0 }
                return failures
            }
            stats.failures += 1
            lastError = String(describing: failure)
            lastSaved = nil  // unknown state on disk: the next value is saved even if equal
            failures += 1
            if let schedule, pending == nil {
                // Only when nothing newer waits: a newer value is saved instead.
                retryValue = value
                retryAt = MonotonicClock.seconds() + schedule.delay(afterFailures: failures)
            }
            return 0
        }
    }
}

extension CoalescingWriter where Value: Equatable {
    /// A writer that skips a value equal to the one last saved.
    public convenience init(name: String = "prefs-writer",
                            retry: RetrySchedule? = nil,
                            save: @escaping @Sendable (Value) throws -> Void,
                            onError: @escaping @Sendable (Error) -> Void = { _ in },
                            onRecovered: @escaping @Sendable (_ tries: Int, Value) -> Void = { _, _ in }) {
        self.init(name: name, isSame: { $0 == $1 }, retry: retry, save: save, onError: onError, onRecovered: onRecovered)
    }
}
