import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// While the page's colours cross-fade after the toggles have come to rest, each toggle's opaque
/// core keeps its pixels: it is neither drawn again nor presented, and the frame still equals a
/// whole-page redraw byte for byte (twinkling stars and drifting clouds inside the core are
/// drawn as their own rectangles).
@Suite struct KeptCoreTests {
    func tap(_ a: KioskApp, _ control: PageControl, at t: Double) {
        let f = a.frame(of: control)
        _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: t))
        _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: t + 0.05))
    }

    @Test(arguments: [(1.0, false), (2.0, false), (1.5, true)])
    func pageFadeKeepsToggleCores(scale: Double, reduceMotion: Bool) {
        var options = KioskOptions(pixelWidth: 900, pixelHeight: 700, scale: scale, typesetter: EstimatingTypesetter(drawsBoxes: true))
        options.reduceMotion = reduceMotion
        let app = KioskApp(options: options, preference: .light), whole = KioskApp(options: options, preference: .light)
        // The middle of each toggle's track lies in its core.
        let centres = [PageControl.original, .vivid].map { c -> (x: Int, y: Int) in
            let f = app.frame(of: c)
            return (Int(f.midX * scale), Int(f.midY * scale))
        }
        var pageFrames = 0, keptFrames = 0
        for k in 0..<160 {
            let t = Double(k) / 60
            if k == 10 || k == 80 { tap(app, .original, at: t - 0.01); tap(whole, .original, at: t - 0.01) }
            let dirty = app.renderFrame(at: t)
            whole.invalidate()
            _ = whole.renderFrame(at: t)
            #expect(Self.firstDifference(app.frame, whole.frame) == nil, "frame \(k): \(Self.firstDifference(app.frame, whole.frame) ?? "")")
            for i in dirty.indices {
                for j in dirty.indices where j > i { #expect(dirty[i].intersection(dirty[j]).isEmpty, "frame \(k): overlapping \(dirty[i]) \(dirty[j])") }
            }
            // A frame that redraws the page: most of it is dirty.
            guard dirty.reduce(0, { $0 + $1.area }) * 2 > app.frame.bounds.area else { continue }
            pageFrames += 1
            let kept = centres.allSatisfy { c in !dirty.contains { $0.contains(IntRect(x: c.x, y: c.y, width: 1, height: 1)) } }
            if kept { keptFrames += 1 }
        }
        #expect(pageFrames >= 20, "only \(pageFrames) frames redrew the page")
        // Each tap cross-fades the page for 0.5 s (30 frames); the toggles' springs settle
        // exactly at rest about 0.37 s after the tap, so 7-8 frames a tap keep the cores. (With
        // Reduce Motion the toggles cross-fade in place as long as the page does: only the
        // byte comparison above is asked of it.)
        if !reduceMotion {
            #expect(keptFrames >= 12, "the cores were kept in only \(keptFrames) of \(pageFrames) page frames")
            #expect(keptFrames < pageFrames, "cores kept while the toggles cross-faded")
        }
    }

    static func firstDifference(_ a: Pixmap, _ b: Pixmap) -> String? {
        for y in 0..<a.height {
            for x in 0..<a.width where a[x, y] != b[x, y] {
                return "(\(x), \(y)): \(String(a[x, y], radix: 16)) vs \(String(b[x, y], radix: 16))"
            }
        }
        return nil
    }
}
