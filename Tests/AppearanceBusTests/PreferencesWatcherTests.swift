import Foundation
import Glibc
import Testing
import Appearance
@testable import AppearanceBus
import Threads

@Suite(.serialized) struct PreferencesWatcherTests {
    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
    func replace(_ path: String, _ text: String) {
        let tmp = path + ".tmp-\(UInt32.random(in: 0...UInt32.max))"
        FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8))
        rename(tmp, path)
    }

    /// The kiosk's way: a new file, announced with its identity, renamed over `path`.
    func ownReplace(_ runner: AppearanceRunner, _ path: String, _ text: String) {
        let tmp = path + ".own-\(UInt32.random(in: 0...UInt32.max))"
        FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8))
        var st = stat()
        precondition(stat(tmp, &st) == 0)
        runner.expectOwnWrite(OwnWrite(bytes: Array(text.utf8), device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
        rename(tmp, path)
    }

    func isFileChange(_ e: AppearanceEvent) -> Bool { if case .preferencesFileChanged = e { return true }; return false }

    /// A runner watching `folder/preferences.json` (no other sources), its first event seen.
    func watching(_ folder: String, _ rec: Recorder) -> AppearanceRunner {
        let r = AppearanceRunner(options: AppearanceRunnerOptions(config: AppearanceConfig(systemSources: []),
                                                                  preferencesPath: folder + "/preferences.json"),
                                 onEvent: rec.callback)
        r.start()
        _ = rec.waitAppearance { _ in true }
        usleep(50_000)
        return r
    }

    func makeFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "appearance-prefs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Issue #32, item 3: only the echo of the most recent own save is ignored; a tool that
    /// restores the kiosk's earlier bytes (a new file, or the very file renamed back) is followed.
    @Test func restoringTheKiosksOwnEarlierBytesIsFollowed() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/preferences.json"
        replace(path, #"{"appearance": "light"}"#)
        let rec = Recorder()
        let r = watching(folder, rec)
        defer { r.stop() }
        let own = #"{"appearance": "dark"}"#
        ownReplace(r, path, own)
        usleep(200_000)
        #expect(rec.fileChanges.isEmpty, "the own save was echoed")
        // Keep the kiosk's very file aside, as a tool's backup.
        #expect(link(path, folder + "/backup.json") == 0)
        var mark = rec.count
        replace(path, #"{"appearance": "light"}"#)
        #expect(rec.wait(from: mark, isFileChange) != nil, "the tool's light was not followed")
        // Restored as a copy (a new file with the same bytes).
        mark = rec.count
        replace(path, own)
        #expect(rec.wait(from: mark, isFileChange) != nil, "the kiosk's earlier bytes, restored, were not followed")
        mark = rec.count
        replace(path, #"{"appearance": "light"}"#)
        #expect(rec.wait(from: mark, isFileChange) != nil)
        // Restored by renaming the kiosk's own file back.
        mark = rec.count
        #expect(rename(folder + "/backup.json", path) == 0)
        #expect(rec.wait(from: mark, isFileChange) != nil, "the kiosk's own earlier file, renamed back, was not followed")
    }

    /// Items 1 and 6: a FIFO, a link to a FIFO, a link to /dev/zero or a huge file renamed over
    /// the file is reported (the host keeps it aside) without blocking or reading it, and the
    /// watcher goes on following rewrites; stop() returns at once.
    @Test func specialEntriesAreNeverOpenedOrReadWhole() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/preferences.json"
        replace(path, #"{"appearance": "light"}"#)
        let rec = Recorder()
        let r = watching(folder, rec)
        let outsideFifo = folder + ".fifo"
        #expect(mkfifo(outsideFifo, 0o600) == 0)
        defer { unlink(outsideFifo) }
        let plants: [(String, () -> Void)] = [
            ("FIFO", { _ = mkfifo(folder + "/x", 0o600) }),
            ("link to a FIFO", { _ = symlink(outsideFifo, folder + "/x") }),
            ("link to /dev/zero", { _ = symlink("/dev/zero", folder + "/x") }),
            ("1 GiB sparse file", { let fd = open(folder + "/x", O_WRONLY | O_CREAT, 0o600); _ = ftruncate(fd, 1 << 30); close(fd) }),
        ]
        for (i, (name, plant)) in plants.enumerated() {
            var mark = rec.count
            plant()
            #expect(rename(folder + "/x", path) == 0, "\(name)")
            #expect(rec.wait(from: mark, timeout: 5, isFileChange) != nil, "\(name) was not reported")
            mark = rec.count
            replace(path, #"{"appearance": "dark", "n": \#(i)}"#)
            #expect(rec.wait(from: mark, timeout: 5, isFileChange) != nil, "a rewrite after \(name) was not followed")
        }
        let t0 = Date()
        r.stop()
        #expect(Date().timeIntervalSince(t0) < 2)
        #expect(PreferencesWatcher.sizeLimit == 64 * 1024)
    }

    /// Item 5: the folder removed and made again, or renamed away and replaced: watched again,
    /// said once each time, and a file written there is followed.
    @Test func replacedFolderIsWatchedAgain() throws {
        let parent = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = parent + "/state"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/preferences.json"
        replace(path, #"{"appearance": "light"}"#)
        let rec = Recorder()
        let r = watching(folder, rec)
        defer { r.stop() }
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var mark = rec.count
        replace(path, #"{"appearance": "dark"}"#)
        #expect(rec.wait(from: mark, timeout: 5, isFileChange) != nil, "a file in the remade folder was not followed")
        #expect(rec.logs.contains { $0.contains("the folder \(folder)") && $0.contains("watching") }, "\(rec.logs)")

        #expect(rename(folder, parent + "/state.old") == 0)
        usleep(100_000)
        #expect(rec.logs.contains { $0.contains("the folder \(folder) was removed") }, "\(rec.logs)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        mark = rec.count
        replace(path, #"{"appearance": "light", "again": true}"#)
        #expect(rec.wait(from: mark, timeout: 5, isFileChange) != nil, "a file in the replacing folder was not followed")
        // The old folder is no longer watched.
        mark = rec.count
        replace(parent + "/state.old/preferences.json", #"{"appearance": "dark", "old": true}"#)
        usleep(300_000)
        #expect(rec.count == mark, "the renamed-away folder is still followed")
        // A link in the folder's place is not followed.
        try FileManager.default.removeItem(atPath: folder)
        #expect(symlink(parent + "/state.old", folder) == 0)
        usleep(200_000)
        #expect(rec.logs.contains { $0.contains("replaced by a symbolic link") }, "\(rec.logs)")
        mark = rec.count
        replace(parent + "/state.old/preferences.json", #"{"appearance": "light", "old": 2}"#)
        usleep(300_000)
        #expect(!rec.all[mark...].contains { isFileChange($0.event) }, "followed through a link put in the folder's place")
    }

    @Test func atomicReplacementIsSeenAndOwnWritesAreNot() throws {
        let folder = NSTemporaryDirectory() + "appearance-prefs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/preferences.json"
        replace(path, #"{"isDarkMode": false}"#)
        let rec = Recorder()
        let r = AppearanceRunner(options: AppearanceRunnerOptions(config: AppearanceConfig(systemSources: []), preferencesPath: path),
                                 onEvent: rec.callback)
        r.start()
        defer { r.stop() }
        #expect(rec.waitAppearance { _ in true } != nil)
        usleep(50_000)

        // Our own save: announced, then written atomically. Then another program's replacement.
        let own = #"{"isDarkMode": true}"#
        ownReplace(r, path, own)
        // A file in the same folder with another name is not ours to report.
        replace(folder + "/other.json", "{}")
        let mark = rec.count
        replace(path, #"{"isDarkMode": false, "by": "fleet"}"#)
        guard let hit = rec.wait(from: mark, { if case .preferencesFileChanged = $0 { return true }; return false }) else {
            Issue.record("the external replacement was not reported"); return
        }
        #expect(hit.0 == .preferencesFileChanged(path: path))
        usleep(200_000)
        #expect(rec.fileChanges.count == 1) // the own write and other.json were not reported

        // Rewriting identical bytes is not a change; an in-place write with new bytes is.
        replace(path, #"{"isDarkMode": false, "by": "fleet"}"#)
        usleep(200_000)
        #expect(rec.fileChanges.count == 1)
        FileManager.default.createFile(atPath: path, contents: Data(#"{"isDarkMode": true, "by": "editor"}"#.utf8))
        #expect(rec.wait(from: mark + 1, { if case .preferencesFileChanged = $0 { return true }; return false }) != nil)
        usleep(100_000)
        #expect(rec.fileChanges.count == 2)

        var latencies: [Double] = []
        for i in 0..<20 {
            let m = rec.count
            let t0 = MonotonicClock.seconds()
            replace(path, #"{"isDarkMode": \#(i % 2 == 0), "n": \#(i)}"#)
            guard let (_, at) = rec.wait(from: m, { if case .preferencesFileChanged = $0 { return true }; return false }) else {
                Issue.record("replacement \(i) not seen"); return
            }
            latencies.append(at - t0)
        }
        print(String(format: "preferences rename → callback: median %.2f ms, max %.2f ms over %d", median(latencies) * 1000,
                     (latencies.max() ?? .nan) * 1000, latencies.count))
    }

    @Test func missingFolderIsOneLogLine() {
        let rec = Recorder()
        let r = AppearanceRunner(options: AppearanceRunnerOptions(config: AppearanceConfig(systemSources: []),
                                                                  preferencesPath: "/nonexistent/appearance/prefs.json"),
                                 onEvent: rec.callback)
        r.start()
        #expect(rec.waitAppearance { _ in true } != nil)
        r.stop()
        #expect(rec.logs.filter { $0.contains("cannot watch /nonexistent/appearance") }.count == 1)
    }

    /// Issue 39, item 3: the folder's mode changing or an entry removed wakes a save waiting
    /// for its retry (`onFolderActivity`); the store's own temporary files do not; a file
    /// removed is not taken for another program's rewrite.
    @Test func folderActivityIsReportedButNotTheStoresOwnTemporaries() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/preferences.json"
        replace(path, #"{"appearance": "light"}"#)
        FileManager.default.createFile(atPath: folder + "/filler", contents: Data("x".utf8))
        let rec = Recorder()
        let r = watching(folder, rec)
        defer { r.stop() }
        final class Count: @unchecked Sendable {
            let lock = NSLock(); var n = 0
            func add() { lock.lock(); n += 1; lock.unlock() }
            var value: Int { lock.lock(); defer { lock.unlock() }; return n }
        }
        let activity = Count()
        r.onFolderActivity { activity.add() }
        func settles(_ wanted: (Int) -> Bool) -> Bool {
            for _ in 0..<200 { if wanted(activity.value) { return true }; usleep(10_000) }
            return wanted(activity.value)
        }
        // The store's own temporary file, made and removed: nothing.
        let tmp = folder + "/.preferences.json.tmp-0123456789abcdef"
        // (plain open/write: Foundation's createFile writes a temporary file of its own first)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        _ = write(fd, "{}", 2)
        close(fd)
        unlink(tmp)
        usleep(300_000)
        #expect(activity.value == 0)
        // chmod of the folder (IN_ATTRIB).
        #expect(chmod(folder, 0o700) == 0)
        #expect(settles { $0 >= 1 }, "chmod of the folder was not reported")
        // Space freed: a file removed in the folder.
        let before = activity.value
        #expect(unlink(folder + "/filler") == 0)
        #expect(settles { $0 > before }, "a removed entry was not reported")
        // Neither is a change of the file.
        usleep(200_000)
        #expect(rec.fileChanges.isEmpty)
    }

    /// The folder does not exist (its parent could not be written): the parent's mode
    /// changing is reported, so the save that would create the folder is tried again.
    @Test func theParentsModeIsReportedWhileTheFolderIsMissing() throws {
        let parent = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let rec = Recorder()
        let r = watching(parent + "/state", rec)
        defer { r.stop() }
        final class Flag: @unchecked Sendable { let lock = NSLock(); var n = 0 }
        let flag = Flag()
        r.onFolderActivity { flag.lock.lock(); flag.n += 1; flag.lock.unlock() }
        #expect(chmod(parent, 0o700) == 0)
        var seen = 0
        for _ in 0..<200 { flag.lock.lock(); seen = flag.n; flag.lock.unlock(); if seen > 0 { break }; usleep(10_000) }
        #expect(seen > 0, "chmod of the parent was not reported")
    }
}
