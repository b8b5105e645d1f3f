import Log
import Appearance
import KioskEngine
import KioskSupport
#if canImport(Glibc)
import Glibc
#endif

/// `bench --scenario save`: the tap scenario with each commit handed to the kiosk's own
/// `PreferencesSaver` (background writer, latest wins) over a preferences file in a temporary
/// folder, so the frame times show whether saving reaches the frame path. Set
/// `DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS` (e.g. 200) to stand in for a slow SD card.
enum BenchSaveScenario {
    static func run(_ runner: BenchRunner, output: (String) -> Void) throws(KioskError) -> BenchRunner.ScenarioResult {
        var template = Array("/tmp/darkmode-bench-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .runtime("bench: cannot create a temporary folder in /tmp: \(FileIO.errorText(errno))")
        }
        let folder = String(cString: made)
        let path = folder + "/preferences.json"
        defer {
            unlink(path)
            rmdir(folder)
        }
        let store = PreferencesStore(path: path)
        _ = store.load()
        // The same parse as `run`'s (`HostEnvironment`).
        let delay = HostEnvironment.parse(processEnvironmentForBench()).fsyncDelaySeconds
        let saver = PreferencesSaver(store: store, fsyncDelay: delay, log: { Log.warning("bench: \($0)") })
        var commits = 0
        var last: AppearancePreference?
        let result = runner.run(.save) { output in
            commits += 1
            if case .preferenceChanged(let p) = output { last = p }
            saver.commit(output)
        }
        if let problem = saver.close(timeout: 10) { throw .runtime("bench: \(problem)") }
        let stats = saver.statistics
        let saved = PreferencesStore(path: path).load().appearance
        output("save scenario: \(commits) commits, \(stats.saves) saves (coalesced), injected fsync delay "
               + "\(fixed(delay * 1000, 0)) ms; file ends at \(saved)"
               + (last.map { $0 == saved ? " (the last commit)" : " (NOT the last commit \($0))" } ?? ""))
        if let last, last != saved { throw .runtime("bench: the preferences file does not hold the last commit") }
        return result
    }

    private static func processEnvironmentForBench() -> [String: String] {
        var env: [String: String] = [:]
        if let v = getenv("DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS") { env["DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS"] = String(cString: v) }
        return env
    }
}
