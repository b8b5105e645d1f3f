import Testing
@testable import Raster

/// `Canvas.applyBlur` unpacks and packs rows and skips channels it can derive (all zero, or
/// equal to an earlier channel); it must give the bytes of blurring every channel on its own.
@Suite struct BlurChannelsTests {
    /// The straightforward version: each channel blurred as its own plane, then colour ≤ alpha.
    static func oracle(_ pix: Pixmap, sigma: Double) {
        let w = pix.width, h = pix.height
        var p = [Float](repeating: 0, count: w * h), scratch: [Float] = []
        for shift in [0, 8, 16, 24] as [UInt32] {
            for i in 0..<(w * h) { p[i] = Float((pix.pixels[(i / w) * pix.stride + i % w] >> shift) & 0xFF) }
            p.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratch) }
            let mask: UInt32 = ~(0xFF << shift)
            for i in 0..<(w * h) {
                let v = UInt32(clamp(Double(p[i]), 0, 255) + 0.5)
                let idx = (i / w) * pix.stride + i % w
                pix.pixels[idx] = (pix.pixels[idx] & mask) | (v << shift)
            }
        }
        for i in 0..<(w * h) {
            var c = PremultipliedRGBA8(packed: pix.pixels[i])
            c.r = min(c.r, c.a); c.g = min(c.g, c.a); c.b = min(c.b, c.a)
            pix.pixels[i] = c.packed
        }
    }

    static func blurred(_ colors: [Color], sigma: Double, size: Int = 57, seed: UInt64) -> (Pixmap, Pixmap) {
        var rng = SeededRandom(seed: seed)
        let pix = Pixmap(width: size, height: size - 9)
        let c = Canvas(pix)
        c.beginLayer(deviceBounds: pix.bounds)
        for color in colors {
            c.fill(Path.circle(center: Point(rng.range(5, 50), rng.range(5, 40)), radius: rng.range(3, 15)), .solid(color))
        }
        let layer = c.endLayerAsSprite()
        let expected = layer.pixmap.clone()
        oracle(expected, sigma: sigma)
        c.beginLayer(deviceBounds: pix.bounds)
        c.draw(layer)
        c.applyBlur(sigma: sigma)
        return (c.endLayerAsSprite().pixmap, expected)
    }

    @Test(arguments: [0.7, 2.2, 5.0, 13.0])
    func sameBytesAsBlurringEachChannel(sigma: Double) {
        let cases: [[Color]] = [
            [.white, Color(r: 1, g: 1, b: 1, a: 0.4)],                                  // r = g = b = a
            [Color(r: 0.5, g: 0.5, b: 0.5, a: 1), Color(r: 0.2, g: 0.2, b: 0.2, a: 0.7)], // r = g = b ≠ a
            [Color(r: 1, g: 0, b: 0, a: 1), Color(r: 1, g: 0, b: 0, a: 0.5)],          // g = b = 0
            [Color(r: 0.9, g: 0.3, b: 0.6, a: 0.8), Color(r: 0.1, g: 0.7, b: 0.2, a: 1)], // all differ
            [Color(r: 0, g: 0, b: 1, a: 1)],                                             // r = g = 0
        ]
        for (i, colors) in cases.enumerated() {
            let (got, want) = Self.blurred(colors, sigma: sigma, seed: UInt64(i + 1))
            var diff = 0
            for y in 0..<got.height { for x in 0..<got.width where got[x, y] != want[x, y] { diff += 1 } }
            #expect(diff == 0, "case \(i), sigma \(sigma): \(diff) pixels differ")
        }
    }

    @Test func aUniformLayerStaysUniformInside() {
        // The material backdrop's case: one colour everywhere; deep inside it is that colour.
        let pix = Pixmap(width: 120, height: 60)
        let c = Canvas(pix)
        c.beginLayer(deviceBounds: pix.bounds)
        c.fill(deviceRect: pix.bounds, Color(r: 0.3, g: 0.6, b: 0.9, a: 1))
        let before = c.endLayerAsSprite().pixmap.clone()
        let expected = before.clone()
        Self.oracle(expected, sigma: 6)
        c.beginLayer(deviceBounds: pix.bounds)
        c.draw(Sprite(pixmap: before, origin: (0, 0)))
        c.applyBlur(sigma: 6)
        let got = c.endLayerAsSprite().pixmap
        for y in 0..<got.height { for x in 0..<got.width { #expect(got[x, y] == expected[x, y]) } }
        #expect(got[60, 30] == before[60, 30])
    }
}
