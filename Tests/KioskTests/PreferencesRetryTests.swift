#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import KioskTools
@testable import KioskSupport
import CoalescingWriter
import KioskEngine

/// A choice made while the folder cannot be written is saved once it can (issue 39, item 3),
/// and a tool writing garbage leaves only a few `.bad` files (item 6).
@Suite struct PreferencesRetryTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }

    /// A regular file where the folder should be: saves fail whoever runs the test (root too).
    static func blockedStore(_ dir: TempFolder) throws -> (store: PreferencesStore, blocker: String) {
        let blocker = dir.file("state")
        let fd = open(blocker, O_WRONLY | O_CREAT, 0o600)
        try #require(fd >= 0)
        close(fd)
        let store = PreferencesStore(path: blocker + "/preferences.json")
        _ = store.load()
        return (store, blocker)
    }

    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end { if condition() { return true }; usleep(10_000) }
        return condition()
    }

    @Test func aFailedChoiceIsSavedWithoutANewCommitOnceTheFolderCanBeWritten() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let (store, blocker) = try Self.blockedStore(dir)
        let lines = Lines()
        let saver = PreferencesSaver(store: store, retry: RetrySchedule(first: 0.05, longest: 0.2), log: { lines.add($0) })
        saver.commit(.dark)
        #expect(Self.eventually(5) { saver.unsavedNote != nil })
        #expect(saver.unsavedNote == "the choice dark is not saved (trying again)")
        usleep(600_000)  // several retries, all failing: still one line
        #expect(lines.all.count == 1, "\(lines.all)")
        #expect(lines.all.first?.hasPrefix("could not save preferences to \(blocker)/preferences.json") == true, "\(lines.all)")
        #expect(lines.all.first?.hasSuffix("; the mode is kept in memory; trying again after 0.05 s, doubling up to every 0.20 s, and when the folder changes") == true,
                "\(lines.all)")
        #expect(saver.statistics.retries >= 2)
        unlink(blocker)
        #expect(Self.eventually(5) { PreferencesStore(path: blocker + "/preferences.json").load().appearance == .dark })
        #expect(Self.eventually(5) { lines.all.count == 2 })
        let tries = saver.statistics.failures + 1
        #expect(lines.all.last == "the choice dark was saved to \(blocker)/preferences.json after \(tries) tries")
        #expect(saver.unsavedNote == nil)
        #expect(saver.close(timeout: 5) == nil)
    }

    @Test func theExitFlushTriesOnceMoreAndNamesTheLostChoice() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let (store, blocker) = try Self.blockedStore(dir)
        let saver = PreferencesSaver(store: store, retry: RetrySchedule(first: 30, longest: 60), log: { _ in })
        saver.commit(.dark)
        #expect(Self.eventually(5) { saver.statistics.failures == 1 })
        let message = saver.close(timeout: 5)
        #expect(saver.statistics.failures == 2, "the exit flush tried once more")
        #expect(message?.hasPrefix("the choice dark was not saved: could not save preferences to \(blocker)/preferences.json") == true, "\(message ?? "nil")")
        #expect(message?.contains("the mode is kept in memory") == false)

        // The same, but the folder can be written by the time of the exit: saved by the flush.
        let dir2 = TempFolder()
        defer { dir2.cleanup() }
        let (store2, blocker2) = try Self.blockedStore(dir2)
        let saver2 = PreferencesSaver(store: store2, retry: RetrySchedule(first: 30, longest: 60), log: { _ in })
        saver2.commit(.dark)
        #expect(Self.eventually(5) { saver2.statistics.failures == 1 })
        unlink(blocker2)
        #expect(saver2.close(timeout: 5) == nil)
        #expect(PreferencesStore(path: blocker2 + "/preferences.json").load().appearance == .dark)
    }

    @Test func aLaterChoiceIsNeverOverwrittenByTheOlderFailedOne() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let (store, blocker) = try Self.blockedStore(dir)
        let saver = PreferencesSaver(store: store, retry: RetrySchedule(first: 0.05, longest: 0.05), log: { _ in })
        saver.commit(.dark)
        #expect(Self.eventually(5) { saver.statistics.failures >= 2 })
        saver.commit(.light)
        unlink(blocker)
        let path = blocker + "/preferences.json"
        #expect(Self.eventually(5) { PreferencesStore(path: path).load().appearance == .light })
        usleep(400_000)  // well past several retry periods
        #expect(PreferencesStore(path: path).load().appearance == .light)
        #expect(saver.close(timeout: 5) == nil)
        #expect(PreferencesStore(path: path).load().appearance == .light)
    }

    @Test func onlyTheNewestThreeBadFilesAreKept() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let path = dir.file("preferences.json")
        let store = PreferencesStore(path: path)
        var clock = 1_700_000_000
        store.now = { clock }
        var last: PreferencesLoadResult?
        for i in 0..<12 {
            writeBytes(Array("garbage \(i)".utf8), to: path)
            if i == 6 { clock += 1 }  // a new second part-way
            last = store.load()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let stamp = FileIO.utcTimestamp(clock)
        // Six in the second second (base, -2 … -6): a new name is never one already removed.
        #expect(names == ["preferences.json.bad-\(stamp)-4", "preferences.json.bad-\(stamp)-5", "preferences.json.bad-\(stamp)-6"],
                "\(names)")
        // The newest holds the last garbage.
        #expect(readBytes(dir.file("preferences.json.bad-\(stamp)-6")) == Array("garbage 11".utf8))
        #expect(store.removedBadFiles == 9)
        #expect(last?.diagnostic?.contains("only the newest 3 bad files are kept; 9 older ones removed since the kiosk started") == true,
                "\(last?.diagnostic ?? "nil")")
    }

    @Test func otherFilesInTheFolderAreNotRemoved() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let path = dir.file("preferences.json")
        writeBytes(Array("keep".utf8), to: dir.file("preferences.json.bad-by-hand"))
        writeBytes(Array("keep".utf8), to: dir.file("notes.txt"))
        let store = PreferencesStore(path: path)
        for i in 0..<6 {
            writeBytes(Array("garbage \(i)".utf8), to: path)
            _ = store.load()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.contains("preferences.json.bad-by-hand") && names.contains("notes.txt"))
        #expect(names.filter { $0.hasPrefix("preferences.json.bad-2") }.count == 3, "\(names)")
    }
}
