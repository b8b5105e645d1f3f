import DarkModeToggle
import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// Calibration under a compositor, pure: `input.calibration` on SDL's fingers
/// (`FingerCalibration` → `PointerTranslator`, as the frame loop chains them) lands where the
/// KMS/DRM chain (`DeviceInputMapper` → `PointerTranslator`) lands the same touch, for every
/// `--rotate`; the mouse is never calibrated; and calibrate's finger rules
/// (`CalibrationFingers`) feeding the round fit the matrix that the kiosk's chain then uses.
@Suite struct CompositorTouchCalibrationTests {
    static let rotations: [Rotation] = [.none, .clockwise90, .upsideDown, .clockwise270]
    static let mouseTouchID: Int64 = -1
    /// A panel mounted badly: axes swapped, one mirrored, skewed (the VM scenarios' panel).
    static let panel = CalibrationMatrix(0.06, -1.04, 1.0, 0.97, 0.05, -0.01)

    static func viewport(_ rotation: Rotation) -> Viewport {
        Viewport(outputWidth: 1280, outputHeight: 800, windowWidth: 1280, windowHeight: 800, rotation: rotation, scale: 1)
    }

    static func translator() -> PointerTranslator {
        PointerTranslator(touchMouseID: UInt32.max, mouseSynthesisesTouch: false)
    }

    /// The panel's normalised position whose true map is output-normalised `out`.
    static func panelPosition(_ out: (x: Double, y: Double)) -> (x: Double, y: Double) {
        let m = panel, u = out.x - m.c, v = out.y - m.f
        return ((m.e * u - m.b * v) / m.determinant, (m.a * v - m.d * u) / m.determinant)
    }

    @Test(arguments: rotations)
    func sdlFingersLandWhereTheKMSChainLandsThem(rotation: Rotation) {
        let v = Self.viewport(rotation)
        let calibration = FingerCalibration(matrix: Self.panel, mouseTouchID: Self.mouseTouchID)
        for (i, n) in [(0.2, 0.3), (0.5, 0.5), (0.1, 0.85), (0.7, 0.4)].enumerated() {
            var sdl = Self.translator(), kms = Self.translator()
            var mapper = DeviceInputMapper(calibration: Self.panel)
            let raw = RawPointerInput.finger(phase: .down, touchID: 3, fingerID: Int64(i), x: Float(n.0), y: Float(n.1))
            let viaSDL = sdl.translate(calibration.apply(raw), timestamp: 0, viewport: v)
            let viaKMS = mapper.map(.touch(phase: .down, device: 3, slot: Int64(i), x: n.0, y: n.1), viewport: v)
                .compactMap { kms.translate($0, timestamp: 0, viewport: v) }.first
            // SDL's positions are Floats before the matrix, libinput's Doubles: within a hundredth of a pixel.
            let same = viaSDL.flatMap { a in viaKMS.map { b in abs(a.location.x - b.location.x) < 0.01 && abs(a.location.y - b.location.y) < 0.01 } }
            #expect(same == true, "\(rotation) at \(n): \(String(describing: viaSDL)) vs \(String(describing: viaKMS))")
        }
    }

    /// The matrix first, the turn after: a mirror in X with the page turned 90° moves a touch
    /// at the output's left edge to the right edge, which is the page's top.
    @Test func theMatrixComesBeforeTheTurn() {
        let v = Self.viewport(.clockwise90)
        var t = Self.translator()
        let mirror = FingerCalibration(matrix: CalibrationMatrix(-1, 0, 1, 0, 1, 0), mouseTouchID: Self.mouseTouchID)
        let e = t.translate(mirror.apply(.finger(phase: .down, touchID: 1, fingerID: 0, x: 0, y: 0.5)), timestamp: 0, viewport: v)
        // Output (1280, 400) on a page turned clockwise: page (400, 0) of the 800x1280 page.
        #expect(e.map { abs($0.location.x - 400) < 1e-6 && abs($0.location.y) < 1e-6 } == true, "\(String(describing: e))")
    }

    @Test func theMouseAndItsFingersAreNeverCalibrated() {
        let c = FingerCalibration(matrix: CalibrationMatrix(-1, 0, 1, 0, 1, 0), mouseTouchID: Self.mouseTouchID)
        let mouseFinger = RawPointerInput.finger(phase: .down, touchID: Self.mouseTouchID, fingerID: 0, x: 0.25, y: 0.5)
        #expect(c.apply(mouseFinger) == mouseFinger)
        let button = RawPointerInput.mouseButton(isDown: true, which: 0, button: 1, x: 10, y: 20)
        #expect(c.apply(button) == button)
        let motion = RawPointerInput.mouseMotion(which: 0, leftHeld: true, x: 10, y: 20)
        #expect(c.apply(motion) == motion)
        #expect(c.apply(.finger(phase: .move, touchID: 2, fingerID: 0, x: 0.25, y: 0.5))
                == .finger(phase: .move, touchID: 2, fingerID: 0, x: 0.75, y: 0.5))
    }

    @Test func withoutAMatrixOrWithABrokenPositionFingersPass() {
        let none = FingerCalibration(matrix: nil, mouseTouchID: Self.mouseTouchID)
        let f = RawPointerInput.finger(phase: .up, touchID: 2, fingerID: 1, x: 0.3, y: 0.9)
        #expect(none.apply(f) == f)
        let some = FingerCalibration(matrix: Self.panel, mouseTouchID: Self.mouseTouchID)
        let broken = RawPointerInput.finger(phase: .up, touchID: 2, fingerID: 1, x: .nan, y: 0.9)
        guard case let .finger(_, _, _, x, y) = some.apply(broken) else { Issue.record("not a finger"); return }
        #expect(x.isNaN && y == 0.9)
    }

    // MARK: calibrate's fingers

    @Test func theFirstFingerPressesAndOthersAreIgnored() {
        var f = CalibrationFingers(mouseTouchID: Self.mouseTouchID)
        #expect(f.take(.finger(phase: .down, touchID: 5, fingerID: 0, x: 0.25, y: 0.5)) == .press(x: 0.25, y: 0.5))
        #expect(f.take(.finger(phase: .down, touchID: 5, fingerID: 1, x: 0.9, y: 0.9)) == nil)
        #expect(f.take(.finger(phase: .move, touchID: 5, fingerID: 1, x: 0.9, y: 0.8)) == nil)
        #expect(f.take(.finger(phase: .move, touchID: 5, fingerID: 0, x: 0.5, y: 0.25)) == .move(x: 0.5, y: 0.25))
        #expect(f.take(.finger(phase: .up, touchID: 5, fingerID: 1, x: 0.9, y: 0.8)) == nil)
        #expect(f.take(.finger(phase: .up, touchID: 5, fingerID: 0, x: 0.5, y: 0.25)) == .release)
        #expect(f.device == 5)
        // Another device after the first press: ignored; the mouse's fingers and the mouse: ignored.
        #expect(f.take(.finger(phase: .down, touchID: 6, fingerID: 0, x: 0.5, y: 0.5)) == nil)
        #expect(f.take(.finger(phase: .down, touchID: Self.mouseTouchID, fingerID: 0, x: 0.5, y: 0.5)) == nil)
        #expect(f.take(.mouseButton(isDown: true, which: 0, button: 1, x: 3, y: 4)) == nil)
        // A press lost with the window's focus is cancelled, once.
        #expect(f.take(.finger(phase: .down, touchID: 5, fingerID: 2, x: 0.5, y: 0.5)) == .press(x: 0.5, y: 0.5))
        #expect(f.lost() == .cancel)
        #expect(f.lost() == nil)
        #expect(f.take(.finger(phase: .up, touchID: 5, fingerID: 2, x: 0.5, y: 0.5)) == nil)
        #expect(f.take(.finger(phase: .down, touchID: 5, fingerID: 3, x: 0.5, y: 0.5)) == .press(x: 0.5, y: 0.5))
        #expect(f.take(.finger(phase: .cancel, touchID: 5, fingerID: 3, x: 0.5, y: 0.5)) == .cancel)
    }

    /// The person at the screen under a compositor, for each `--rotate`: each target touched
    /// through the panel's true map as SDL reports it (window-normalised), a stray reading among
    /// them; the round fits the panel's matrix, and the kiosk's chain with that matrix puts a
    /// touch aimed at a page point there.
    @Test(arguments: rotations)
    func aRoundOnSDLFingersFitsThePanelAndTheKioskUsesIt(rotation: Rotation) throws {
        let v = Self.viewport(rotation)
        var round = CalibrationRound(pageWidth: v.pagePixelWidth, pageHeight: v.pagePixelHeight, rotation: rotation)
        var fingers = CalibrationFingers(mouseTouchID: Self.mouseTouchID)
        var result: CalibrationResult?
        for (i, target) in round.targets.enumerated() {
            let p = Self.panelPosition((target.outputX, target.outputY))
            let id = Int64(i)
            // The landing, a spike, jitter either side, back: the median is the landing.
            let events: [RawPointerInput] = [
                .finger(phase: .down, touchID: 9, fingerID: id, x: Float(p.x), y: Float(p.y)),
                .finger(phase: .move, touchID: 9, fingerID: id, x: Float(p.x + 0.2), y: Float(p.y - 0.2)),
                .finger(phase: .move, touchID: 9, fingerID: id, x: Float(p.x + 0.001), y: Float(p.y + 0.001)),
                .finger(phase: .move, touchID: 9, fingerID: id, x: Float(p.x - 0.001), y: Float(p.y - 0.001)),
                .finger(phase: .move, touchID: 9, fingerID: id, x: Float(p.x), y: Float(p.y)),
                .finger(phase: .up, touchID: 9, fingerID: id, x: Float(p.x), y: Float(p.y)),
            ]
            for e in events {
                switch fingers.take(e) {
                case let .press(x, y)?: round.press(x: x, y: y)
                case let .move(x, y)?: round.move(x: x, y: y)
                case .release?:
                    if case let .done(r)? = round.release() { result = r }
                case .cancel?: round.cancel()
                case nil: Issue.record("\(e) did not count")
                }
            }
        }
        let r = try #require(result, "the round did not finish")
        #expect(r.checkErrorPixels < 0.5, "\(rotation): check point off by \(r.checkErrorPixels) px")
        for (got, want) in zip(r.matrix.values, Self.panel.values) { #expect(abs(got - want) < 1e-4, "\(rotation): \(r.matrix) vs \(Self.panel)") }
        // The kiosk: a touch aimed at page (300, 200) lands there.
        let calibration = FingerCalibration(matrix: r.matrix, mouseTouchID: Self.mouseTouchID)
        let aim = v.outputPixel(fromPage: Point(300, 200))
        let p = Self.panelPosition((aim.x / Double(v.outputWidth), aim.y / Double(v.outputHeight)))
        var t = Self.translator()
        let landed = t.translate(calibration.apply(.finger(phase: .down, touchID: 9, fingerID: 0, x: Float(p.x), y: Float(p.y))),
                                 timestamp: 0, viewport: v)
        let e = try #require(landed)
        #expect(abs(e.location.x - 300) < 0.5 && abs(e.location.y - 200) < 0.5, "\(rotation): \(e.location)")
    }
}
