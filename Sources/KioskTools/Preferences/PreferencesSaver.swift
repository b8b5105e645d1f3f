import Appearance
import CoalescingWriter
import KioskEngine
import KioskSupport
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
public final class PreferencesSaver: @unchecked Sendable {
    /// One commit: the preference and its number.
    public struct Commit: Equatable, Sendable {
        public var preference: AppearancePreference
        public var generation: Int
    }

    private let writer: CoalescingWriter<Commit>
    /// The number of the latest commit; only the committing thread touches it.
    public private(set) var latestGeneration = 0
    /// The store, touched only by the writer thread once the saver exists.
    private let store: PreferencesStore
    public let fsyncDelay: Double

    /// The delay asked for by `DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS` (seconds; 0 when unset or bad).
    public static func injectedFsyncDelay(_ environment: [String: String]) -> Double {
        guard let v = environment["DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS"], let ms = Double(v), ms.isFinite, ms > 0 else { return 0 }
        return min(ms, 10_000) / 1000
    }

    /// - Parameters:
    ///   - log: told about save failures (on the writer thread), once per run of failures.
    ///   - onSaved: told the commit number of each save that put the file in place (on the
    ///     writer thread).
    public init(store: PreferencesStore, fsyncDelay: Double = 0, log: @escaping @Sendable (String) -> Void,
                onSaved: (@Sendable (_ generation: Int) -> Void)? = nil) {
        self.store = store
        self.fsyncDelay = fsyncDelay
        let box = StoreBox(store: store, delay: fsyncDelay)
        // No "skip if equal" rule: the store merges the file's other keys on each save, and a
        // failed save is retried with the next commit whatever its value.
        writer = CoalescingWriter<Commit>(name: "prefs-writer", isSame: nil, save: { c in
            if let d = box.save(c.preference) { log(d) }
            if box.store.lastSaveWritten { onSaved?(c.generation) }
        })
    }

    /// Queues the chosen preference; never waits for the disk.
    public func commit(_ preference: AppearancePreference) {
        latestGeneration += 1
        writer.submit(Commit(preference: preference, generation: latestGeneration))
    }

    /// Queues what an input handler asked the driver to save.
    public func commit(_ output: KioskOutput) {
        switch output {
        case .preferenceChanged(let p): commit(p)
        }
    }

    /// Waits up to `timeout` seconds for the latest commit to be on disk, then ends the thread.
    /// Returns a message for stderr when it did not get there.
    @discardableResult
    public func close(timeout: Double) -> String? {
        switch writer.close(timeout: timeout) {
        case .written: return nil
        case .failed(let why): return "the last preferences save failed: \(why)"
        case .timedOut: return "the last preferences save did not finish within \(fixed(timeout, 1)) s; the committed mode may be lost"
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
