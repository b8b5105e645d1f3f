import DarkModeToggle
import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// The host's pure parts: rotation mapping (input and presentation must agree), scale policy,
/// and the pointer translator's de-duplication and sanity rules.
@Suite struct HostMappingTests {
    static let rotations: [Rotation] = [.none, .clockwise90, .upsideDown, .clockwise270]

    @Test(arguments: rotations)
    func presentationAndInputAgree(rotation: Rotation) {
        // A 7x4 output: every output pixel shows the page pixel that input at its centre hits.
        let v = Viewport(outputWidth: 7, outputHeight: 4, windowWidth: 7, windowHeight: 4, rotation: rotation, scale: 1)
        let map = RotationMap(rotation: rotation, outputWidth: 7, outputHeight: 4)
        var seen = Set<Int>()
        for oy in 0..<4 {
            for ox in 0..<7 {
                let shown = map.pagePixel(ox, oy)
                let hit = v.pagePixel(fromOutput: Point(Double(ox) + 0.5, Double(oy) + 0.5))
                #expect(Int(hit.x.rounded(.down)) == shown.x && Int(hit.y.rounded(.down)) == shown.y)
                #expect(shown.x >= 0 && shown.x < v.pagePixelWidth && shown.y >= 0 && shown.y < v.pagePixelHeight)
                seen.insert(shown.y * 100 + shown.x)
                // And back.
                let out = v.outputPixel(fromPage: Point(Double(shown.x) + 0.5, Double(shown.y) + 0.5))
                #expect(Int(out.x.rounded(.down)) == ox && Int(out.y.rounded(.down)) == oy)
            }
        }
        #expect(seen.count == 28, "the mapping is a bijection")
    }

    @Test(arguments: rotations)
    func outputRectCoversExactlyThePageRect(rotation: Rotation) {
        let map = RotationMap(rotation: rotation, outputWidth: 9, outputHeight: 6)
        let pageW = rotation.swapsAxes ? 6 : 9, pageH = rotation.swapsAxes ? 9 : 6
        let page = IntRect(x: 1, y: 2, width: min(3, pageW - 1), height: min(4, pageH - 2))
        let out = map.outputRect(page)
        var inside = 0
        for oy in 0..<6 {
            for ox in 0..<9 {
                let p = map.pagePixel(ox, oy)
                let inPage = p.x >= page.minX && p.x < page.maxX && p.y >= page.minY && p.y < page.maxY
                let inOut = ox >= out.minX && ox < out.maxX && oy >= out.minY && oy < out.maxY
                #expect(inPage == inOut, "output \(ox),\(oy)")
                if inOut { inside += 1 }
            }
        }
        #expect(inside == page.area)
    }

    @Test func scalePolicy() {
        #expect(ScalePolicy.resolve(explicit: 1.5, outputWidth: 3840, windowWidth: 1920, displayDPI: 300) == 1.5)
        #expect(ScalePolicy.resolve(explicit: nil, outputWidth: 3840, windowWidth: 1920, displayDPI: nil) == 2)
        #expect(ScalePolicy.resolve(explicit: nil, outputWidth: 1920, windowWidth: 1920, displayDPI: nil) == 1)
        // A nonsense DPI is ignored.
        #expect(ScalePolicy.resolve(explicit: nil, outputWidth: 1920, windowWidth: 1920, displayDPI: 5000) == 1)
    }

    static let touchMouseID: UInt32 = 0xFFFF_FFFF
    static let viewport = Viewport(outputWidth: 800, outputHeight: 480, windowWidth: 800, windowHeight: 480, rotation: .none, scale: 2)

    @Test func touchGeneratedMouseIsDropped() {
        var t = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: false)
        let down = t.translate(.finger(phase: .down, touchID: 3, fingerID: 7, x: 0.5, y: 0.25), timestamp: 1, viewport: Self.viewport)
        #expect(down == PointerEvent(id: 0, phase: .down, location: Point(200, 60), timestamp: 1, device: .touch))
        // SDL's mouse copy of the same touch.
        #expect(t.translate(.mouseButton(isDown: true, which: Self.touchMouseID, button: 1, x: 400, y: 120), timestamp: 1, viewport: Self.viewport) == nil)
        let up = t.translate(.finger(phase: .up, touchID: 3, fingerID: 7, x: 0.5, y: 0.25), timestamp: 1.1, viewport: Self.viewport)
        #expect(up?.phase == .up && up?.id == 0)
        #expect(!t.hasActivePointers)
    }

    @Test func realMouseDrivesOnePointerUnlessMouseMakesTouch() {
        var t = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: false)
        #expect(t.translate(.mouseMotion(which: 0, leftHeld: false, x: 10, y: 10), timestamp: 0, viewport: Self.viewport) == nil)
        let down = t.translate(.mouseButton(isDown: true, which: 0, button: 1, x: 100, y: 50), timestamp: 0, viewport: Self.viewport)
        #expect(down?.id == PointerTranslator.mouseID && down?.device == .mouse)
        #expect(down?.location == Point(50.25, 25.25))
        #expect(t.translate(.mouseButton(isDown: true, which: 0, button: 3, x: 100, y: 50), timestamp: 0, viewport: Self.viewport) == nil)
        #expect(t.translate(.mouseMotion(which: 0, leftHeld: true, x: 120, y: 50), timestamp: 0.01, viewport: Self.viewport)?.phase == .move)
        #expect(t.translate(.mouseButton(isDown: false, which: 0, button: 1, x: 120, y: 50), timestamp: 0.02, viewport: Self.viewport)?.phase == .up)

        // With SDL_MOUSE_TOUCH_EVENTS the finger copy is used and the mouse dropped.
        var u = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: true)
        #expect(u.translate(.mouseButton(isDown: true, which: 0, button: 1, x: 100, y: 50), timestamp: 0, viewport: Self.viewport) == nil)
        #expect(u.translate(.finger(phase: .down, touchID: -1, fingerID: 0, x: 0.125, y: 0.1), timestamp: 0, viewport: Self.viewport)?.phase == .down)
    }

    @Test func garbageFingersAreRejectedAndUpsBecomeCancels() {
        var t = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: false)
        #expect(t.translate(.finger(phase: .down, touchID: 1, fingerID: 1, x: .nan, y: 0.5), timestamp: 0, viewport: Self.viewport) == nil)
        #expect(t.translate(.finger(phase: .down, touchID: 1, fingerID: 1, x: 1.5, y: 0.5), timestamp: 0, viewport: Self.viewport) == nil)
        #expect(t.translate(.finger(phase: .move, touchID: 1, fingerID: 9, x: 0.5, y: 0.5), timestamp: 0, viewport: Self.viewport) == nil)
        _ = t.translate(.finger(phase: .down, touchID: 1, fingerID: 1, x: 0.5, y: 0.5), timestamp: 0, viewport: Self.viewport)
        // A move just outside is clamped to the edge; an up far outside ends as a cancel.
        #expect(t.translate(.finger(phase: .move, touchID: 1, fingerID: 1, x: 1.2, y: 0.5), timestamp: 0.1, viewport: Self.viewport)?.location == Point(400, 120))
        let end = t.translate(.finger(phase: .up, touchID: 1, fingerID: 1, x: .infinity, y: 0.5), timestamp: 0.2, viewport: Self.viewport)
        #expect(end?.phase == .cancel && end?.location == Point(400, 120))
        #expect(!t.hasActivePointers)
    }

    /// A release outside the window: touch and mouse end the same way, as an `up` (the
    /// engine's predicted end decides), never as a cancel that snaps the knob back.
    @Test func releaseOutsideTheWindowIsAnUpForTouchAndMouse() {
        var t = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: false)
        _ = t.translate(.finger(phase: .down, touchID: 1, fingerID: 1, x: 0.5, y: 0.5), timestamp: 0, viewport: Self.viewport)
        let moved = t.translate(.finger(phase: .move, touchID: 1, fingerID: 1, x: 0.9, y: 0.5), timestamp: 0.05, viewport: Self.viewport)
        let touchEnd = t.translate(.finger(phase: .up, touchID: 1, fingerID: 1, x: 2.5, y: 0.5), timestamp: 0.1, viewport: Self.viewport)
        #expect(touchEnd?.phase == .up, "found \(String(describing: touchEnd?.phase))")
        #expect(touchEnd?.location == moved?.location)
        #expect(!t.hasActivePointers)

        var m = PointerTranslator(touchMouseID: Self.touchMouseID, mouseSynthesisesTouch: false)
        _ = m.translate(.mouseButton(isDown: true, which: 0, button: 1, x: 400, y: 120), timestamp: 0, viewport: Self.viewport)
        let mouseEnd = m.translate(.mouseButton(isDown: false, which: 0, button: 1, x: 4000, y: 120), timestamp: 0.1, viewport: Self.viewport)
        #expect(mouseEnd?.phase == touchEnd?.phase)
    }
}
