import KioskEngine
@testable import KioskHost
import Raster
import Testing

/// Page rectangles on the screen, as assistive technology is told them: scale, rotation, HiDPI
/// and the window's position.
@Suite struct ScreenPlacementTests {
    func placement(_ rotation: Rotation, output: (Int, Int), window: (Int, Int), scale: Double, at: (Int, Int)) -> ScreenPlacement {
        ScreenPlacement(viewport: Viewport(outputWidth: output.0, outputHeight: output.1, windowWidth: window.0,
                                           windowHeight: window.1, rotation: rotation, scale: scale),
                        windowX: at.0, windowY: at.1)
    }

    @Test func unrotatedIsScaledAndOffset() {
        let p = placement(.none, output: (800, 600), window: (800, 600), scale: 2, at: (100, 50))
        let r = p.screenRect(ofPage: Rect(x: 10, y: 20, width: 30, height: 40))
        #expect(r == (120, 90, 60, 80))
        #expect(p.windowRect == (100, 50, 800, 600))
    }

    @Test func quarterTurnsTurnTheRectangle() {
        // Page 600x800 pixels shown on an 800x600 output turned clockwise: page (x, y) → output (800 - y, x).
        let p = placement(.clockwise90, output: (800, 600), window: (800, 600), scale: 1, at: (0, 0))
        #expect(p.screenRect(ofPage: Rect(x: 10, y: 20, width: 30, height: 40)) == (740, 10, 40, 30))
        let q = placement(.upsideDown, output: (800, 600), window: (800, 600), scale: 1, at: (0, 0))
        #expect(q.screenRect(ofPage: Rect(x: 10, y: 20, width: 30, height: 40)) == (760, 540, 30, 40))
        let t = placement(.clockwise270, output: (800, 600), window: (800, 600), scale: 1, at: (0, 0))
        #expect(t.screenRect(ofPage: Rect(x: 10, y: 20, width: 30, height: 40)) == (20, 560, 40, 30))
    }

    @Test func hiDPIOutputIsInWindowUnits() {
        // Two output pixels per window unit: the screen (window units) sees half.
        let p = placement(.none, output: (1600, 1200), window: (800, 600), scale: 2, at: (0, 0))
        #expect(p.screenRect(ofPage: Rect(x: 10, y: 20, width: 30, height: 40)) == (10, 20, 30, 40))
    }

    /// The mapping agrees with input: the centre of a control's screen rectangle maps back to a
    /// page point inside the control.
    @Test(arguments: [Rotation.none, .clockwise90, .upsideDown, .clockwise270])
    func screenAndInputAgree(rotation: Rotation) {
        let p = placement(rotation, output: (1000, 700), window: (1000, 700), scale: 1.5, at: (0, 0))
        let control = Rect(x: 100, y: 60, width: 120, height: 80)
        let r = p.screenRect(ofPage: control)
        let back = p.viewport.pagePoint(fromWindowX: r.x + r.width / 2, y: r.y + r.height / 2)
        #expect(control.contains(back))
    }
}
