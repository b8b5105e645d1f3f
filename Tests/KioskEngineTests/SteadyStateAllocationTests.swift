import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// After start-up, which frames still make large pixel buffers (`LargeAllocations`: pixmaps,
/// planes and packed sprite runs of 64 KiB or more, counted on this thread)? Issue 39, item 7:
/// under an address-space limit such an allocation on a tap ended the kiosk. One cycle of
/// everything a person does — a tap on each toggle (the page cross-fades between themes both
/// ways), a drag across each, the "Use System Setting" button — is drawn frame by frame at
/// 60 Hz; a second and a third identical cycle must make no large buffer: what the first cycle
/// made is kept and reused (sprite caches, layer pools).
@Suite struct SteadyStateAllocationTests {
    func press(_ a: KioskApp, _ control: PageControl, at t: Double, from: Double = 0.5, to: Double = 0.5) {
        let f = a.frame(of: control)
        let y = f.midY
        _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.minX + f.width * from, y), timestamp: t))
        if from != to {
            for k in 1...12 {
                let x = f.minX + f.width * (from + (to - from) * Double(k) / 12)
                _ = a.handle(PointerEvent(id: 1, phase: .move, location: Point(x, y), timestamp: t + Double(k) / 60))
            }
        }
        _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.minX + f.width * to, y), timestamp: t + (from != to ? 0.22 : 0.05)))
    }

    /// One cycle starting at `t0`, 9 s long; returns the large buffers it made.
    func cycle(_ app: KioskApp, from t0: Double) -> Int {
        LargeAllocations.startCounting()
        defer { LargeAllocations.stopCounting() }
        let actions: [(Double, (Double) -> Void)] = [
            (0.2, { self.press(app, .original, at: $0) }),               // → dark
            (1.5, { self.press(app, .vivid, at: $0) }),                  // → light
            (3.0, { self.press(app, .original, at: $0, from: 0.1, to: 0.9) }),   // drag → dark
            (4.5, { self.press(app, .vivid, at: $0, from: 0.9, to: 0.1) }),      // drag → light
            (6.0, { self.press(app, .button, at: $0) }),                 // follow the system
            (7.5, { self.press(app, .original, at: $0) }),               // → dark again
        ]
        var next = 0
        for k in 0..<(9 * 60) {
            let t = t0 + Double(k) / 60
            while next < actions.count, t0 + actions[next].0 <= t {
                actions[next].1(t0 + actions[next].0)
                next += 1
            }
            _ = app.renderFrame(at: t)
        }
        // Back to light for the next cycle.
        press(app, .vivid, at: t0 + 9)
        for k in 0..<120 { _ = app.renderFrame(at: t0 + 9 + Double(k) / 60) }
        return LargeAllocations.count
    }

    @Test(arguments: [(1280, 800, 1.0), (1920, 1080, 1.5), (800, 1280, 2.0)])
    func repeatedInteractionsMakeNoLargeBuffers(width: Int, height: Int, scale: Double) {
        let options = KioskOptions(pixelWidth: width, pixelHeight: height, scale: scale,
                                   typesetter: EstimatingTypesetter(drawsBoxes: true))
        let app = KioskApp(options: options, preference: .light)
        _ = app.renderFrame(at: 0)
        let first = cycle(app, from: 1)
        let second = cycle(app, from: 20)
        let third = cycle(app, from: 40)
        #expect(first > 0, "the counter saw nothing: the first cycle must make the other theme's pieces")
        #expect(second == 0 && third == 0, "large buffers made after the first cycle: \(second), then \(third) (first: \(first))")
    }
}
