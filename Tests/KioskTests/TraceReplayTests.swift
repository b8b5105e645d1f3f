import Foundation
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// The example traces in `Traces/`, each replayed through the real app (rendering every frame),
/// with the outcome each one demonstrates.
@Suite struct TraceReplayTests {
    struct Expectation: Sendable, CustomStringConvertible {
        let file: String
        let commits: [Bool]
        var reduceMotion = false
        var description: String { file }
    }

    static let cases: [Expectation] = [
        Expectation(file: "tap", commits: [true]),
        Expectation(file: "double-tap", commits: [true, false]),
        Expectation(file: "slow-drag-past-half", commits: [true]),
        Expectation(file: "slow-drag-short", commits: []),
        Expectation(file: "flick-quarter", commits: [true]),
        Expectation(file: "vertical-then-tap", commits: [true]),
        Expectation(file: "grab-mid-spring", commits: [true, false]),
        Expectation(file: "multi-touch", commits: [true]),
        Expectation(file: "cancel", commits: []),
        Expectation(file: "keyboard", commits: [true, false]),
        Expectation(file: "release-outside", commits: []),
        Expectation(file: "mouse-tap", commits: [true]),
        Expectation(file: "up-without-down", commits: [true]),
        // Gentle releases: the quarter-second flick projection springs them back (issue 11).
        Expectation(file: "gentle-release-030", commits: []),
        Expectation(file: "gentle-release-038", commits: []),
        Expectation(file: "flick-after-claim", commits: []),
        // Reduce Motion: the same gestures decide the same way.
        Expectation(file: "tap", commits: [true], reduceMotion: true),
        Expectation(file: "slow-drag-past-half", commits: [true], reduceMotion: true),
        Expectation(file: "flick-quarter", commits: [true], reduceMotion: true),
        Expectation(file: "slow-drag-short", commits: [], reduceMotion: true),
    ]

    static func events(_ name: String) throws -> [TraceEvent] {
        let path = try #require(Bundle.module.path(forResource: name, ofType: "jsonl", inDirectory: "Traces"))
        return try TraceReader.read(path: path)
    }

    @Test(arguments: cases)
    func traceHasItsOutcome(_ e: Expectation) throws {
        var lines: [String] = []
        var minProgress = 1.0, maxProgress = 0.0
        let result = ReplayRunner(size: PixelSize(width: 800, height: 480), scale: 1, reduceMotion: e.reduceMotion)
            .run(try Self.events(e.file), initialDark: false, emit: { lines.append($0) }, observe: { app, t in
                let p = app.visualState(at: t).appearance
                minProgress = min(minProgress, p); maxProgress = max(maxProgress, p)
            })
        #expect(result.commits.map(\.value) == e.commits)
        let final = e.commits.last ?? false
        #expect(result.isDarkMode == final)
        #expect(result.progress == (final ? 1 : 0), "settled at the committed end")
        #expect(minProgress >= 0 && maxProgress <= 1)
        // Output shape: layout line, one line per commit, final line.
        #expect(lines.count == e.commits.count + 2)
        #expect(lines.first?.hasPrefix("{\"layout\":{\"toggle\":") == true)
        #expect(lines.last?.hasPrefix("{\"final\":{\"isDarkMode\":\(final)") == true)
    }

    @Test func slowDragShortOfHalfReallyMovedTheThumb() throws {
        // The "no commit" outcome must come from springing back, not from ignoring the finger:
        // the finger moves 30 % of the travel, of which the first 10 pt claim the drag.
        var peak = 0.0
        _ = ReplayRunner(size: PixelSize(width: 800, height: 480)).run(try Self.events("slow-drag-short"), initialDark: false,
                                                                     observe: { app, t in peak = max(peak, app.visualState(at: t).position) })
        let claim = 10 / (75 * 260 * 1.2 / 173)
        #expect(abs(peak - (0.3 - claim)) < 0.01, "peak \(peak)")
    }

    /// The gentle releases spring back from where the finger let go, not from never having
    /// moved: the thumb reached the release progress each trace is named for.
    @Test(arguments: [("gentle-release-030", 0.30), ("gentle-release-038", 0.38), ("flick-after-claim", 0.025)])
    func gentleReleasesMovedTheThumb(file: String, released: Double) throws {
        var peak = 0.0
        _ = ReplayRunner(size: PixelSize(width: 800, height: 480)).run(try Self.events(file), initialDark: false,
                                                                     observe: { app, t in peak = max(peak, app.visualState(at: t).position) })
        #expect(abs(peak - released) < 0.01, "peak \(peak)")
    }

    @Test func windowCoordinatesAreScaled() {
        // At scale 2 the toggle (260 pt) is 520 px wide; the 800 × 500 pt page puts the two
        // toggle groups side by side, the Original on the left.
        let runner = ReplayRunner(size: PixelSize(width: 1600, height: 1000), scale: 2)
        let f = PageLayout(pixelWidth: 1600, pixelHeight: 1000, scale: 2, toggleWidth: 260).togglePixelFrame
        #expect(f.width == 520 && f.height == 320 && f.maxX < 800)
        let center = (x: f.midX, y: f.midY)
        let events: [TraceEvent] = [
            .pointer(id: 0, phase: .down, x: center.x, y: center.y, device: .touch, space: .window, t: 0),
            .pointer(id: 0, phase: .up, x: center.x, y: center.y, device: .touch, space: .window, t: 0.05),
            // Just outside the toggle's left edge: ignored.
            .pointer(id: 0, phase: .down, x: f.minX - 10, y: center.y, device: .touch, space: .window, t: 1),
            .pointer(id: 0, phase: .up, x: f.minX - 10, y: center.y, device: .touch, space: .window, t: 1.05),
        ]
        var layout = ""
        let r = runner.run(events, initialDark: false, emit: { if layout.isEmpty { layout = $0 } })
        #expect(r.commits.map(\.value) == [true])
        #expect(layout.hasPrefix(#"{"layout":{"toggle":{"x":\#(Int(f.minX)),"y":\#(Int(f.minY)),"w":520,"h":320},"scale":2,"size":[1600,1000],"vivid":{"#))
        #expect(layout.contains(#","w":520,"h":320},"button":{"x":"#))
    }
}
