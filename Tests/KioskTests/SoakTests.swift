import Foundation
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// Long-run soak: random interaction through the real engine and renderer on a 1280x800 page
/// at 60 frames per simulated second (`SoakRunner`), checking that resident memory stays flat
/// after the warm-up (growth under 1 MB) and that frames do not drift: after the run, the aged
/// app and a fresh app in the same state render the same frames in alternating blocks
/// (`AgedAgainstFresh`), the aged app's median frame CPU time within 1.5× of the fresh app's —
/// a ratio of the same frames timed side by side, since machines are noisy — and both draw the
/// same rectangles and pixels.
///
/// The soak runs in a child process (this test executable, filtered to `SoakChild`), so the
/// memory measured is the soak's own and not that of tests running in parallel.
///
/// CI scale: `SOAK_MINUTES` simulated minutes (default 10). The long run, e.g. four simulated hours:
/// `SOAK_MINUTES=240 swift test -c release -Xswiftc -enable-testing --filter SoakTests`.
@Suite struct SoakTests {
    static let defaultMinutes = 10.0

    @Test func memoryStaysFlatAndFrameTimesDoNotDrift() throws {
        let minutes = ProcessInfo.processInfo.environment["SOAK_MINUTES"].flatMap(Double.init) ?? Self.defaultMinutes
        let dir = TempFolder()
        let reportPath = dir.file("soak.json")
        let child = try ChildProcess(KioskExecutable.testExecutable,
                                     ["--testing-library", "swift-testing", "--filter", "SoakChild"],
                                     folder: dir.path, tag: "soak",
                                     environment: ["KIOSK_SOAK_REPORT": reportPath, "SOAK_MINUTES": String(minutes)])
        let outcome = child.wait(timeout: max(600, minutes * 60 * 4))
        #expect(outcome.status == 0, "soak child failed: \(outcome.stdout.suffix(2000)) \(outcome.stderr.suffix(2000))")
        let text = try #require(readText(reportPath), "the soak child wrote no report: \(outcome.stdout.suffix(2000))")
        let report = try #require(StrictJSONParser.parse(Array(text.utf8)).objectValue)
        func number(_ key: String) -> Double { report[key].flatMap { if case .number(let n) = $0 { n.value } else { nil } } ?? .nan }
        print("soak report: \(text)")

        #expect(number("frames") >= minutes * 3600 * 0.99)
        #expect(number("rss_after_warm_up_kb") > 0)
        #expect(number("rss_growth_kb") < 1024, "resident memory grew by \(number("rss_growth_kb")) KB after warm-up")
        let ratio = number("cpu_drift_ratio")
        #expect(ratio > 1 / 1.5 && ratio < 1.5, "median frame CPU time of the aged app over a fresh one's on the same frames: \(ratio)")
        #expect(report["drift_setup_problem"] == .null, "the drift was not measured: \(String(describing: report["drift_setup_problem"]))")
        #expect(number("drift_blocks") >= 40)
        #expect(number("drift_frames_compared") >= 40 * 60)
        for key in ["multiple_commits_per_event", "non_alternating_commits", "bad_visual_states", "dirty_outside_page",
                    "drift_dirty_mismatches", "drift_differing_pixels"] {
            #expect(number(key) == 0, "\(key) = \(number(key))")
        }
        #expect(number("commits") == number("engine_commits"))
        #expect(number("commits") > minutes * 10, "too little interaction: \(number("commits")) commits")
        #expect(number("max_position_overshoot") < 0.25)
    }
}

/// The in-place median the soak takes of each window equals `median`.
@Suite struct SoakMedianTests {
    @Test func medianInPlaceEqualsMedian() {
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        for n in 1...60 {
            for _ in 0..<20 {
                // Few distinct values as well as many: ties must not move the middle.
                let spread = [2, 5, 1000][next(3)]
                var v = (0..<n).map { _ in Double(next(spread)) / 7 }
                let expected = median(v)!
                #expect(SoakRunner.medianInPlace(&v) == expected, "n \(n)")
            }
        }
        var sorted = (0..<11).map(Double.init), reversed = (0..<12).map { Double(12 - $0) }
        #expect(SoakRunner.medianInPlace(&sorted) == 5 && SoakRunner.medianInPlace(&reversed) == 6.5)
    }
}

/// The soak itself; runs only inside the child process started by `SoakTests`.
@Suite struct SoakChild {
    static let reportPath = ProcessInfo.processInfo.environment["KIOSK_SOAK_REPORT"]

    @Test(.enabled(if: reportPath != nil, "runs only as the soak child process"))
    func soak() throws {
        let minutes = ProcessInfo.processInfo.environment["SOAK_MINUTES"].flatMap(Double.init) ?? SoakTests.defaultMinutes
        let report = SoakRunner(simulatedSeconds: minutes * 60, seed: 0x50A4).run()
        print(report.summary)
        let path = try #require(Self.reportPath)
        try AtomicFileWriter().write(Array((report.jsonLine + "\n").utf8), to: path)
    }
}
