#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskTools
@testable import KioskSupport
import KioskEngine

/// Commits go to a background writer: `commit` never waits for the disk, the latest value wins,
/// and `close` flushes (bounded). The slow disk is the injected fsync delay.
@Suite struct PreferencesSaverTests {
    @Test func commitsReturnBeforeASlowSaveAndTheLastOneWins() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let path = dir.file("preferences.json")
        let store = PreferencesStore(path: path)
        _ = store.load()
        let saver = PreferencesSaver(store: store, fsyncDelay: 0.2, log: { _ in })
        for p in [AppearancePreference.dark, .light, .system, .light, .dark] { saver.commit(p) }
        // Not a timing assertion: the first save sleeps 2 x 200 ms before it writes anything,
        // so when the five commits have returned, none can have been saved by them.
        #expect(saver.statistics.submitted == 5)
        #expect(saver.statistics.saves == 0)
        #expect(readBytes(path) == nil)
        #expect(saver.close(timeout: 10) == nil)
        #expect(PreferencesStore(path: path).load().appearance == .dark)
        #expect(saver.statistics.saves >= 1 && saver.statistics.saves <= 2, "coalesced: at most the first and the last")
    }

    @Test func closeSaysWhenTheLastSaveDidNotFinish() {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let store = PreferencesStore(path: dir.file("preferences.json"))
        _ = store.load()
        let saver = PreferencesSaver(store: store, fsyncDelay: 1.0, log: { _ in })
        saver.commit(.dark)
        let message = saver.close(timeout: 0.05)
        #expect(message?.contains("did not finish within 0.1 s") == true, "\(message ?? "nil")")
    }

    @Test func aFailedSaveIsLoggedAndTheNextCommitRetries() throws {
        let dir = TempFolder()
        defer { dir.cleanup() }
        let blocker = dir.file("not-a-folder")
        // A regular file where the folder should be: the save fails whoever runs the test.
        let fd = open(blocker, O_WRONLY | O_CREAT, 0o600)
        try #require(fd >= 0)
        close(fd)
        let store = PreferencesStore(path: blocker + "/preferences.json")
        _ = store.load()
        final class Lines: @unchecked Sendable { var items: [String] = [] }
        let lines = Lines()
        let saver = PreferencesSaver(store: store, log: { lines.items.append($0) })
        saver.commit(.dark)
        _ = saver.close(timeout: 10)
        #expect(lines.items.count == 1)
        #expect(lines.items.first?.contains("could not save preferences") == true, "\(lines.items)")
    }
}
