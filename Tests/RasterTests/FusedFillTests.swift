import Foundation
import Testing
@testable import Raster

/// `Pixmap.fill(_:with:under:)` (fill and composite in one pass per row) against the two-pass
/// version it replaces: fill, then `Canvas.draw(sprite)` clipped to the same rectangle.
@Suite struct FusedFillTests {
    @Test(arguments: [0 as UInt64, 1, 2, 3])
    func fillUnderSpriteEqualsFillThenDraw(seed: UInt64) {
        var rng = SeededRandom(seed: 500 + seed)
        let sprite = Pixmap(width: 37, height: 23)
        for i in 0..<(sprite.width * sprite.height) { sprite.pixels[i] = KernelEquivalenceTests.pixel(&rng) }
        let s = Sprite(pixmap: sprite, origin: (Int(rng.next() % 60) - 20, Int(rng.next() % 40) - 10))
        let page = KernelEquivalenceTests.pixel(&rng) | 0xFF00_0000
        let rects = [IntRect(x: 0, y: 0, width: 64, height: 48),
                     IntRect(x: Int(rng.next() % 40), y: Int(rng.next() % 30), width: Int(rng.next() % 40) + 1,
                             height: Int(rng.next() % 30) + 1),
                     IntRect(x: -5, y: 40, width: 100, height: 20)]
        for rect in rects {
            let fused = Pixmap(width: 64, height: 48), twoPass = Pixmap(width: 64, height: 48)
            for i in 0..<(64 * 48) { let v = KernelEquivalenceTests.pixel(&rng); fused.pixels[i] = v; twoPass.pixels[i] = v }
            fused.fill(rect, with: page, under: s)
            twoPass.fill(rect, with: page)
            let c = Canvas(twoPass)
            c.clip = rect.intersection(twoPass.bounds)
            c.draw(s)
            #expect(Array(UnsafeBufferPointer(start: fused.pixels, count: 64 * 48))
                    == Array(UnsafeBufferPointer(start: twoPass.pixels, count: 64 * 48)), "rect \(rect)")
        }
    }
}
