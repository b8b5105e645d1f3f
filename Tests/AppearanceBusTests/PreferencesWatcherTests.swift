import Foundation
import Glibc
import Testing
import Appearance
@testable import AppearanceBus

@Suite(.serialized) struct PreferencesWatcherTests {
    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`.
    func replace(_ path: String, _ text: String) {
        let tmp = path + ".tmp-\(UInt32.random(in: 0...UInt32.max))"
        FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8))
        rename(tmp, path)
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
        r.expectOwnWrite(Array(own.utf8))
        replace(path, own)
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
            let t0 = AppearanceRunner.monotonicSeconds()
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
}
