import Appearance
import CoalescingWriter
import KioskEngine
import KioskSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Commits off the frame path: `commit` hands the preference to a `CoalescingWriter` (one
/// background thread, the latest value wins) whose save is `PreferencesStore.save`, so the
/// frame after a commit does no file I/O. `close(timeout:)` flushes, bounded, on every exit
/// path of the kiosk.
///
/// Test hook: `DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS=N` sleeps N ms per fsync of a save (a save
/// does two: the file and its folder) on the writer thread, to stand in for a slow SD card.
///
/// Each commit gets a number (`latestGeneration`, counted on the committing thread). After a
/// save has put the file in place, `onSaved` is told the number of the commit it saved (on the
/// writer thread), so the host can make the page agree with the file when another program
/// wrote it while the save was pending (issue #32, item 4).
///
/// A save that fails (a read-only or full disk, a folder without write permission) is not
/// forgotten (issue 39, item 3): the writer tries the latest choice again on a backoff (1 s
/// doubling to 60 s, `RetrySchedule`) and at once when `retrySoon()` says the folder changed,
/// until it is saved; a later choice replaces it, never the other way round. One line when it
/// fails (the store's, plus "trying again …"), one when it is saved after all ("the choice dark
/// was saved to … after N tries"); `unsavedNote` says so for systemd's STATUS meanwhile; the
/// exit flush (`close`) tries once more and otherwise says what was lost.
public final class PreferencesSaver: @unchecked Sendable {
    /// One commit: the preference and its number.
    public struct Commit: Equatable, Sendable {
        public var preference: AppearancePreference
        public var generation: Int
    }

    private let writer: CoalescingWriter<Commit>
    /// The number of the latest commit; only the committing thread touches it.
    public private(set) var latestGeneration = 0
    /// The latest committed preference (read by the exit message and the status note).
    private let latest = Mutex<AppearancePreference?>(nil)
    /// The store, touched only by the writer thread once the saver exists.
    private let store: PreferencesStore
    public let fsyncDelay: Double

    /// The save's failure, as the writer keeps it: the store's reason.
    struct SaveFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameters:
    ///   - retry: when a failed save is tried again (tests shorten it).
    ///   - log: told about save failures (on the writer thread), once per run of failures,
    ///     and about a save that succeeded after failures.
    ///   - onSaved: told the commit number of each save that put the file in place (on the
    ///     writer thread).
    ///   - onStateChange: told (on the writer thread) when a save failed or succeeded after
    ///     failures, i.e. when `unsavedNote` may have changed.
    public init(store: PreferencesStore, fsyncDelay: Double = 0, retry: RetrySchedule = RetrySchedule(),
                log: @escaping @Sendable (String) -> Void,
                onSaved: (@Sendable (_ generation: Int) -> Void)? = nil,
                onStateChange: (@Sendable () -> Void)? = nil) {
        self.store = store
        self.fsyncDelay = fsyncDelay
        let box = StoreBox(store: store, delay: fsyncDelay)
        let path = store.path
        func seconds(_ x: Double) -> String { x >= 1 && x == x.rounded() ? "\(Int(x)) s" : "\(fixed(x, 2)) s" }
        let every = retry.first == retry.longest ? "every \(seconds(retry.first)),"
            : "after \(seconds(retry.first)), doubling up to every \(seconds(retry.longest)),"
        // No "skip if equal" rule: the store merges the file's other keys on each save, and a
        // failed save is tried again whatever its value.
        writer = CoalescingWriter<Commit>(name: "prefs-writer", isSame: nil, retry: retry, save: { c in
            let line = box.save(c.preference)
            guard box.store.lastSaveWritten else {
                if let line { log(line + "; trying again \(every) and when the folder changes") }
                throw SaveFailure(description: box.store.lastFailure ?? "the save failed")
            }
            if let line { log(line) }
            onSaved?(c.generation)
        }, onError: { _ in onStateChange?() }, onRecovered: { tries, c in
            log("the choice \(c.preference.rawValue) was saved to \(path) after \(tries) tries")
            onStateChange?()
        })
    }

    /// Queues the chosen preference; never waits for the disk.
    public func commit(_ preference: AppearancePreference) {
        latestGeneration += 1
        latest.withLock { $0 = preference }
        writer.submit(Commit(preference: preference, generation: latestGeneration))
    }

    /// Queues what an input handler asked the driver to save.
    public func commit(_ output: KioskOutput) {
        switch output {
        case .preferenceChanged(let p): commit(p)
        }
    }

    /// Something changed in or around the preferences folder (inotify): a save waiting for
    /// its retry is tried soon instead of at the end of its backoff. Any thread.
    public func retrySoon() { writer.retrySoon() }

    /// For systemd's STATUS while the latest choice is not on disk; nil when it is (or none).
    public var unsavedNote: String? {
        guard writer.unsavedReason != nil else { return nil }
        return "the choice \(latest.withLock { $0 }?.rawValue ?? "?") is not saved (trying again)"
    }

    /// Waits up to `timeout` seconds for the latest commit to be on disk (a choice waiting for
    /// its retry is tried once more at once), then ends the thread. Returns one line for
    /// stderr when it did not get there: what was lost and why.
    @discardableResult
    public func close(timeout: Double) -> String? {
        let result = writer.close(timeout: timeout)
        let choice = latest.withLock { $0 }?.rawValue ?? "?"
        switch result {
        case .written: return nil
        case .failed(let why): return "the choice \(choice) was not saved: \(why)"
        case .timedOut: return "the choice \(choice) may not be saved: its save did not finish within \(fixed(timeout, 1)) s"
        }
    }

    /// Saves done, submitted, etc. (tests, bench).
    public var statistics: CoalescingWriter<Commit>.Statistics { writer.statistics }

    private final class StoreBox: @unchecked Sendable {
        let store: PreferencesStore
        let delay: Double
        init(store: PreferencesStore, delay: Double) { self.store = store; self.delay = delay }
        func save(_ p: AppearancePreference) -> String? {
            if delay > 0 { Self.sleep(2 * delay) }
            return store.save(appearance: p)
        }
        static func sleep(_ seconds: Double) {
            var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
            var left = timespec()
            while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
        }
    }
}
