import DarkModeToggle
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// Seeded random input through the real replay path (`ReplayRunner`: engine, motion, page and —
/// in the shorter run — rendering), checking invariants at every frame and every commit.
@Suite struct RandomTraceTests {
    /// What a replay of random input must satisfy; records issues, returns the final mode.
    @discardableResult
    static func checkInvariants(events: [TraceEvent], initialDark: Bool, size: PixelSize, render: Bool,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> ReplayRunner.Result {
        let dir = TempFolder()
        let store = PreferencesStore(path: dir.file("preferences.json"))
        if initialDark { _ = store.save(isDarkMode: true) }
        let loaded = store.load()
        #expect(loaded.isDarkMode == initialDark, sourceLocation: sourceLocation)

        var badFrames = 0, frames = 0, lastFrameTime = -Double.infinity, nonMonotonicFrames = 0
        var saveFailures: [String] = []
        var lines: [String] = []
        let runner = ReplayRunner(size: size, scale: 1, renderFrames: render)
        let result = runner.run(events, initialDark: initialDark, onCommit: { dark in
            if let d = store.save(isDarkMode: dark) { saveFailures.append(d) }
        }, emit: { lines.append($0) }, observe: { app, t in
            let s = app.visualState(at: t)
            if !(0...1).contains(s.appearance) || !s.position.isFinite || abs(s.position - 0.5) > 0.75 { badFrames += 1 }
            if t < lastFrameTime { nonMonotonicFrames += 1 }
            lastFrameTime = t
            frames += 1
        })
        #expect(badFrames == 0, "\(badFrames) of \(frames) frames had appearance outside 0…1 or a runaway position", sourceLocation: sourceLocation)
        #expect(nonMonotonicFrames == 0, sourceLocation: sourceLocation)
        #expect(frames == result.frames, sourceLocation: sourceLocation)
        #expect(saveFailures.isEmpty, "\(saveFailures)", sourceLocation: sourceLocation)

        // Attribute each commit to the one event at its time (times strictly increase).
        var eventAt: [Double: Int] = [:]
        for (i, e) in events.enumerated() { eventAt[e.time] = i }
        var commitsAtEvent: [Int: Int] = [:]
        // Each commit changes the stored preference (light, dark or, from the button, system);
        // the effective mode may stay (the button while the system says light).
        let storedPreferences = lines.compactMap { line -> String? in
            guard line.hasPrefix(#"{"t":"#), let r = line.range(of: #""appearance":""#) else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        #expect(storedPreferences.count == result.commits.count, sourceLocation: sourceLocation)
        var previous = initialDark ? "dark" : "light"
        for p in storedPreferences {
            #expect(p != previous, "a commit repeats the stored preference \(p)", sourceLocation: sourceLocation)
            previous = p
        }
        for c in result.commits {
            guard let i = eventAt[c.t] else { Issue.record("commit at \(c.t) matches no event", sourceLocation: sourceLocation); continue }
            commitsAtEvent[i, default: 0] += 1
        }

        // Pointer sequences: down … up/cancel per id (a second down from a live id starts a new one).
        var liveSequence: [Int: Int] = [:]
        var commitsPerSequence: [Int: Int] = [:]
        var nextSequence = 0
        var activatingKeys = 0, keyCommits = 0
        for (i, e) in events.enumerated() {
            let n = commitsAtEvent[i] ?? 0
            #expect(n <= 1, "event \(i) committed \(n) times", sourceLocation: sourceLocation)
            switch e {
            case .key(let name, _):
                if KeyBindings.action(forKeyName: name) == .activate {
                    activatingKeys += 1
                    keyCommits += n
                } else {
                    #expect(n == 0, "non-activating key \(name) committed", sourceLocation: sourceLocation)
                }
            case .system:
                #expect(n == 0, "a system appearance change committed (event \(i))", sourceLocation: sourceLocation)
            case .pointer(let id, let phase, _, _, _, _, _):
                switch phase {
                case .down:
                    #expect(n == 0, "a down committed (event \(i))", sourceLocation: sourceLocation)
                    liveSequence[id] = nextSequence
                    nextSequence += 1
                case .move, .cancel:
                    #expect(n == 0, "a \(phase.rawValue) committed (event \(i))", sourceLocation: sourceLocation)
                    if phase == .cancel { liveSequence[id] = nil }
                case .up:
                    if let s = liveSequence[id] {
                        commitsPerSequence[s, default: 0] += n
                    } else {
                        #expect(n == 0, "an up without a down committed (event \(i), id \(id))", sourceLocation: sourceLocation)
                    }
                    liveSequence[id] = nil
                }
            }
        }
        let worst = commitsPerSequence.values.max() ?? 0
        #expect(worst <= 1, "a pointer sequence committed \(worst) times", sourceLocation: sourceLocation)
        #expect(keyCommits == activatingKeys, "Space/Return must commit every time", sourceLocation: sourceLocation)

        // Final state: the last commit (or the initial mode), in the output and in the file.
        let expected = result.commits.last?.value ?? initialDark
        #expect(result.isDarkMode == expected, sourceLocation: sourceLocation)
        #expect(lines.last?.contains(#""final":{"isDarkMode":\#(expected),"#) == true,
                "\(lines.last ?? "")", sourceLocation: sourceLocation)
        #expect(lines.count == result.commits.count + 2, sourceLocation: sourceLocation)
        let reread = PreferencesStore(path: dir.file("preferences.json")).load()
        #expect(reread.diagnostic == nil, sourceLocation: sourceLocation)
        #expect(reread.isDarkMode == expected, sourceLocation: sourceLocation)
        if liveSequence.isEmpty {
            #expect(result.progress == (expected ? 1 : 0), "settled progress \(result.progress)", sourceLocation: sourceLocation)
        } else {
            // The trace ends with a finger still down: the toggle follows it, so the resting
            // value is only due once it lifts. Cancel every live pointer and the toggle must
            // settle on the committed mode without another commit.
            let end = (events.last?.time ?? 0) + 0.1
            let lifted = events + liveSequence.keys.sorted().enumerated().map { i, id in
                TraceEvent.pointer(id: id, phase: .cancel, x: 0, y: 0, device: .touch, space: .window, t: end + Double(i) * 0.01)
            }
            let closed = ReplayRunner(size: size, scale: 1, renderFrames: false).run(lifted, initialDark: initialDark)
            #expect(closed.commits.count == result.commits.count, sourceLocation: sourceLocation)
            #expect(closed.progress == (expected ? 1 : 0), "progress \(closed.progress) after the last finger lifts",
                    sourceLocation: sourceLocation)
        }
        return result
    }

    static func trace(count: Int, seed: UInt64, size: PixelSize, maxIdle: Double) -> [TraceEvent] {
        let layout = PageLayout(pixelWidth: size.width, pixelHeight: size.height, scale: 1, toggleWidth: 260)
        return RandomInteraction.trace(count: count, seed: seed, toggle: layout.togglePixelFrame,
                                       pageWidth: Double(size.width), pageHeight: Double(size.height), maxIdle: maxIdle)
    }

    @Test(arguments: [(UInt64(0xA11CE), false), (UInt64(0xB0B), true)])
    func hundredThousandEventsKeepTheInvariants(_ seed: UInt64, _ startDark: Bool) throws {
        let size = PixelSize(width: 1280, height: 800)
        let events = Self.trace(count: 100_000, seed: seed, size: size, maxIdle: 3)
        #expect(events.count == 100_000)
        let result = try Self.checkInvariants(events: events, initialDark: startDark, size: size, render: false)
        // The stream really exercised the engine.
        #expect(result.commits.count > 5_000, "\(result.commits.count) commits")
    }

    /// The same kind of input with every frame rendered: the same invariants, and rendering
    /// never changes what the engine commits.
    @Test func renderedRunMatchesTheEngineOnlyRun() throws {
        let size = PixelSize(width: 400, height: 300)
        let events = Self.trace(count: 1_000, seed: 0xF00D, size: size, maxIdle: 0.5)
        let rendered = try Self.checkInvariants(events: events, initialDark: false, size: size, render: true)
        let engineOnly = ReplayRunner(size: size, scale: 1, renderFrames: false).run(events, initialDark: false)
        #expect(rendered == engineOnly)
        #expect(rendered.commits.count > 20)
    }

    /// The generator is deterministic and its traces survive the trace format exactly.
    @Test func randomTracesAreReproducibleAndReadBack() throws {
        let size = PixelSize(width: 1280, height: 800)
        let a = Self.trace(count: 5_000, seed: 7, size: size, maxIdle: 3)
        #expect(a == Self.trace(count: 5_000, seed: 7, size: size, maxIdle: 3))
        #expect(a != Self.trace(count: 5_000, seed: 8, size: size, maxIdle: 3))
        let text = a.map(\.jsonLine).joined(separator: "\n")
        #expect(try TraceReader.parse(text, file: "random.jsonl") == a)
        #expect(zip(a, a.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    /// Input that can never commit leaves the initial mode and never creates the file.
    @Test func strayInputNeverCommitsOrWrites() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        let store = PreferencesStore(path: path)
        _ = store.load()
        var events: [TraceEvent] = []
        for i in 0..<2_000 {
            let t = Double(i) * 0.01
            let phase: PointerPhase = [.up, .move, .cancel][i % 3]
            events.append(.pointer(id: 5 + i % 3, phase: phase, x: 130, y: 80, device: .touch, space: .toggle, t: t))
        }
        let result = ReplayRunner(size: PixelSize(width: 400, height: 300), renderFrames: false)
            .run(events, initialDark: true, onCommit: { _ = store.save(isDarkMode: $0) })
        #expect(result.commits.isEmpty)
        #expect(result.isDarkMode == true)
        #expect(FileIO.lstatInfo(path) == nil)
    }
}
