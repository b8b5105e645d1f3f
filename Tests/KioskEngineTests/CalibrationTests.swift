import Testing
@testable import KioskEngine

/// The calibration's least-squares fit and its round (`CalibrationFit`, `CalibrationRound`).
@Suite struct CalibrationFitTests {
    /// Output-normalised targets in the corners, and where a panel with `m` (device → output)
    /// reports them.
    static func pairs(_ m: CalibrationMatrix, targets: [(Double, Double)] = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)])
        -> [CalibrationFit.Pair] {
        let inverse = invert(m)
        return targets.map { t in CalibrationFit.Pair(device: inverse.apply(x: t.0, y: t.1), target: t) }
    }

    static func invert(_ m: CalibrationMatrix) -> CalibrationMatrix {
        let det = m.determinant
        let a = m.e / det, b = -m.b / det, d = -m.d / det, e = m.a / det
        return CalibrationMatrix(a, b, -(a * m.c + b * m.f), d, e, -(d * m.c + e * m.f))
    }

    static func close(_ a: CalibrationMatrix, _ b: CalibrationMatrix, within: Double) -> Bool {
        zip(a.values, b.values).allSatisfy { abs($0 - $1) <= within }
    }

    @Test(arguments: [
        CalibrationMatrix.identity,
        CalibrationMatrix(0, 1, 0, 1, 0, 0),                 // swapped axes
        CalibrationMatrix(-1, 0, 1, 0, 1, 0),                // mirrored x
        CalibrationMatrix(1, 0, 0, 0, -1, 1),                // mirrored y
        CalibrationMatrix(0, 1, 0, -1, 0, 1),                // a quarter turn (libinput's 90° example)
        CalibrationMatrix(1.1, 0.08, -0.05, -0.06, 0.92, 0.04),  // scaled, shifted, skewed
        CalibrationMatrix(0.06, -1.04, 1.0, 0.97, 0.05, -0.01),  // swapped, mirrored and skewed (the VM's panel)
    ])
    func exactPointsGiveTheMatrix(_ m: CalibrationMatrix) throws {
        let fitted = try CalibrationFit.fit(Self.pairs(m)).get()
        #expect(Self.close(fitted, m, within: 1e-9), "\(fitted.text) for \(m.text)")
    }

    @Test func noiseMovesTheFitLittle() throws {
        let m = CalibrationMatrix(0.06, -1.04, 1.0, 0.97, 0.05, -0.01)
        var pairs = Self.pairs(m)
        // A resistive panel's quantisation: up to 1/3700 of the range on each sample.
        let noise: [(Double, Double)] = [(0.00027, -0.0002), (-0.00025, 0.00015), (0.0001, 0.00027), (-0.0002, -0.00026)]
        for i in pairs.indices { pairs[i].device.x += noise[i].0; pairs[i].device.y += noise[i].1 }
        let fitted = try CalibrationFit.fit(pairs).get()
        #expect(Self.close(fitted, m, within: 0.002), "\(fitted.text)")
        #expect(!Self.close(fitted, m, within: 1e-9), "the noise was not in the samples")
    }

    @Test func moreSamplesAreLeastSquares() throws {
        // Five exact pairs plus nothing else fit exactly; a sixth off by a little pulls the fit a little.
        let m = CalibrationMatrix(1.1, 0.08, -0.05, -0.06, 0.92, 0.04)
        var pairs = Self.pairs(m, targets: [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)])
        pairs[4].target.x += 0.01
        let fitted = try CalibrationFit.fit(pairs).get()
        let p = fitted.apply(x: pairs[4].device.x, y: pairs[4].device.y)
        #expect(p.x > 0.5 && p.x < 0.51, "the off sample pulled the fit by \(p.x - 0.5), expected part of 0.01")
    }

    @Test func degenerateSamplesAreRefused() {
        let one = CalibrationFit.Pair(device: (0.5, 0.5), target: (0.1, 0.1))
        #expect(CalibrationFit.fit([one, one, one, one]) == .failure(.collinearSamples))
        // On one line (a finger dragged along the edge between targets).
        let line = (0..<4).map { i in CalibrationFit.Pair(device: (0.2 * Double(i), 0.1 * Double(i)), target: (0.1 + 0.2 * Double(i), 0.5)) }
        #expect(CalibrationFit.fit(line) == .failure(.collinearSamples))
        #expect(CalibrationFit.fit(Array(Self.pairs(.identity).prefix(2))) == .failure(.tooFewSamples(2)))
        // Samples spread, but the targets on a line: the matrix is singular.
        let flat = [(0.1, 0.5), (0.9, 0.5), (0.9, 0.5), (0.1, 0.5)]
        let devices = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)]
        let pairs = zip(devices, flat).map { CalibrationFit.Pair(device: $0, target: $1) }
        #expect(CalibrationFit.fit(pairs) == .failure(.unusableMatrix(.singular)))
    }
}

@Suite struct CalibrationRoundTests {
    /// Presses each of the round's targets through a panel with `m` (device → output), each
    /// press the readings `around` gives for the exact device position.
    static func touch(_ round: inout CalibrationRound, _ m: CalibrationMatrix, from: Int = 0, to: Int? = nil,
                      around: ((Double, Double)) -> [(Double, Double)] = { [$0] }) -> [CalibrationRound.Step?] {
        let inverse = CalibrationFitTests.invert(m)
        var steps: [CalibrationRound.Step?] = []
        for i in from..<(to ?? round.targets.count) {
            let t = round.targets[i]
            let readings = around(inverse.apply(x: t.outputX, y: t.outputY))
            round.press(x: readings[0].0, y: readings[0].1)
            for r in readings.dropFirst() { round.move(x: r.0, y: r.1) }
            steps.append(round.release())
        }
        return steps
    }

    @Test func aRoundGivesTheMatrixAndACheckErrorNearZero() throws {
        let m = CalibrationMatrix(0.06, -1.04, 1.0, 0.97, 0.05, -0.01)
        var round = CalibrationRound(pageWidth: 1024, pageHeight: 768, rotation: .none)
        let steps = Self.touch(&round, m)
        #expect(steps.dropLast() == [.next(index: 1), .next(index: 2), .next(index: 3), .next(index: 4)])
        guard case .done(let result)?? = steps.last else { Issue.record("not done: \(steps)"); return }
        #expect(CalibrationFitTests.close(result.matrix, m, within: 1e-9))
        #expect(result.checkErrorPixels < 1e-6)
        #expect(result.restarts == 0)
    }

    @Test func theMedianIgnoresAStrayReadingAndJitter() throws {
        let m = CalibrationMatrix(1.1, 0.08, -0.05, -0.06, 0.92, 0.04)
        var round = CalibrationRound(pageWidth: 800, pageHeight: 480, rotation: .none)
        let steps = Self.touch(&round, m) { p in
            [(p.0 + 0.001, p.1), (p.0 + 0.3, p.1 - 0.25), (p.0 - 0.001, p.1 + 0.001), (p.0, p.1 - 0.001), (p.0, p.1)]
        }
        guard case .done(let result)?? = steps.last else { Issue.record("not done: \(steps)"); return }
        #expect(result.checkErrorPixels < 1, "check error \(result.checkErrorPixels) px")
        #expect(CalibrationFitTests.close(result.matrix, m, within: 0.005), "\(result.matrix.text)")
        // The mean of the same readings would be far off: the stray reading alone moves it 0.06.
        #expect(CalibrationRound.median([1, 100, 2, 3, 2]) == 2)
        #expect(CalibrationRound.median([4, 1, 3, 2]) == 2.5)
    }

    @Test func aTouchOffItsTargetMissesTheCheckAndRestarts() {
        let m = CalibrationMatrix.identity
        var round = CalibrationRound(pageWidth: 1000, pageHeight: 1000, rotation: .none)
        // The first target touched 60 px off (a finger that slipped): the fit absorbs part of it,
        // the check point shows the rest.
        _ = Self.touch(&round, m, to: 1) { p in [(p.0 + 0.06, p.1 + 0.06)] }
        let rest = Self.touch(&round, m, from: 1)
        guard case .restart(let reason)?? = rest.last else { Issue.record("not refused: \(rest)"); return }
        #expect(reason.contains("check point was missed"), "\(reason)")
        #expect(round.index == 0 && round.samples.isEmpty && round.restarts == 1)
        // The next round, touched right, is done and counts the refused one.
        let again = Self.touch(&round, m)
        guard case .done(let result)?? = again.last else { Issue.record("not done: \(again)"); return }
        #expect(result.restarts == 1)
    }

    @Test func oneSpotForEveryTargetRestartsAtTheFourth() {
        var round = CalibrationRound(pageWidth: 1024, pageHeight: 600, rotation: .none)
        var steps: [CalibrationRound.Step?] = []
        for _ in 0..<4 {
            round.press(x: 0.5, y: 0.5)
            steps.append(round.release())
        }
        #expect(steps.prefix(3) == [.next(index: 1), .next(index: 2), .next(index: 3)])
        guard case .restart(let reason)?? = steps.last else { Issue.record("not refused: \(steps)"); return }
        #expect(reason.contains("one line"), "\(reason)")
        #expect(round.index == 0)
    }

    @Test func aCancelledPressIsNoSampleAndAReleaseWithoutPressIsNothing() {
        var round = CalibrationRound(pageWidth: 640, pageHeight: 480, rotation: .none)
        #expect(round.release() == nil)
        round.move(x: 0.2, y: 0.2)
        #expect(round.release() == nil, "a move without a press is no reading")
        round.press(x: 0.1, y: 0.1)
        round.cancel()
        #expect(round.release() == nil)
        #expect(round.samples.isEmpty && round.index == 0)
        round.press(x: .nan, y: 0.1)
        #expect(round.release() == nil, "a reading that is not a number is none")
    }

    @Test(arguments: [Rotation.none, .clockwise90, .upsideDown, .clockwise270])
    func rotatedTargetsFitToTheOutput(_ rotation: Rotation) throws {
        // The page as the viewer sees it is turned; the matrix maps to the output as scanned
        // out, so a panel that matches the output exactly gives the identity whatever --rotate is.
        var round = CalibrationRound(pageWidth: rotation.swapsAxes ? 600 : 1024, pageHeight: rotation.swapsAxes ? 1024 : 600,
                                     rotation: rotation)
        #expect(round.outputWidth == 1024 && round.outputHeight == 600)
        let steps = Self.touch(&round, .identity)
        guard case .done(let result)?? = steps.last else { Issue.record("not done: \(steps)"); return }
        #expect(CalibrationFitTests.close(result.matrix, .identity, within: 1e-9), "\(result.matrix.text)")
        // The first target is the page's top-left as the viewer sees it.
        let first = round.targets[0]
        #expect(abs(first.pageX - 0.1 * Double(rotation.swapsAxes ? 600 : 1024)) < 1e-9)
        let expected = CalibrationRound.outputNormalised(pageX: 0.1, pageY: 0.1, rotation: rotation)
        #expect(first.outputX == expected.x && first.outputY == expected.y)
        if rotation == .clockwise90 { #expect(expected.x == 0.9 && expected.y == 0.1) }
    }

    @Test func toleranceIsTwoPercentOfTheShorterSideAtLeastEight() {
        #expect(abs(CalibrationRound(pageWidth: 1920, pageHeight: 1080, rotation: .none).tolerance - 21.6) < 1e-9)
        #expect(CalibrationRound(pageWidth: 320, pageHeight: 240, rotation: .none).tolerance == 8)
        #expect(CalibrationRound.pixels(0.44) == "0.4")
        #expect(CalibrationRound.pixels(12.36) == "12.4")
    }
}
