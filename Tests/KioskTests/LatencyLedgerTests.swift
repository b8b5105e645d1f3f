import Testing
@testable import KioskSupport

/// The latency bookkeeping: each frame records, per kind, the oldest input it is the first to
/// show, with the stamps of the path; taps and drags apart.
@Suite struct LatencyLedgerTests {
    @Test func oldestInputOfEachKindPerFrame() {
        var l = LatencyLedger()
        l.input(.drag, at: 1.000, stamp: .kernel)
        l.input(.drag, at: 1.004, stamp: .kernel)
        l.input(.tap, at: 1.002, stamp: .kernel)
        l.frameBegan()
        let s = l.framePresented(at: 1.020, stamp: .flip)
        #expect(s.count == 2)
        let drag = s.first { $0.kind == .drag }!, tap = s.first { $0.kind == .tap }!
        #expect(abs(drag.seconds - 0.020) < 1e-9)
        #expect(abs(tap.seconds - 0.018) < 1e-9)
        #expect(drag.input == .kernel && drag.screen == .flip)
    }

    @Test func inputAfterFrameBeganWaitsForTheNextFrame() {
        var l = LatencyLedger()
        l.input(.drag, at: 1.000, stamp: .received)
        l.frameBegan()
        l.input(.drag, at: 1.005, stamp: .received)
        #expect(l.framePresented(at: 1.010, stamp: .presented).map(\.seconds).map { ($0 * 1000).rounded() } == [10])
        l.frameBegan()
        #expect(l.framePresented(at: 1.030, stamp: .presented).map(\.seconds).map { ($0 * 1000).rounded() } == [25])
        // A frame with no new input records nothing.
        l.frameBegan()
        #expect(l.framePresented(at: 1.050, stamp: .presented).isEmpty)
        #expect(l.samples.count == 2)
    }

    @Test func aFrameThatShowedNothingHandsItsInputsOn() {
        var l = LatencyLedger()
        l.input(.tap, at: 2.0, stamp: .kernel)
        l.frameBegan()
        l.frameDropped()
        l.input(.tap, at: 2.01, stamp: .kernel)
        l.frameBegan()
        let s = l.framePresented(at: 2.04, stamp: .submitted)
        #expect(s.count == 1)
        #expect(s[0].inputAt == 2.0 && s[0].screen == .submitted)
    }

    @Test func aCancelledGestureIsNotChargedToALaterFrame() {
        var l = LatencyLedger()
        l.input(.tap, at: 1.0, stamp: .kernel)      // a press that draws nothing
        l.frameBegan()
        l.frameDropped()
        l.withdraw(LatencyLedger.Kind.pointer)      // its device unplugged
        #expect(!l.hasPending)
        l.input(.drag, at: 7.0, stamp: .kernel)     // another gesture, seconds later
        let s = l.framePresented(at: 7.0, stamp: .flip)
        #expect(s.isEmpty)                          // no frame began since the drag
        l.frameBegan()
        let t = l.framePresented(at: 7.016, stamp: .flip)
        #expect(t.map(\.kind) == [.drag])
        #expect(abs(t[0].seconds - 0.016) < 1e-9)
        // A command waiting beside it is not a pointer's: kept.
        l.input(.command, at: 8.0, stamp: .received)
        l.withdraw(LatencyLedger.Kind.pointer)
        #expect(l.hasPending)
    }

    @Test func aLateCompositorTimeReplacesTheFramesPresentTime() {
        var l = LatencyLedger()
        l.input(.tap, at: 1.0, stamp: .received)
        l.input(.drag, at: 1.002, stamp: .received)
        l.frameBegan()
        l.framePresented(at: 1.004, stamp: .presented)
        let tapFrame = l.lastFrameSamples
        #expect(tapFrame.count == 2)
        l.frameBegan()                              // a frame with no input: nothing kept
        l.framePresented(at: 1.020, stamp: .presented)
        #expect(l.lastFrameSamples.isEmpty)
        l.input(.drag, at: 1.030, stamp: .received)
        l.frameBegan()
        l.framePresented(at: 1.037, stamp: .presented)
        // The compositor's feedback for the first frame, two frames later.
        l.restamp(tapFrame, shownAt: 1.031, stamp: .compositor)
        #expect(l.samples.map(\.screen) == [.compositor, .compositor, .presented])
        #expect(abs(l.samples[0].seconds - 0.031) < 1e-9 && abs(l.samples[1].seconds - 0.029) < 1e-9)
        #expect(abs(l.samples[2].seconds - 0.007) < 1e-9)
        #expect(l.summaries().map(\.path.label) == ["drag received→compositor", "drag received→presented", "tap received→compositor"])
        // A range past what is kept (samples over capacity are dropped) changes nothing.
        l.restamp(5..<9, shownAt: 9, stamp: .compositor)
        #expect(l.samples.count == 3 && l.samples[2].screen == .presented)
    }

    @Test func summariesPerKindAndPath() {
        var l = LatencyLedger()
        for i in 0..<100 {
            l.input(.tap, at: Double(i), stamp: .kernel)
            l.frameBegan()
            l.framePresented(at: Double(i) + Double(i + 1) / 1000, stamp: .flip)
        }
        l.input(.drag, at: 200, stamp: .received)
        l.frameBegan()
        l.framePresented(at: 200.005, stamp: .presented)
        let sums = l.summaries()
        #expect(sums.map(\.path.label) == ["drag received→presented", "tap kernel→flip"])
        let tap = sums[1].summary
        #expect(tap.count == 100)
        #expect(abs(tap.p50 - 51) < 1e-6 && abs(tap.p99 - 99) < 1e-6 && abs(tap.max - 100) < 1e-6)
        #expect(l.reportLines().count == 2)
        #expect(l.reportLines()[1].hasPrefix("latency: tap kernel→flip: n 100, p50 51.0"))
        // The last second's samples.
        #expect(l.recent(now: 200.01).count == 1)
    }

    @Test func capacityDropsLaterSamplesAndSaysSo() {
        var l = LatencyLedger(capacity: 2)
        for i in 0..<3 {
            l.input(.tap, at: Double(i), stamp: .kernel)
            l.frameBegan()
            l.framePresented(at: Double(i) + 0.01, stamp: .flip)
        }
        #expect(l.samples.count == 2 && l.dropped == 1)
        #expect(l.reportLines().last == "latency: 1 later samples not kept (over 2)")
        #expect(LatencyLedger().reportLines() == ["latency: no tap, drag or fleet command reached the screen"])
    }

    /// A fleet command (issue 43) is its own kind: from its arrival in the client thread to
    /// the first frame that shows it, beside a tap in the same frame, reported on its own line.
    @Test func fleetCommandsAreAKindOfTheirOwn() {
        var l = LatencyLedger()
        l.input(.command, at: 1.000, stamp: .received)
        l.input(.command, at: 1.004, stamp: .received)   // a later one in the same frame: the oldest counts
        l.input(.tap, at: 1.002, stamp: .kernel)
        l.frameBegan()
        let shown = l.framePresented(at: 1.020, stamp: .presented)
        #expect(shown.map(\.kind) == [.tap, .command])
        #expect(abs((shown.last?.seconds ?? 0) - 0.020) < 1e-9)
        #expect(l.reportLines().contains { $0.hasPrefix("latency: command received→presented: n 1, p50 20.0") }, "\(l.reportLines())")
        #expect(LatencyLedger.Kind.pointer == [.tap, .drag])
    }
}
