import DarkModeToggle
import KioskEngine
import Raster
import Testing
import KioskSupport
@testable import KioskHost

/// KMS/DRM input, pure: device positions (libinput's normalised values, or raw values of the
/// device kinds a kiosk meets) through the config's calibration and `--rotate` to page
/// points, the relative mouse's cursor, and the cursor's visibility — through the same
/// `DeviceInputMapper` → `PointerTranslator` chain the frame loop runs.
@Suite struct DeviceInputTests {
    static let rotations: [Rotation] = [.none, .clockwise90, .upsideDown, .clockwise270]

    /// The mapper and translator as the frame loop chains them.
    struct Chain {
        var mapper: DeviceInputMapper
        var translator = PointerTranslator(touchMouseID: UInt32.max, mouseSynthesisesTouch: false)
        var viewport: Viewport

        init(_ viewport: Viewport, calibration: CalibrationMatrix? = nil) {
            self.viewport = viewport
            mapper = DeviceInputMapper(calibration: calibration)
        }

        mutating func send(_ input: DeviceInput) -> [PointerEvent] {
            mapper.map(input, viewport: viewport).compactMap { translator.translate($0, timestamp: 0, viewport: viewport) }
        }
    }

    static func viewport(_ w: Int = 800, _ h: Int = 480, rotation: Rotation = .none, scale: Double = 1) -> Viewport {
        Viewport(outputWidth: w, outputHeight: h, windowWidth: w, windowHeight: h, rotation: rotation, scale: scale)
    }

    /// Output pixels a tap aims at: corners, centre and an odd one.
    static let targets: [(x: Int, y: Int)] = [(0, 0), (799, 479), (400, 240), (123, 321), (799, 0)]

    // MARK: Device kinds

    /// Touch screens: a resistive panel (ads7846: 200…3900), a 12-bit digitiser (0…4095) and
    /// a 15-bit range (0…32767). A raw value aimed at an output pixel's centre lands within one
    /// device unit of it (the device's own resolution, in pixels).
    @Test(arguments: [AxisRange(200, 3900), AxisRange(0, 4095), AxisRange(0, 32767)])
    func touchScreensLandWhereTheFingerIs(range: AxisRange) {
        var chain = Chain(Self.viewport())
        let unitX = 800 / Double(range.maximum - range.minimum + 1), unitY = 480 / Double(range.maximum - range.minimum + 1)
        for (i, t) in Self.targets.enumerated() {
            let rawX = range.value(at: (Double(t.x) + 0.5) / 800), rawY = range.value(at: (Double(t.y) + 0.5) / 480)
            #expect((range.minimum...range.maximum).contains(rawX) && (range.minimum...range.maximum).contains(rawY))
            let down = chain.send(.touch(phase: .down, device: 7, slot: Int64(i), x: range.normalised(rawX), y: range.normalised(rawY)))
            let up = chain.send(.touchEnd(cancelled: false, device: 7, slot: Int64(i)))
            #expect(down.count == 1 && up.count == 1)
            guard let d = down.first, let u = up.first else { continue }
            #expect(d.phase == .down && d.device == .touch && u.phase == .up)
            #expect(abs(d.location.x - (Double(t.x) + 0.5)) <= unitX, "\(range) x at \(t): \(d.location)")
            #expect(abs(d.location.y - (Double(t.y) + 0.5)) <= unitY, "\(range) y at \(t): \(d.location)")
            // libinput's touch-up has no position: the last one is used.
            #expect(u.location == d.location)
        }
    }

    /// Absolute pointers (QEMU's tablet: 0…32767, and a 0…4095 overlay in mouse mode) are
    /// scaled by their range: the button press lands on the aimed-at pixel's centre, not at
    /// the raw value taken as pixels (SDL 2.26's evdev reader puts 16384 far off an 800-wide
    /// screen).
    @Test(arguments: [AxisRange(0, 32767), AxisRange(0, 4095), AxisRange(200, 3900)])
    func absolutePointersAreScaledByTheirRange(range: AxisRange) {
        var chain = Chain(Self.viewport())
        for t in Self.targets {
            let x = range.normalised(range.value(at: (Double(t.x) + 0.5) / 800))
            let y = range.normalised(range.value(at: (Double(t.y) + 0.5) / 480))
            #expect(chain.send(.absoluteMotion(device: 3, x: x, y: y)).isEmpty, "a hover is no pointer event")
            let down = chain.send(.button(device: 3, code: 0x110, isDown: true))
            let up = chain.send(.button(device: 3, code: 0x110, isDown: false))
            #expect(down.map(\.phase) == [.down] && up.map(\.phase) == [.up])
            #expect(down.first?.location == Point(Double(t.x) + 0.5, Double(t.y) + 0.5), "\(range) at \(t)")
            #expect(down.first?.device == .mouse)
        }
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) != nil, "a pointer shows the cursor")
    }

    /// A multitouch screen: two fingers at once are two pointers; each ends on its own.
    @Test func multitouchFingersAreSeparatePointers() {
        var chain = Chain(Self.viewport())
        let a = chain.send(.touch(phase: .down, device: 1, slot: 0, x: 0.25, y: 0.5))
        let b = chain.send(.touch(phase: .down, device: 1, slot: 1, x: 0.75, y: 0.5))
        #expect(a.count == 1 && b.count == 1 && a.first?.id != b.first?.id)
        let moved = chain.send(.touch(phase: .move, device: 1, slot: 1, x: 0.5, y: 0.25))
        #expect(moved.first?.location == Point(400, 120) && moved.first?.id == b.first?.id)
        let upB = chain.send(.touchEnd(cancelled: false, device: 1, slot: 1))
        #expect(upB.first?.phase == .up && upB.first?.location == Point(400, 120))
        #expect(chain.mapper.activeTouchDevices == [1])
        #expect(chain.send(.touchEnd(cancelled: false, device: 1, slot: 0)).first?.id == a.first?.id)
        #expect(chain.mapper.activeTouchDevices.isEmpty)
        // Moves and ends of touch points never seen down are dropped.
        #expect(chain.send(.touch(phase: .move, device: 1, slot: 5, x: 0.5, y: 0.5)).isEmpty)
        #expect(chain.send(.touchEnd(cancelled: false, device: 1, slot: 5)).isEmpty)
    }

    /// A relative mouse: the cursor starts at the page's centre, moves by libinput's deltas
    /// and stops at the page's edges; a click lands where the cursor is.
    @Test func relativeMouseMovesTheCursorAndClicksThere() {
        var chain = Chain(Self.viewport())
        _ = chain.send(.relativeMotion(device: 9, dx: -100.25, dy: 40))
        #expect(chain.mapper.cursor == Point(299.75, 280))
        var down = chain.send(.button(device: 9, code: 0x110, isDown: true))
        #expect(down.first?.location == Point(299.5, 280.5), "the click is at the centre of the pixel under the cursor")
        let drag = chain.send(.relativeMotion(device: 9, dx: 50, dy: 0))
        #expect(drag.first?.phase == .move && drag.first?.location == Point(349.5, 280.5))
        #expect(chain.send(.button(device: 9, code: 0x110, isDown: false)).first?.phase == .up)
        _ = chain.send(.relativeMotion(device: 9, dx: -5000, dy: 5000))
        #expect(chain.mapper.cursor == Point(0, 479.5), "clamped to the page")
        down = chain.send(.button(device: 9, code: 0x110, isDown: true))
        #expect(down.first?.location == Point(0.5, 479.5))
        // Right and middle buttons are no pointer events; other codes are ignored.
        _ = chain.send(.button(device: 9, code: 0x110, isDown: false))
        #expect(chain.send(.button(device: 9, code: 0x111, isDown: true)).isEmpty)
        #expect(chain.send(.button(device: 9, code: 0x113, isDown: true)).isEmpty)
    }

    /// The cursor shows after pointer input and hides at the next touch.
    @Test func cursorShowsForPointersAndHidesAfterTouch() {
        var chain = Chain(Self.viewport())
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == nil, "no cursor before any pointer")
        _ = chain.send(.touch(phase: .down, device: 1, slot: 0, x: 0.5, y: 0.5))
        _ = chain.send(.touchEnd(cancelled: false, device: 1, slot: 0))
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == nil)
        _ = chain.send(.relativeMotion(device: 2, dx: 10, dy: 0))
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == Point(410, 240))
        _ = chain.send(.touch(phase: .down, device: 1, slot: 0, x: 0.1, y: 0.1))
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == nil, "hidden after a touch")
        _ = chain.send(.touch(phase: .move, device: 1, slot: 0, x: 0.2, y: 0.1))
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == nil)
        _ = chain.send(.relativeMotion(device: 2, dx: 1, dy: 0))
        #expect(chain.mapper.visibleCursor(viewport: chain.viewport) == Point(411, 240), "back where it was, plus the move")
    }

    /// An unplugged device ends what it had started: touches are cancelled, a held button is
    /// cancelled too (a release would click what is under the cursor).
    @Test func unpluggedDeviceEndsItsGestures() {
        var chain = Chain(Self.viewport())
        _ = chain.send(.touch(phase: .down, device: 4, slot: 0, x: 0.5, y: 0.5))
        _ = chain.send(.touch(phase: .down, device: 5, slot: 1, x: 0.2, y: 0.5))
        let ended = chain.send(.deviceRemoved(device: 4))
        #expect(ended.map(\.phase) == [.cancel] && ended.first?.location == Point(400, 240))
        #expect(chain.mapper.activeTouchDevices == [5])
        _ = chain.send(.relativeMotion(device: 6, dx: 0, dy: 0))
        _ = chain.send(.button(device: 6, code: 0x110, isDown: true))
        #expect(chain.send(.deviceRemoved(device: 6)).map(\.phase) == [.cancel])
        // A second device's release cannot end the first one's press.
        _ = chain.send(.button(device: 6, code: 0x110, isDown: true))
        #expect(chain.send(.button(device: 8, code: 0x110, isDown: false)).isEmpty)
        #expect(chain.send(.button(device: 6, code: 0x110, isDown: false)).map(\.phase) == [.up])
    }

    // MARK: Rotation

    /// With `--rotate`, a touch lands on the page point shown under the finger: for every
    /// rotation, a page point drawn at an output position is hit by a touch there.
    @Test(arguments: rotations)
    func touchFollowsTheRotation(rotation: Rotation) {
        let v = Self.viewport(rotation: rotation, scale: 2)
        var chain = Chain(v)
        for (i, page) in [Point(10, 20), Point(150, 100), Point(Double(v.pagePixelWidth) / 2 - 1, Double(v.pagePixelHeight) / 2 - 3)].enumerated() {
            let output = v.outputPixel(fromPage: Point(page.x * 2, page.y * 2))
            let e = chain.send(.touch(phase: .down, device: 1, slot: Int64(i), x: output.x / 800, y: output.y / 480))
            #expect(e.count == 1)
            guard let got = e.first?.location else { continue }
            #expect(abs(got.x - page.x) < 1e-4 && abs(got.y - page.y) < 1e-4, "\(rotation): \(got) for \(page)")
        }
    }

    /// The quarter turn spelled out: the page (480×800) stands on an 800×480 output turned
    /// clockwise, so its top-left corner is at the output's top-right.
    @Test func clockwise90InNumbers() {
        var chain = Chain(Self.viewport(rotation: .clockwise90))
        let e = chain.send(.touch(phase: .down, device: 1, slot: 0, x: 0.875, y: 0.25))
        #expect(e.first?.location == Point(120, 100))
        let corner = chain.send(.touch(phase: .down, device: 1, slot: 1, x: 1, y: 0))
        #expect(corner.first?.location == Point(0, 0))
    }

    /// A mouse moved right goes right on the page as the viewer sees it, whatever the
    /// rotation; its cursor is drawn at the matching output pixel.
    @Test(arguments: rotations)
    func relativeMouseFollowsThePageNotTheOutput(rotation: Rotation) {
        let v = Self.viewport(rotation: rotation)
        var chain = Chain(v)
        _ = chain.send(.relativeMotion(device: 2, dx: 30, dy: -20))
        let centre = Point(Double(v.pagePixelWidth) / 2, Double(v.pagePixelHeight) / 2)
        #expect(chain.mapper.cursor == Point(centre.x + 30, centre.y - 20))
        #expect(chain.mapper.visibleCursor(viewport: v) == v.outputPixel(fromPage: Point(centre.x + 30, centre.y - 20)))
        let down = chain.send(.button(device: 2, code: 0x110, isDown: true))
        guard let p = down.first?.location else { Issue.record("no press"); return }
        #expect(abs(p.x - (centre.x + 30)) <= 0.5 && abs(p.y - (centre.y - 20)) <= 0.5, "\(rotation): \(p)")
    }

    // MARK: Calibration

    /// The config's matrix maps device-normalised to output-normalised positions, before the
    /// rotation: mirrored X, a quarter-turned panel, and a panel whose glass overhangs the
    /// picture by 5% on each side.
    @Test func calibrationMatricesMoveTouches() {
        var mirrored = Chain(Self.viewport(), calibration: CalibrationMatrix(-1, 0, 1, 0, 1, 0))
        #expect(mirrored.send(.touch(phase: .down, device: 1, slot: 0, x: 0.25, y: 0.5)).first?.location == Point(600, 240))

        var turned = Chain(Self.viewport(), calibration: CalibrationMatrix(0, 1, 0, -1, 0, 1))
        let t = turned.send(.touch(phase: .down, device: 1, slot: 0, x: 0.25, y: 0.5)).first?.location
        #expect(t == Point(400, 360), "(x, y) → (y, 1 − x)")

        var overhang = Chain(Self.viewport(), calibration: CalibrationMatrix(1.1, 0, -0.05, 0, 1.1, -0.05))
        let o = overhang.send(.touch(phase: .down, device: 1, slot: 0, x: 0.5, y: 0.5)).first?.location
        #expect(o.map { abs($0.x - 400) < 1e-3 && abs($0.y - 240) < 1e-3 } == true, "the centre stays")
        let edge = overhang.mapper.outputNormalised(x: 0.05 / 1.1, y: 1.05 / 1.1)
        #expect(abs(edge.x) < 1e-12 && abs(edge.y - 1) < 1e-12, "the picture's corner: \(edge)")
    }

    /// The matrix applies before `--rotate`: a mirrored panel on a turned page.
    @Test func calibrationThenRotation() {
        var chain = Chain(Self.viewport(rotation: .clockwise90), calibration: CalibrationMatrix(-1, 0, 1, 0, 1, 0))
        // Device (0.125, 0.25) → output (0.875, 0.25) → page (120, 100) as in `clockwise90InNumbers`.
        #expect(chain.send(.touch(phase: .down, device: 1, slot: 0, x: 0.125, y: 0.25)).first?.location == Point(120, 100))
    }

    /// Absolute pointers are calibrated too; relative mice are not.
    @Test func calibrationAppliesToAbsolutePointersOnly() {
        var chain = Chain(Self.viewport(), calibration: CalibrationMatrix(-1, 0, 1, 0, 1, 0))
        _ = chain.send(.absoluteMotion(device: 3, x: 0.25, y: 0.5))
        #expect(chain.mapper.cursor == Point(600, 240))
        _ = chain.send(.relativeMotion(device: 9, dx: 10, dy: 0))
        #expect(chain.mapper.cursor == Point(610, 240), "a relative move is not mirrored")
    }

    @Test func calibrationValidation() {
        #expect(CalibrationMatrix.validated([1, 0, 0, 0, 1, 0]) == .success(.identity))
        #expect(CalibrationMatrix.validated([1, 0, 0, 0, 1]) == .failure(.count(5)))
        #expect(CalibrationMatrix.validated([1, 0, 0, 0, 1, 0, 1]) == .failure(.count(7)))
        #expect(CalibrationMatrix.validated([1, 0, .nan, 0, 1, 0]) == .failure(.notFinite(index: 2)))
        #expect(CalibrationMatrix.validated([1, 0, 0, 0, 1, 1000]) == .failure(.tooLarge(index: 5, value: 1000)))
        #expect(CalibrationMatrix.validated([1, 2, 0, 2, 4, 0]) == .failure(.singular))
        #expect(CalibrationMatrix.validated([0, 0, 0, 0, 0, 0]) == .failure(.singular))
        #expect(CalibrationMatrix.validated([0, 1, 0, -1, 0, 1]) == .success(CalibrationMatrix(0, 1, 0, -1, 0, 1)))
    }

    // MARK: Who reads input

    @Test func inputReaderChoice() {
        // (The request's spelling, "auto" and a bad value: HostEnvironmentTests.)
        #expect(InputReaderChoice.resolve(request: nil, driver: "KMSDRM") == .libinput)
        #expect(InputReaderChoice.resolve(request: nil, driver: "x11") == .sdl)
        #expect(InputReaderChoice.resolve(request: nil, driver: "wayland") == .sdl)
        #expect(InputReaderChoice.resolve(request: .sdl, driver: "kmsdrm") == .sdl)
        #expect(InputReaderChoice.resolve(request: .libinput, driver: "x11") == .libinput)
        #expect(InputReaderChoice.resolve(request: .evdev, driver: "kmsdrm") == .evdev)
    }

    @Test func cursorSpriteIsRectangularWithItsHotSpotAtTheTopLeft() {
        #expect(CursorSprite.rows.allSatisfy { $0.count == CursorSprite.width })
        #expect(CursorSprite.rows.allSatisfy { $0.allSatisfy { "#o.".contains($0) } })
        #expect(CursorSprite.rows[0].first == "#")
        #expect(CursorSprite.rgba.count == CursorSprite.width * CursorSprite.height * 4)
    }
}
