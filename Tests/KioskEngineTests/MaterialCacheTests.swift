import Raster
import Testing
@testable import KioskEngine

/// The button's backdrop drawn without blurring (one colour, when every channel's blurred plane
/// rounds back to its value wherever the capsule covers) must draw the bytes of the full build.
@Suite struct MaterialCacheTests {
    static func backgrounds() -> [UInt32] {
        // Light and dark page colours and the steps of a cross-fade between them, plus odd ones.
        let light = Color(r: 0.93, g: 0.96, b: 0.99), dark = Color(r: 0.07, g: 0.08, b: 0.11)
        var out: [UInt32] = []
        for i in 0...24 {
            let t = Double(i) / 24
            out.append(Color(r: light.r + (dark.r - light.r) * t, g: light.g + (dark.g - light.g) * t,
                             b: light.b + (dark.b - light.b) * t).premultiplied8.packed)
        }
        out += [0xFF00_0000, 0xFFFF_FFFF, 0xFF01_FE80, 0x8040_2010]
        return out
    }

    /// The page a backdrop draws: `page` filled, the sprite masked by the capsule.
    static func drawn(_ sprite: Sprite, capsule: Rect, page: UInt32) -> Pixmap {
        let pix = Pixmap(width: Int(capsule.maxX) + 4, height: Int(capsule.maxY) + 4)
        pix.fill(pix.bounds, with: page)
        Canvas(pix).draw(sprite, mask: .path(Path.roundedRect(capsule, radius: capsule.height / 2), .nonZero))
        return pix
    }

    @Test(arguments: [(Rect(x: 40.3, y: 30.5, width: 309.4, height: 65.2), 10.0),
                      (Rect(x: 7, y: 9, width: 620, height: 130), 20.0),
                      (Rect(x: 2.5, y: 1.25, width: 90, height: 20), 3.0)])
    func oneColourBackdropDrawsTheFullBuild(capsule: Rect, sigma: Double) {
        var fast = MaterialCache(), full = MaterialCache()
        let tints = [Color(r: 1, g: 1, b: 1, a: 0.55), Color(r: 0.2, g: 0.2, b: 0.25, a: 0.6), Color(r: 0.5, g: 0.5, b: 0.5, a: 1)]
        let pool = LayerPool()
        for tint in tints {
            for bg in Self.backgrounds() {
                let a = fast.sprite(for: capsule, background: bg, tint: tint, sigma: sigma, canvasPool: pool, incremental: true)
                let b = full.sprite(for: capsule, background: bg, tint: tint, sigma: sigma, canvasPool: pool, incremental: false)
                #expect(a.bounds == b.bounds)
                let pa = Self.drawn(a, capsule: capsule, page: bg), pb = Self.drawn(b, capsule: capsule, page: bg)
                var diff = 0
                for y in 0..<pa.height { for x in 0..<pa.width where pa[x, y] != pb[x, y] { diff += 1 } }
                #expect(diff == 0, "background \(String(bg, radix: 16)), tint \(tint): \(diff) pixels differ")
            }
        }
        // The check is real: most builds skipped the blur, and the full builds all blurred.
        #expect(fast.blurredBuilds < fast.builds / 2, "\(fast.blurredBuilds) of \(fast.builds) blurred")
        #expect(full.blurredBuilds == full.builds)
    }

    /// The full build blurs only the rows it keeps and tints only its own pixels: byte for byte
    /// what a layer of the backdrop blurred whole with `Canvas.applyBlur`, tinted whole and cut
    /// out gives.
    @Test(arguments: [(Rect(x: 40.3, y: 30.5, width: 309.4, height: 65.2), 10.0),
                      (Rect(x: 7, y: 9, width: 620, height: 130), 20.0),
                      (Rect(x: 2.5, y: 1.25, width: 90, height: 20), 3.0)])
    func fullBuildIsTheWholeLayerBlurredAndCut(capsule: Rect, sigma: Double) {
        let tints = [Color(r: 1, g: 1, b: 1, a: 0.55), Color(r: 0.2, g: 0.2, b: 0.25, a: 0.6), .clear]
        for tint in tints {
            for bg in Self.backgrounds() {
                var full = MaterialCache()
                let got = full.sprite(for: capsule, background: bg, tint: tint, sigma: sigma, canvasPool: LayerPool(), incremental: false)
                let rect = capsule.roundedOut, margin = Int((sigma * 3).rounded(.up))
                let box = rect.insetBy(dx: -margin, dy: -margin)
                let c = Canvas(Pixmap(width: box.width, height: box.height))
                c.beginLayer(deviceBounds: c.drawableBounds)
                c.fill(deviceRect: c.drawableBounds, bg.color)
                c.applyBlur(sigma: sigma)
                c.fill(deviceRect: c.drawableBounds, tint)
                let layer = c.endLayerAsSprite().pixmap
                #expect(got.bounds == rect)
                var diff = 0
                for y in 0..<rect.height {
                    for x in 0..<rect.width where got.pixmap[x, y] != layer[x + margin, y + margin] { diff += 1 }
                }
                #expect(diff == 0, "background \(String(bg, radix: 16)), tint \(tint): \(diff) pixels differ")
            }
        }
    }

    /// The one-blur bound (a plane of ones) that marks every channel value as rounding back
    /// agrees with checking each value with its own blur; and it holds for the page's button
    /// sizes, so a cross-fade blurs nothing.
    @Test(arguments: [(Rect(x: 40.3, y: 30.5, width: 309.4, height: 65.2), 10.0),
                      (Rect(x: 7, y: 9, width: 620, height: 130), 20.0),
                      (Rect(x: 2.5, y: 1.25, width: 90, height: 20), 3.0)])
    func everyValueRoundsBackWhenTheBoundSaysSo(capsule: Rect, sigma: Double) {
        var cache = MaterialCache()
        _ = cache.sprite(for: capsule, background: 0xFF80_6040, tint: .clear, sigma: sigma, canvasPool: LayerPool(), incremental: true)
        #expect(cache.knowsEveryValueRoundsBack)
        let exact = cache.everyValueRoundsBackExactly()
        #expect(exact)
        #expect(cache.blurredBuilds == 0)
    }

    @Test func whiteAtSigma20IsOneColourInsideTheCapsuleOnly() {
        // Blurred white rounds to 254 at the rectangle's extreme corners: the backdrop is one
        // colour only where the capsule covers, which is where it is drawn.
        var fast = MaterialCache(), full = MaterialCache()
        let capsule = Rect(x: 0, y: 0, width: 620, height: 130)
        let pool = LayerPool()
        let a = fast.sprite(for: capsule, background: 0xFFFF_FFFF, tint: .clear, sigma: 20, canvasPool: pool, incremental: true)
        let b = full.sprite(for: capsule, background: 0xFFFF_FFFF, tint: .clear, sigma: 20, canvasPool: pool, incremental: false)
        #expect(fast.blurredBuilds == 0)
        #expect(a.pixmap[0, 0] == 0xFFFF_FFFF && b.pixmap[0, 0] != 0xFFFF_FFFF)
        let pa = Self.drawn(a, capsule: capsule, page: 0xFF00_0000), pb = Self.drawn(b, capsule: capsule, page: 0xFF00_0000)
        var diff = 0
        for y in 0..<pa.height { for x in 0..<pa.width where pa[x, y] != pb[x, y] { diff += 1 } }
        #expect(diff == 0)
    }
}
