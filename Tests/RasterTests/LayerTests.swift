import Foundation
import Testing
@testable import Raster

@Suite struct LayerTests {
    static func maxDifference(_ a: Pixmap, _ b: Pixmap) -> Int {
        var m = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.color(x: x, y: y), q = b.color(x: x, y: y)
                m = max(m, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
            }
        }
        return m
    }

    static let background = Color(r255: 40, g255: 90, b255: 160)
    static let shape = Path.roundedRect(Rect(x: 7.3, y: 9.6, width: 40.2, height: 22.7), radius: 11.35)

    @Test func layerWithOpacityEqualsDirectDraw() {
        let direct = Pixmap(width: 64, height: 48), layered = Pixmap(width: 64, height: 48)
        for p in [direct, layered] { Canvas(p).fill(deviceRect: p.bounds, Self.background) }
        let color = Color(r255: 255, g255: 200, b255: 120, alpha: 0.9)
        Canvas(direct).fill(Self.shape, .solid(color), opacity: 0.6)
        let c = Canvas(layered)
        c.beginLayer(deviceBounds: IntRect(x: 3, y: 2, width: 58, height: 40))
        c.fill(Self.shape, .solid(color))
        c.endLayer(opacity: 0.6)
        #expect(Self.maxDifference(direct, layered) <= 1)
    }

    @Test func pathMaskEqualsFillingThePath() {
        let direct = Pixmap(width: 64, height: 48), masked = Pixmap(width: 64, height: 48)
        for p in [direct, masked] { Canvas(p).fill(deviceRect: p.bounds, Self.background) }
        let color = Color(r255: 250, g255: 250, b255: 250, alpha: 0.8)
        Canvas(direct).fill(Self.shape, .solid(color))
        let c = Canvas(masked)
        c.beginLayer(deviceBounds: masked.bounds)
        c.fill(deviceRect: masked.bounds, color)
        c.endLayer(mask: .path(Self.shape, .nonZero))
        #expect(Self.maxDifference(direct, masked) <= 1)
    }

    @Test func alphaMaskFromAnotherLayer() {
        let direct = Pixmap(width: 64, height: 48), masked = Pixmap(width: 64, height: 48)
        let color = Color(r255: 10, g255: 200, b255: 90)
        Canvas(direct).fill(Self.shape, .solid(color))
        let maskPix = Pixmap(width: 64, height: 48)
        Canvas(maskPix).fill(Self.shape, .solid(.white))
        let c = Canvas(masked)
        c.beginLayer(deviceBounds: masked.bounds)
        c.fill(deviceRect: masked.bounds, color)
        c.endLayer(mask: .alpha(maskPix, origin: (0, 0)))
        #expect(Self.maxDifference(direct, masked) <= 1)
    }

    @Test func nestedLayersAndPoolReuse() {
        let pix = Pixmap(width: 32, height: 32)
        let c = Canvas(pix)
        for _ in 0..<3 {
            c.beginLayer(deviceBounds: pix.bounds)
            c.beginLayer(deviceBounds: IntRect(x: 4, y: 4, width: 10, height: 10))
            c.fill(deviceRect: pix.bounds, .white)   // clipped to the inner layer
            c.endLayer(opacity: 0.5)
            c.endLayer()
        }
        // Three half-opaque white squares: alpha 1 − 0.5³ (rounded per step).
        #expect(abs(Int(pix.color(x: 8, y: 8).a) - 223) <= 1)
        #expect(pix.color(x: 20, y: 20).a == 0)
        #expect(c.pool.allocations <= 2, "layers come from the pool")
    }

    @Test func indexedRunsCompositeIdentically() {
        // A ring (content at both ends of most rows, a long transparent middle) and a disc.
        let spritePix = Pixmap(width: 90, height: 70)
        let sc = Canvas(spritePix)
        sc.fill(Path.roundedRectStroke(Rect(x: 3.5, y: 4.2, width: 80, height: 60), radius: 30, lineWidth: 3, alignment: .inside), .solid(Color(r: 1, g: 0.5, b: 0.2, a: 0.8)))
        sc.fill(Path.circle(center: Point(45, 35), radius: 7.3), .solid(.white))
        let plain = Sprite(pixmap: spritePix, origin: (5, 7))
        let indexed = Sprite(pixmap: spritePix, origin: (5, 7))
        indexed.indexRuns(minGap: 4)
        #expect((indexed.runs?.count ?? 0) > 70)
        #expect(indexed.isPacked, "a ring and a small disc: runs hold under a quarter of the pixmap")
        let mask = Pixmap(width: 100, height: 90)
        Canvas(mask).fill(Path.circle(center: Point(40, 40), radius: 38), .solid(.white))
        for (opacity, m) in [(1.0, nil), (0.63, nil), (0.8, LayerMask.alpha(mask, origin: (0, 0)))] as [(Double, LayerMask?)] {
            let a = Pixmap(width: 100, height: 90), b = Pixmap(width: 100, height: 90)
            for p in [a, b] { Canvas(p).fill(deviceRect: p.bounds, Self.background) }
            let ca = Canvas(a), cb = Canvas(b)
            ca.clip = IntRect(x: 10, y: 0, width: 70, height: 60)
            cb.clip = ca.clip
            ca.draw(plain, opacity: opacity, mask: m)
            cb.draw(indexed, opacity: opacity, mask: m)
            #expect(Self.maxDifference(a, b) == 0)
        }
    }

    /// A restricted sprite shares the pixels and draws like the sprite with the left-out pixels
    /// made transparent; the original sprite is untouched; drawing at an offset equals drawing
    /// a sprite placed there.
    @Test func restrictedSpritesLeaveOutTheirMiddle() {
        let pix = Pixmap(width: 90, height: 70)
        Canvas(pix).fill(Path.roundedRect(Rect(x: 2.5, y: 3.2, width: 84, height: 62), radius: 20), .solid(Color(r: 0.2, g: 0.4, b: 0.9, a: 0.9)))
        let sprite = Sprite(pixmap: pix, origin: (4, 6))
        let keep: (Int, Int) -> Bool = { x, y in !(x >= 20 && x < 70 && y >= 15 && y < 55) }
        let ring = sprite.restricted(minGap: 8, to: keep)
        #expect(ring.pixmap === pix && sprite.runs == nil)
        // The reference: a copy with the middle cleared.
        let cut = Pixmap(width: 90, height: 70)
        for y in 0..<70 { for x in 0..<90 { cut[x, y] = keep(x, y) ? pix[x, y] : 0 } }
        for opacity in [1.0, 0.41] {
            let a = Pixmap(width: 120, height: 100), b = Pixmap(width: 120, height: 100), c = Pixmap(width: 120, height: 100)
            for p in [a, b, c] { Canvas(p).fill(deviceRect: p.bounds, Self.background) }
            Canvas(a).draw(Sprite(pixmap: cut, origin: (7, 9)), opacity: opacity)
            Canvas(b).draw(ring, offset: (3, 3), opacity: opacity)
            Canvas(c).draw(sprite, offset: (3, 3), opacity: opacity)
            #expect(Self.maxDifference(a, b) == 0)
            #expect(Self.maxDifference(a, c) > 0, "the middle is drawn by the whole sprite")
        }
        #expect(sprite.origin == (4, 6), "drawing at an offset leaves the sprite where it was")
    }
}

/// A layer is composited only where something was drawn into it (its ink); the result is the
/// whole layer's composite, byte for byte.
@Suite struct LayerInkTests {
    @Test(arguments: [1.0, 0.5, 0.2])
    func endingALayerEqualsCompositingAllOfIt(opacity: Double) {
        let size = 96
        func base() -> Pixmap {
            let p = Pixmap(width: size, height: size)
            for y in 0..<size { for x in 0..<size { p[x, y] = Color(r255: Double(x * 2), g255: Double(y * 2), b255: 90).premultiplied8.packed } }
            return p
        }
        let mask = Pixmap(width: size, height: size)
        for y in 0..<size { for x in 0..<size { mask[x, y] = UInt32((x * 7 + y * 3) % 256) << 24 } }
        for masked in [false, true] {
            let inked = base(), whole = base()
            let a = Canvas(inked), b = Canvas(whole)
            let layerBounds = IntRect(x: 8, y: 8, width: 80, height: 80)
            func content(_ c: Canvas) {
                c.fill(Path.circle(center: Point(30, 34), radius: 9), .solid(Color(r255: 250, g255: 200, b255: 20, alpha: 0.8)))
                c.fill(deviceRect: IntRect(x: 60, y: 20, width: 6, height: 30), Color(r255: 20, g255: 40, b255: 200))
            }
            let m: LayerMask? = masked ? .alpha(mask, origin: (0, 0)) : nil
            a.beginLayer(deviceBounds: layerBounds)
            content(a)
            a.endLayer(opacity: opacity, mask: m)
            b.beginLayer(deviceBounds: layerBounds)
            content(b)
            let layer = b.endLayerAsSprite()
            b.draw(layer, opacity: opacity, mask: m)
            #expect(Array(UnsafeBufferPointer(start: inked.pixels, count: size * size))
                    == Array(UnsafeBufferPointer(start: whole.pixels, count: size * size)), "masked \(masked)")
        }
    }
}

/// A backdrop mask: where the mask is 255 the layer goes over the backdrop colour, whatever lies
/// beneath; elsewhere it is the alpha mask's composite. And an 8-bit plane masks as the alpha
/// of the pixmap it was taken from.
@Suite struct BackdropMaskTests {
    @Test(arguments: [1.0, 0.6])
    func fullMaskPixelsGoOverTheBackdrop(opacity: Double) {
        let size = 64
        let backdrop = Color(r255: 30, g255: 60, b255: 120).premultiplied8.packed
        let mask = Pixmap(width: size, height: size)
        // A disc of 255 with a soft rim, and a stripe of mixed values across it.
        for y in 0..<size {
            for x in 0..<size {
                let d = ((Double(x) - 32) * (Double(x) - 32) + (Double(y) - 30) * (Double(y) - 30)).squareRoot()
                var m = UInt32(max(0, min(255, (26 - d) * 40)))
                if y == 20 && x % 3 == 0 { m = UInt32(x * 4 % 256) }
                mask[x, y] = m << 24
            }
        }
        func content(_ c: Canvas) {
            c.beginLayer(deviceBounds: IntRect(x: 0, y: 0, width: size, height: size))
            c.fill(Path.circle(center: Point(28, 28), radius: 20), .solid(Color(r255: 250, g255: 220, b255: 40, alpha: 0.7)))
        }
        // Expected: the backdrop really drawn where the mask is 255, then the plain alpha mask.
        let expected = Pixmap(width: size, height: size), got = Pixmap(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size {
                let under = Color(r255: Double(x * 4 % 256), g255: 200, b255: Double(y * 4 % 256)).premultiplied8.packed
                expected[x, y] = mask[x, y] >> 24 == 255 ? backdrop : under
                got[x, y] = under
            }
        }
        let e = Canvas(expected), g = Canvas(got)
        content(e); e.endLayer(opacity: opacity, mask: .alpha(mask, origin: (0, 0)))
        let plane = AlphaPlane(alphaOf: Sprite(pixmap: mask, origin: (0, 0)))
        content(g); g.endLayer(opacity: opacity, mask: .planeOverBackdrop(plane, offset: (0, 0), backdrop: backdrop))
        #expect(Array(UnsafeBufferPointer(start: expected.pixels, count: size * size))
                == Array(UnsafeBufferPointer(start: got.pixels, count: size * size)))
    }

    /// `drawUniform` writes the bytes of filling a layer with one colour and compositing it
    /// through the same plane mask, with and without a backdrop, for opaque and translucent
    /// colours.
    @Test(arguments: [0xFF30_6090 as UInt32, 0x8020_4060])
    func aUniformLayerComposesAsTheFilledLayer(color: UInt32) {
        let size = 40
        let plane = AlphaPlane(width: 30, height: 26, origin: (2, 1))
        for y in 0..<26 { for x in 0..<30 { plane.bytes[y * 30 + x] = UInt8(y < 13 ? min(255, x * 20) : (x * 9 + y * 7) % 256) } }
        let rect = IntRect(x: 0, y: 3, width: 37, height: 30)
        for mask in [LayerMask.plane(plane, offset: (3, 2)), .planeOverBackdrop(plane, offset: (3, 2), backdrop: 0xFF10_C020)] {
            let a = Pixmap(width: size, height: size), b = Pixmap(width: size, height: size)
            for y in 0..<size { for x in 0..<size {
                let under = Color(r255: Double(x * 6 % 256), g255: 90, b255: Double(y * 6 % 256), alpha: 0.8).premultiplied8.packed
                a[x, y] = under; b[x, y] = under
            } }
            let layered = Canvas(a), uniform = Canvas(b)
            layered.clip = IntRect(x: 1, y: 0, width: 36, height: 38)
            uniform.clip = layered.clip
            layered.beginLayer(deviceBounds: rect)
            let solid = Pixmap(width: rect.width, height: rect.height)
            solid.fill(solid.bounds, with: color)
            layered.draw(Sprite(pixmap: solid, origin: (rect.x, rect.y)))
            layered.endLayer(mask: mask)
            uniform.drawUniform(color, deviceRect: rect, mask: mask)
            #expect(Array(UnsafeBufferPointer(start: a.pixels, count: size * size))
                    == Array(UnsafeBufferPointer(start: b.pixels, count: size * size)))
        }
    }

    /// `fullRect(throughColumn:)` of a capsule's coverage: every byte inside is 255, and it
    /// cannot grow by a column or a row without taking in a byte below 255; nil through a
    /// column with no full byte.
    @Test func aCapsulesFullRectIsItsStraightSection() throws {
        let box = IntRect(x: 10, y: 5, width: 120, height: 50)
        let plane = AlphaPlane(coverageOf: Path.roundedRect(Rect(x: 12.3, y: 7.6, width: 110.5, height: 40.2), radius: 20.1), bounds: box)
        let r = try #require(plane.fullRect(throughColumn: 70))
        func full(_ x: Int, _ y: Int) -> Bool { plane.value(x: x, y: y) == 255 }
        #expect((r.minY..<r.maxY).allSatisfy { y in (r.minX..<r.maxX).allSatisfy { full($0, y) } })
        #expect(!(r.minY..<r.maxY).allSatisfy { full(r.minX - 1, $0) })
        #expect(!(r.minY..<r.maxY).allSatisfy { full(r.maxX, $0) })
        #expect(!full(70, r.minY - 1) && !full(70, r.maxY))
        #expect(r.width > 60 && r.height > 30)
        #expect(plane.fullRect(throughColumn: 12) == nil)
        #expect(plane.fullRect(throughColumn: 500) == nil)
    }

    /// `store(deviceRect:table:keyedBy:)` writes the table's entry for the plane's byte at every
    /// pixel of the rectangle, entry 0 outside the plane, nothing outside the rectangle or the
    /// clip; long runs of one byte and single bytes alike.
    @Test func storingThroughATableWritesEachKeysEntry() {
        let w = 50, h = 30
        let plane = AlphaPlane(width: 37, height: 20, origin: (3, 2))
        for y in 0..<20 {
            for x in 0..<37 { plane.bytes[y * 37 + x] = UInt8(y < 10 ? (x < 24 ? 200 : x * 7 % 256) : (x * 13 + y) % 256) }
        }
        let table = (0..<256).map { UInt32($0) &* 0x0101_0101 ^ 0x8000_0000 }
        let pix = Pixmap(width: w, height: h)
        pix.fill(pix.bounds, with: 0xFF11_2233)
        let c = Canvas(pix)
        c.clip = IntRect(x: 2, y: 1, width: 46, height: 27)
        let rect = IntRect(x: 0, y: 4, width: 49, height: 23)
        table.withUnsafeBufferPointer { c.store(deviceRect: rect, table: $0.baseAddress!, keyedBy: plane, offset: (4, 3)) }
        let drawn = rect.intersection(c.clip)
        for y in 0..<h {
            for x in 0..<w {
                let inside = x >= drawn.minX && x < drawn.maxX && y >= drawn.minY && y < drawn.maxY
                let expected = inside ? table[Int(plane.value(x: x, y: y, offset: (4, 3)))] : 0xFF11_2233
                #expect(pix[x, y] == expected, "at \(x),\(y)")
            }
        }
    }

    @Test(arguments: [1.0, 0.6])
    func aPlaneMasksAsThePixmapsAlpha(opacity: Double) {
        let size = 40
        let mask = Pixmap(width: 30, height: 28)
        for y in 0..<28 { for x in 0..<30 { mask[x, y] = UInt32((x * 9 + y * 5) % 256) << 24 | 0x10_2030 } }
        let plane = AlphaPlane(alphaOf: Sprite(pixmap: mask, origin: (0, 0)))
        let a = Pixmap(width: size, height: size), b = Pixmap(width: size, height: size)
        a.fill(a.bounds, with: 0xFF40_8020); b.fill(b.bounds, with: 0xFF40_8020)
        for (pix, m) in [(a, LayerMask.alpha(mask, origin: (6, 4))), (b, LayerMask.plane(plane, offset: (6, 4)))] {
            let c = Canvas(pix)
            c.beginLayer(deviceBounds: pix.bounds)
            c.fill(Path.circle(center: Point(20, 20), radius: 17), .solid(Color(r255: 250, g255: 220, b255: 40, alpha: 0.7)))
            c.endLayer(opacity: opacity, mask: m)
        }
        #expect(Array(UnsafeBufferPointer(start: a.pixels, count: size * size))
                == Array(UnsafeBufferPointer(start: b.pixels, count: size * size)))
    }
}

/// Sprites drawn onto a layer's still-transparent pixels are stored scaled, not blended: the
/// same bytes as src-over onto transparent pixels, and over what is already drawn after that.
@Suite struct FreshLayerStoreTests {
    @Test(arguments: [1.0, 0.5, 0.13])
    func spritesOnAFreshLayerEqualSrcOverOntoTransparency(opacity: Double) {
        let size = 48
        let sprite = Pixmap(width: 30, height: 30)
        Canvas(sprite).fill(Path.circle(center: Point(15, 15), radius: 13), .solid(Color(r255: 200, g255: 90, b255: 30, alpha: 0.8)))
        let a = Sprite(pixmap: sprite, origin: (4, 6)), b = Sprite(pixmap: sprite, origin: (16, 12))
        // On a plain transparent pixmap (no layer): the blending kernels.
        let plain = Pixmap(width: size, height: size)
        let pc = Canvas(plain)
        pc.draw(a, opacity: opacity)
        pc.draw(b, opacity: opacity)
        // In a fresh layer: `a` is stored, `b` (overlapping `a`'s ink) blended.
        let base = Pixmap(width: size, height: size)
        let lc = Canvas(base)
        lc.beginLayer(deviceBounds: base.bounds)
        lc.draw(a, opacity: opacity)
        lc.draw(b, opacity: opacity)
        let layer = lc.endLayerAsSprite()
        #expect(Array(UnsafeBufferPointer(start: plain.pixels, count: size * size))
                == Array(UnsafeBufferPointer(start: layer.pixmap.pixels, count: size * size)))
    }
}

/// A path's coverage kept as a plane fills and masks as the path itself, in any clip.
@Suite struct CoveragePlaneTests {
    @Test func keptCoverageDrawsAsThePath() {
        let size = 120
        let r = Rect(x: 10.3, y: 20.6, width: 97.2, height: 41.5)
        let capsule = Path.roundedRect(r, radius: r.height / 2)
        let stroke = Path.roundedRectStroke(r, radius: r.height / 2, lineWidth: 1.25, alignment: .inside)
        let box = r.roundedOut
        let capsulePlane = AlphaPlane(coverageOf: capsule, bounds: box), strokePlane = AlphaPlane(coverageOf: stroke, bounds: box)
        let sprite = Pixmap(width: size, height: size)
        Canvas(sprite).fill(Path.rect(Rect(x: 0, y: 0, width: Double(size), height: Double(size))),
                            .linearGradient(LinearGradient(start: Point(0, 0), end: Point(120, 60),
                                                           colors: [Color(r255: 200, g255: 40, b255: 90, alpha: 0.9), Color(r255: 20, g255: 140, b255: 250)])))
        let color = Color(r255: 250, g255: 250, b255: 250, alpha: 0.35)
        for clip in [IntRect(x: 0, y: 0, width: size, height: size), IntRect(x: 0, y: 37, width: size, height: 9),
                     IntRect(x: 50, y: 0, width: 7, height: size)] {
            let a = Pixmap(width: size, height: size), b = Pixmap(width: size, height: size)
            a.fill(a.bounds, with: 0xFF20_3040); b.fill(b.bounds, with: 0xFF20_3040)
            let ca = Canvas(a), cb = Canvas(b)
            ca.clip = clip; cb.clip = clip
            ca.draw(Sprite(pixmap: sprite, origin: (0, 0)), mask: .path(capsule, .nonZero))
            ca.fill(stroke, .solid(color))
            cb.draw(Sprite(pixmap: sprite, origin: (0, 0)), mask: .plane(capsulePlane, offset: (0, 0)))
            cb.fill(plane: strokePlane, color)
            #expect(Array(UnsafeBufferPointer(start: a.pixels, count: size * size))
                    == Array(UnsafeBufferPointer(start: b.pixels, count: size * size)), "clip \(clip)")
        }
    }
}

/// Two sprites of one shape drawn as a pair: the bytes of drawing them one after the other.
@Suite struct SpritePairTests {
    @Test(arguments: [(1.0, 0.4), (0.3, 0.7), (0.0, 1.0), (0.999, 0.001)])
    func aPairDrawsAsTwoDraws(firstOpacity: Double, secondOpacity: Double) {
        // A small ring, whose runs (gaps under 32 px joined) hold more than a quarter of its
        // pixmap, and a large one, whose runs are packed.
        for (width, packs) in [(60, false), (140, true)] {
            pairDrawsAsTwoDraws(width: width, packs: packs, firstOpacity: firstOpacity, secondOpacity: secondOpacity)
        }
    }

    func pairDrawsAsTwoDraws(width: Int, packs: Bool, firstOpacity: Double, secondOpacity: Double) {
        let size = width + 10
        func ring(_ color: Color) -> Sprite {
            let p = Pixmap(width: width, height: width - 10)
            Canvas(p).fill(Path.roundedRectStroke(Rect(x: 3.5, y: 4.25, width: Double(width - 8), height: Double(width - 20)), radius: 20,
                                                  lineWidth: 3, alignment: .centered),
                           .solid(color))
            let s = Sprite(pixmap: p, origin: (2, 3))
            s.indexRuns()
            return s
        }
        let a = ring(Color(r255: 250, g255: 200, b255: 40, alpha: 0.9)), b = ring(Color(r255: 20, g255: 60, b255: 200))
        #expect(Canvas.alike(a, b) && a.isPacked == packs && b.isPacked == packs, "width \(width)")
        for clip in [IntRect(x: 0, y: 0, width: size, height: size), IntRect(x: 0, y: 20, width: size, height: 7)] {
            let one = Pixmap(width: size, height: size), two = Pixmap(width: size, height: size)
            one.fill(one.bounds, with: 0xFF80_7060); two.fill(two.bounds, with: 0xFF80_7060)
            let c1 = Canvas(one), c2 = Canvas(two)
            c1.clip = clip; c2.clip = clip
            c1.drawPair(a, opacity: firstOpacity, b, opacity: secondOpacity, offset: (3, 1), alike: true)
            c2.draw(a, offset: (3, 1), opacity: firstOpacity)
            c2.draw(b, offset: (3, 1), opacity: secondOpacity)
            #expect(Array(UnsafeBufferPointer(start: one.pixels, count: size * size))
                    == Array(UnsafeBufferPointer(start: two.pixels, count: size * size)))
        }
    }
}

/// A sprite whose runs hold at most a quarter of its pixmap keeps them packed, and composites
/// from that copy exactly as from the pixmap.
@Suite struct PackedRunsTests {
    /// A thin ring with a dot inside and a few stray pixels, 101×67, at (5, 7).
    static func ringPixmap() -> Pixmap {
        let p = Pixmap(width: 101, height: 67)
        let c = Canvas(p)
        c.fill(Path.roundedRectStroke(Rect(x: 2.3, y: 3.6, width: 95, height: 58), radius: 25, lineWidth: 2.5, alignment: .inside),
               .solid(Color(r: 0.9, g: 0.55, b: 0.2, a: 0.85)))
        c.fill(Path.circle(center: Point(60.4, 30.2), radius: 4.6), .solid(Color(r: 0.1, g: 0.3, b: 0.95)))
        p[50, 0] = 0xFF00_FF00
        p[0, 66] = 0x8040_2010
        p[100, 33] = 0xFFFF_FFFF
        return p
    }

    @Test func packedRunsCompositeAsThePixmapUnderEveryMask() {
        let pix = Self.ringPixmap()
        let plain = Sprite(pixmap: pix, origin: (5, 7))
        let packed = Sprite(pixmap: pix, origin: (5, 7))
        packed.indexRuns(minGap: 3)
        #expect(packed.isPacked && !plain.isPacked)
        #expect(packed.pixel(x: 55, y: 7) == 0xFF00_FF00, "the pixmap keeps every pixel")
        let maskPix = Pixmap(width: 130, height: 100)
        Canvas(maskPix).fill(Path.circle(center: Point(55, 45), radius: 41), .solid(Color(r: 1, g: 1, b: 1, a: 0.7)))
        let plane = AlphaPlane(coverageOf: Path.circle(center: Point(60, 40), radius: 37), bounds: IntRect(x: 0, y: 0, width: 130, height: 100))
        let masks: [LayerMask?] = [nil, .alpha(maskPix, origin: (0, 0)), .plane(plane, offset: (2, -1)),
                                   .planeOverBackdrop(plane, offset: (0, 0), backdrop: 0xFF33_2211),
                                   .path(Path.circle(center: Point(50, 40), radius: 30), .nonZero)]
        for mask in masks {
            for (opacity, offset) in [(1.0, (0, 0)), (0.37, (3, -2)), (0.9, (-4, 11))] {
                for clip in [IntRect(x: 0, y: 0, width: 130, height: 100), IntRect(x: 9, y: 20, width: 70, height: 9),
                             IntRect(x: 40, y: 0, width: 3, height: 100)] {
                    let a = Pixmap(width: 130, height: 100), b = Pixmap(width: 130, height: 100)
                    for p in [a, b] { Canvas(p).fill(deviceRect: p.bounds, LayerTests.background) }
                    let ca = Canvas(a), cb = Canvas(b)
                    ca.clip = clip; cb.clip = clip
                    ca.draw(plain, offset: offset, opacity: opacity, mask: mask)
                    cb.draw(packed, offset: offset, opacity: opacity, mask: mask)
                    // Runs visit only their pixels: elsewhere the backdrop mask, which writes its
                    // backdrop under transparent pixels too, leaves the canvas as it was.
                    var inRuns = Set<Int>()
                    let placed = (x: packed.origin.x + offset.0, y: packed.origin.y + offset.1)
                    for run in packed.runs ?? [] {
                        for x in Int(run.x0)..<Int(run.x1) { inRuns.insert((Int(run.y) + placed.y) * 1000 + x + placed.x) }
                    }
                    let untouched = LayerTests.background.premultiplied8.packed
                    for y in 0..<100 { for x in 0..<130 where !inRuns.contains(y * 1000 + x) { a[x, y] = untouched } }
                    #expect(LayerTests.maxDifference(a, b) == 0, "mask \(String(describing: mask)), opacity \(opacity), clip \(clip)")
                }
            }
        }
    }

    /// Onto a fresh layer the runs are stored, not blended: the same bytes from the packed copy.
    @Test func packedRunsStoreIntoAFreshLayer() {
        let pix = Self.ringPixmap()
        let plain = Sprite(pixmap: pix, origin: (0, 0)), packed = Sprite(pixmap: pix, origin: (0, 0))
        packed.indexRuns()
        #expect(packed.isPacked)
        let a = Pixmap(width: 110, height: 80), b = Pixmap(width: 110, height: 80)
        for (p, s) in [(a, plain), (b, packed)] {
            p.fill(p.bounds, with: 0xFF10_2030)
            let c = Canvas(p)
            c.beginLayer(deviceBounds: p.bounds)
            c.draw(s, offset: (4, 6), opacity: 0.6)
            c.endLayer(opacity: 0.8)
        }
        #expect(LayerTests.maxDifference(a, b) == 0)
    }

    /// Packing follows the runs: a dense sprite is not packed, a restricted ring of it is (and
    /// draws like the sprite with its middle cut out), and indexing again after the pixels
    /// changed packs the new pixels.
    @Test func packingFollowsTheRuns() {
        let pix = Pixmap(width: 80, height: 60)
        Canvas(pix).fill(Path.roundedRect(Rect(x: 1.5, y: 1.5, width: 77, height: 57), radius: 12), .solid(Color(r: 0.3, g: 0.6, b: 0.2)))
        let dense = Sprite(pixmap: pix, origin: (0, 0))
        dense.indexRuns()
        #expect(dense.runs != nil && !dense.isPacked)
        let keep: (Int, Int) -> Bool = { x, y in x < 4 || x >= 76 || y < 4 || y >= 56 }
        let ring = dense.restricted(minGap: 2, to: keep)
        #expect(ring.isPacked)
        let cut = Pixmap(width: 80, height: 60)
        for y in 0..<60 { for x in 0..<80 { cut[x, y] = keep(x, y) ? pix[x, y] : 0 } }
        let a = Pixmap(width: 90, height: 70), b = Pixmap(width: 90, height: 70)
        for p in [a, b] { p.fill(p.bounds, with: 0xFF70_6050) }
        Canvas(a).draw(Sprite(pixmap: cut, origin: (3, 2)), opacity: 0.7)
        Canvas(b).draw(ring, offset: (3, 2), opacity: 0.7)
        #expect(LayerTests.maxDifference(a, b) == 0)
        // New pixels, indexed again: the packed copy is made anew.
        let thin = Sprite(pixmap: Self.ringPixmap(), origin: (0, 0))
        thin.indexRuns()
        thin.pixmap[0, 66] = 0xFF00_00FF
        thin.indexRuns()
        let c = Pixmap(width: 110, height: 80), d = Pixmap(width: 110, height: 80)
        for p in [c, d] { p.fill(p.bounds, with: 0xFF70_6050) }
        Canvas(c).draw(Sprite(pixmap: thin.pixmap, origin: (0, 0)))
        Canvas(d).draw(thin)
        #expect(thin.isPacked && LayerTests.maxDifference(c, d) == 0)
    }
}

/// Shapes outside what is drawable are skipped before flattening; shapes with non-finite
/// points still reach the rasterizer, which draws nothing for them (and nothing traps).
@Suite struct OffClipShapeTests {
    @Test func shapesOutsideTheClipAndNonFiniteShapesDrawNothing() {
        let pix = Pixmap(width: 40, height: 40)
        pix.fill(pix.bounds, with: 0xFF10_2030)
        let c = Canvas(pix)
        c.clip = IntRect(x: 10, y: 10, width: 10, height: 10)
        c.fill(Path.circle(center: Point(30, 30), radius: 5), .solid(.white))            // misses the clip
        c.fill(Path.circle(center: Point(.nan, 5), radius: 3), .solid(.white))
        c.fill(Path.circle(center: Point(.infinity, 15), radius: 3), .solid(.white))
        c.transform = .scale(.infinity, 1)
        c.fill(Path.circle(center: Point(15, 15), radius: 3), .solid(.white))
        #expect((0..<1600).allSatisfy { pix.pixels[$0] == 0xFF10_2030 })
        // A shape reaching into the clip from outside is drawn there.
        c.transform = .identity
        c.fill(Path.circle(center: Point(8, 15), radius: 4), .solid(.white))
        #expect(pix[10, 15] != 0xFF10_2030)
        #expect(pix[5, 15] == 0xFF10_2030)
    }
}
