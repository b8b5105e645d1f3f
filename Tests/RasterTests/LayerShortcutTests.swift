import Foundation
import Testing
@testable import Raster

/// The from-scratch shortcuts that skip a layer or a part of a blur, each against the long way
/// it replaces: the same bytes.
@Suite struct LayerShortcutTests {
    static func bytes(_ p: Pixmap) -> [UInt32] {
        (0..<p.height).flatMap { y in Array(UnsafeBufferPointer(start: p.pixels + y * p.stride, count: p.width)) }
    }

    /// Random premultiplied content over part of a pixmap: discs of random colours and
    /// opacities (anti-aliased edges, overlaps), the rest transparent.
    static func content(_ c: Canvas, _ rng: inout SeededRandom, within r: Rect) {
        for _ in 0..<6 {
            let cx = r.minX + Double(rng.next() % 1000) / 1000 * r.width
            let cy = r.minY + Double(rng.next() % 1000) / 1000 * r.height
            let radius = 2 + Double(rng.next() % 1000) / 1000 * min(r.width, r.height) / 3
            let color = Color(r255: Double(rng.next() % 256), g255: Double(rng.next() % 256), b255: Double(rng.next() % 256),
                              alpha: 0.2 + Double(rng.next() % 800) / 1000)
            c.fill(Path.circle(center: Point(cx, cy), radius: radius), .solid(color))
        }
    }

    /// A plane of runs of 0, runs of 255 and partial values, with run lengths that straddle the
    /// eight-byte words `Blend.maskSpan` reads.
    static func plane(width: Int, height: Int, origin: (x: Int, y: Int), _ rng: inout SeededRandom) -> AlphaPlane {
        let m = AlphaPlane(width: width, height: height, origin: origin)
        for y in 0..<height {
            var x = 0
            while x < width {
                let n = min(width - x, Int(rng.next() % 23) + 1), kind = rng.next() % 3
                for i in x..<(x + n) {
                    m.bytes[y * width + i] = kind == 0 ? 0 : kind == 1 ? 255 : UInt8(truncatingIfNeeded: rng.next())
                }
                x += n
            }
        }
        return m
    }

    /// Content drawn straight into a transparent pixmap and kept through a plane equals the
    /// content drawn into a layer ended through the plane onto that pixmap, for planes inside,
    /// across and around the pixmap.
    @Test(arguments: [(0, 0, 61, 37), (5, 3, 40, 30), (-7, -4, 80, 50), (20, 12, 60, 40)])
    func keepingThroughAPlaneIsEndingALayerThroughIt(px: Int, py: Int, pw: Int, ph: Int) {
        var rng = SeededRandom(seed: UInt64(1000 + px * 31 + pw))
        let origin = (x: 11, y: 7), w = 61, h = 37
        let m = Self.plane(width: pw, height: ph, origin: (origin.x + px, origin.y + py), &rng)
        let seed = rng.next()
        let layered = Pixmap(width: w, height: h), kept = Pixmap(width: w, height: h)
        let area = Rect(x: Double(origin.x) - 4, y: Double(origin.y) - 4, width: Double(w) + 8, height: Double(h) + 8)
        do {
            var r = SeededRandom(seed: seed)
            let c = Canvas(layered)
            c.retarget(layered, origin: origin)
            c.beginLayer(deviceBounds: IntRect(x: origin.x, y: origin.y, width: w, height: h))
            Self.content(c, &r, within: area)
            c.endLayer(mask: .plane(m, offset: (0, 0)))
        }
        do {
            var r = SeededRandom(seed: seed)
            let c = Canvas(kept)
            c.retarget(kept, origin: origin)
            Self.content(c, &r, within: area)
            kept.keep(through: m, origin: origin)
        }
        #expect(Self.bytes(layered) == Self.bytes(kept))
        // Something was kept, and something cut: the test can tell the two apart.
        #expect(Self.bytes(kept).contains { $0 != 0 })
    }

    /// Clearing where a plane is full clears exactly the pixels whose plane byte is 255, for
    /// planes inside, across and around the pixmap.
    @Test(arguments: [(0, 0, 61, 37), (5, 3, 40, 30), (-7, -4, 80, 50), (20, 12, 60, 40)])
    func clearingWhereAPlaneIsFullClearsItsFullPixels(px: Int, py: Int, pw: Int, ph: Int) {
        var rng = SeededRandom(seed: UInt64(2000 + px * 31 + pw))
        let origin = (x: 11, y: 7), w = 61, h = 37
        let m = Self.plane(width: pw, height: ph, origin: (origin.x + px, origin.y + py), &rng)
        let pix = Pixmap(width: w, height: h)
        for y in 0..<h { for x in 0..<w { pix[x, y] = UInt32(truncatingIfNeeded: rng.next()) | 0xFF00_0000 } }
        let before = Self.bytes(pix)
        pix.clear(whereFull: m, origin: origin)
        var cleared = 0
        for y in 0..<h {
            for x in 0..<w {
                let full = m.value(x: x + origin.x, y: y + origin.y) == 255
                #expect(pix[x, y] == (full ? 0 : before[y * w + x]))
                if full { cleared += 1 }
            }
        }
        #expect(cleared > 0)
    }

    /// A layer held in the caller's pixmap and kept as a sprite holds what the same layer
    /// ended onto a transparent pixmap of its size does, shadows and all.
    @Test func aLayerKeptInItsStorageIsTheLayerEndedOntoTransparency() {
        var rng = SeededRandom(seed: 77)
        let bounds = IntRect(x: 30, y: 20, width: 90, height: 70)
        let seed = rng.next()
        func draw(_ c: Canvas) {
            var r = SeededRandom(seed: seed)
            Self.content(c, &r, within: Rect(x: 55, y: 40, width: 40, height: 30))
            c.applyDropShadow(color: Color(r: 0, g: 0, b: 0, a: 0.4), sigma: 9, dx: 3, dy: 4)
        }
        let ended = Pixmap(width: bounds.width, height: bounds.height)
        do {
            let c = Canvas(ended)
            c.retarget(ended, origin: (bounds.x, bounds.y))
            c.beginLayer(deviceBounds: bounds)
            draw(c)
            c.endLayer()
        }
        let storage = Pixmap(width: bounds.width, height: bounds.height)
        let c = Canvas(storage)
        c.retarget(storage, origin: (bounds.x, bounds.y))
        c.beginLayer(deviceBounds: bounds, storage: storage)
        draw(c)
        let kept = c.endLayerAsSprite()
        #expect(kept.pixmap === storage && kept.origin == (bounds.x, bounds.y))
        #expect(Self.bytes(ended) == Self.bytes(storage))
    }

    /// A drop shadow blurred only around the layer's content (its ink, as far as the blur
    /// reaches, on the layer's block grid) puts the bytes the whole layer's blur puts, for
    /// full-resolution and reduced blurs (f = 1 … 4), offsets of either sign and content at the
    /// layer's edges.
    @Test(arguments: [2.5, 6.0, 9.6, 13.5, 17.0])
    func aShadowAroundTheContentIsTheWholeLayersShadow(sigma: Double) {
        let w = 173, h = 141
        let places: [(Rect, Int, Int)] = [
            (Rect(x: 60, y: 50, width: 30, height: 25), 3, 4),
            (Rect(x: 0, y: 3, width: 22, height: 40), -5, 2),
            (Rect(x: 140, y: 110, width: 33, height: 31), 6, -7),
            (Rect(x: 17, y: 61, width: 9, height: 5), 0, 0),
        ]
        for (i, (area, dx, dy)) in places.enumerated() {
            var rng = SeededRandom(seed: UInt64(i) &* 7919 &+ UInt64(sigma * 10))
            let whole = Pixmap(width: w, height: h), part = Pixmap(width: w, height: h)
            let seed = rng.next()
            // The content kept inside `ink`, as a layer's ink bounds what was drawn into it.
            let ink = area.roundedOut
            func drawContent(_ p: Pixmap) {
                var r = SeededRandom(seed: seed)
                let c = Canvas(p)
                c.clip = ink
                Self.content(c, &r, within: area)
            }
            for p in [whole, part] { drawContent(p) }
            var scratch: [Float] = []
            Canvas.castShadow(on: whole, color: Color(r: 0.1, g: 0, b: 0.2, a: 0.6), sigma: sigma, dx: dx, dy: dy,
                              scratch: &scratch)
            let changed = Canvas.castShadow(on: part, color: Color(r: 0.1, g: 0, b: 0.2, a: 0.6), sigma: sigma, dx: dx, dy: dy,
                                            content: ink, scratch: &scratch)
            #expect(Self.bytes(whole) == Self.bytes(part), "σ \(sigma), content \(area)")
            // The part was smaller than the layer where the layer leaves room around it.
            if i == 0 && sigma < 13 { #expect(changed.area < w * h) }
            // Outside what it reports, nothing changed.
            let before = Pixmap(width: w, height: h)
            drawContent(before)
            for y in 0..<h {
                for x in 0..<w where !(x >= changed.minX && x < changed.maxX && y >= changed.minY && y < changed.maxY) {
                    #expect(part[x, y] == before[x, y])
                }
            }
        }
    }
}
