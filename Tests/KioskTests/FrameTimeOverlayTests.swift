import Foundation
import Raster
import Testing
@testable import KioskEngine
@testable import KioskSupport

/// The `--show-fps` overlay: a label inside its panel, bars coloured by missed vsyncs, nothing
/// drawn outside the panel, and no pile-up of old text across redraws.
@Suite struct FrameTimeOverlayTests {
    static let page = PremultipliedRGBA8(r: 205, g: 231, b: 255, a: 255).packed

    static func draw(_ o: FrameTimeOverlay, on pix: Pixmap) {
        _ = o.draw(on: Canvas(pix), page: page, force: true)
    }

    static func isRed(_ c: PremultipliedRGBA8) -> Bool { c.r > 150 && c.g < 130 && c.b < 120 }

    @Test func latencyRowSaysTheLastSecondsMedianAndMax() {
        let o = FrameTimeOverlay()
        #expect(o.latencyLabel == "lat -- ms")
        o.recordLatency([12.4, 8.6, 30.2, 9.4, 17.0])
        #expect(o.latencyLabel == "lat 12/30 ms")
        #expect(o.needsRedraw)
        // Every character has a glyph, and the row fits the panel.
        #expect(o.latencyLabel.allSatisfy { PixelFont.glyphs[$0] != nil })
        #expect(PixelFont.width("lat 999/999 ms", cell: 2) <= Double(FrameTimeOverlay.size.width - 12))
        o.recordLatency([])
        #expect(o.latencyLabel == "lat -- ms")
    }

    @Test func labelSaysFramesPerSecondAndWorkTime() {
        let o = FrameTimeOverlay()
        #expect(o.label == "-- fps")
        for _ in 0..<60 { o.record(interval: 1000.0 / 60, work: 0.4) }
        #expect(o.label == "60 fps · 0.4 ms")
        for _ in 0..<60 { o.record(interval: 1000.0 / 30, work: 12.25) }
        #expect(o.label == "30 fps · 12.3 ms")
    }

    @Test func aSteadyIntervalJustOverSixtyHertzIsNotRedButAMissedVsyncIs() {
        let o = FrameTimeOverlay()
        for _ in 0..<60 { o.record(interval: 16.8, work: 1) }
        let pix = Pixmap(width: 200, height: 80)
        pix.fill(pix.bounds, with: Self.page)
        Self.draw(o, on: pix)
        var red = 0
        for y in 0..<80 { for x in 0..<200 where Self.isRed(pix.color(x: x, y: y)) { red += 1 } }
        #expect(red == 0, "16.8 ms is one vsync at 60 Hz, not a miss")
        #expect(!o.missedVsync(16.8) && !o.missedVsync(25) && o.missedVsync(25.1) && o.missedVsync(33.4))

        for _ in 0..<3 { o.record(interval: 33.4, work: 1) }
        Self.draw(o, on: pix)
        for y in 0..<80 { for x in 0..<200 where Self.isRed(pix.color(x: x, y: y)) { red += 1 } }
        #expect(red > 0)
    }

    @Test func textStaysInsideThePanelAndNeverPilesUp() {
        let o = FrameTimeOverlay()
        let pix = Pixmap(width: 240, height: 100)
        pix.fill(pix.bounds, with: Self.page)
        // Many redraws with changing numbers on the same pixmap (as the kiosk does).
        for i in 0..<200 {
            o.record(interval: Double(i % 37) + 5, work: Double(i % 11) * 1.3)
            Self.draw(o, on: pix)
        }
        let b = o.bounds
        // Outside the panel: untouched page.
        for y in 0..<100 { for x in 0..<240 where !(x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height) {
            #expect(pix[x, y] == Self.page, "pixel (\(x), \(y)) outside the panel changed")
            if pix[x, y] != Self.page { return }
        } }
        // Inside: the same as one fresh draw of the same state (no leftovers of old digits).
        let fresh = Pixmap(width: 240, height: 100)
        fresh.fill(fresh.bounds, with: Self.page)
        Self.draw(o, on: fresh)
        var differing = 0
        for y in b.y..<(b.y + b.height) { for x in b.x..<(b.x + b.width) where pix[x, y] != fresh[x, y] { differing += 1 } }
        #expect(differing == 0)
        // The label is really there: bright pixels in the label row, and its width fits.
        var bright = 0
        for y in (b.y + 6)..<(b.y + 16) { for x in b.x..<(b.x + b.width) where pix.color(x: x, y: y).r > 200 && pix.color(x: x, y: y).b > 200 { bright += 1 } }
        #expect(bright > 40, "label pixels: \(bright)")
        if let out = ProcessInfo.processInfo.environment["OVERLAY_PNG"] { try? PNGFile.write(pix, to: out) }
        #expect(PixelFont.width("999 fps · 99.9 ms", cell: 2) <= Double(b.width - 12))
    }
}
