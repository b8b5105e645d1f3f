import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// `renderFrame(at:present:)` draws large changed rectangles band by band and hands each band
/// to the presenter at once: the page must come out byte for byte as drawn whole, and what was
/// presented must be the whole frame's change.
@Suite struct BandedPresentTests {
    func app(showFPS: Bool, scale: Double) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 700, scale: scale, showFPS: showFPS,
                                       typesetter: EstimatingTypesetter(drawsBoxes: true)),
                 preference: .light)
    }

    func tap(_ a: KioskApp, _ control: PageControl, at t: Double) {
        let f = a.frame(of: control)
        _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: t))
        _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: t + 0.05))
    }

    @Test(arguments: [(false, 1.0), (true, 1.0), (false, 1.5)])
    func bandedFramesEqualWholeFrames(showFPS: Bool, scale: Double) {
        let whole = app(showFPS: showFPS, scale: scale), banded = app(showFPS: showFPS, scale: scale)
        let presented = Pixmap(width: 900, height: 700)
        var bands = 0, bandedFrames = 0
        for k in 0..<150 {
            let t = Double(k) / 60
            if k == 10 || k == 70 { tap(whole, .original, at: t - 0.01); tap(banded, .original, at: t - 0.01) }
            if k == 100 { tap(whole, .button, at: t - 0.01); tap(banded, .button, at: t - 0.01) }
            let a = whole.renderFrame(at: t)
            var calls = 0
            let b = banded.renderFrame(at: t, present: { r in
                calls += 1
                #expect(r.height <= KioskApp.presentBandRows || r.area < KioskApp.presentBandMinPixels || showFPS)
                presented.copy(r, from: banded.frame)
            })
            #expect(a == b, "frame \(k): dirty rectangles")
            if calls > b.count + (showFPS ? 1 : 0) { bandedFrames += 1 }
            bands += calls
            var diff = 0, stale = 0
            for y in 0..<700 {
                for x in 0..<900 {
                    if whole.frame[x, y] != banded.frame[x, y] { diff += 1 }
                    if presented[x, y] != banded.frame[x, y] { stale += 1 }
                }
            }
            #expect(diff == 0, "frame \(k): \(diff) pixels differ from the frame drawn whole")
            #expect(stale == 0, "frame \(k): \(stale) pixels changed but not presented")
        }
        // The fades and the first frame are whole-page frames: they went out in bands.
        #expect(bandedFrames >= 30, "\(bandedFrames) frames were presented in bands")
        #expect(bands > 150)
    }
}
