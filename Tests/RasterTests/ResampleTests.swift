import Foundation
import Testing
@testable import Raster

/// Image scaling (Catmull-Rom, area-aware when shrinking), the cross-fade span kernel and the
/// PNG decoder's pixel limit.
@Suite struct ResampleTests {
    static func random(_ w: Int, _ h: Int, seed: UInt64, opaque: Bool = false) -> Pixmap {
        var rng = SeededRandom(seed: seed)
        let p = Pixmap(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let a = opaque ? 255 : UInt8(truncatingIfNeeded: rng.next())
                let c = StraightRGBA8(r: UInt8(truncatingIfNeeded: rng.next()), g: UInt8(truncatingIfNeeded: rng.next()),
                                      b: UInt8(truncatingIfNeeded: rng.next()), a: a)
                p[x, y] = c.premultiplied.packed
            }
        }
        return p
    }

    static func isValidPremultiplied(_ p: Pixmap) -> Bool {
        for y in 0..<p.height {
            for x in 0..<p.width {
                let c = p.color(x: x, y: y)
                if c.r > c.a || c.g > c.a || c.b > c.a { return false }
            }
        }
        return true
    }

    @Test func kernelIsCatmullRom() {
        #expect(Resample.catmullRom(0) == 1)
        #expect(Resample.catmullRom(1) == 0 && Resample.catmullRom(-1) == 0 && Resample.catmullRom(2) == 0)
        #expect(abs(Resample.catmullRom(0.5) - 0.5625) < 1e-12)
        #expect(abs(Resample.catmullRom(1.5) + 0.0625) < 1e-12)   // the negative lobe
        #expect(Resample.catmullRom(2.5) == 0)
    }

    /// The same size and the whole image: every output pixel is its source pixel, through
    /// the copy shortcut and through the filter (a source rectangle a hair away from whole).
    @Test func sameSizeIsIdentity() {
        let src = Self.random(23, 17, seed: 3)
        let out = Resample.scaled(src, source: Rect(x: 0, y: 0, width: 23, height: 17), width: 23, height: 17)
        for y in 0..<17 { for x in 0..<23 { #expect(out[x, y] == src[x, y]) } }
        let shifted = Self.random(23, 17, seed: 4)
        let filtered = Resample.scaled(shifted, source: Rect(x: 1, y: 0, width: 22, height: 17), width: 22, height: 17)
        for y in 0..<17 { for x in 0..<22 { #expect(filtered[x, y] == shifted[x + 1, y]) } }
    }

    /// A flat colour stays exactly that colour at any scale (weights sum to one).
    @Test(arguments: [(4, 3, 97, 41), (200, 120, 13, 9), (7, 7, 7, 30)])
    func flatColourStaysFlat(sw: Int, sh: Int, w: Int, h: Int) {
        let src = Pixmap(width: sw, height: sh)
        let c = StraightRGBA8(r: 201, g: 37, b: 90, a: 180).premultiplied.packed
        src.fill(src.bounds, with: c)
        let out = Resample.scaled(src, source: Rect(x: 0, y: 0, width: Double(sw), height: Double(sh)), width: w, height: h)
        for y in 0..<h { for x in 0..<w { #expect(out[x, y] == c) } }
    }

    /// Shrinking averages every source pixel in (area-aware): a one-pixel checkerboard of black
    /// and white shrunk 8× is mid-grey everywhere; a filter that only looked at the nearest
    /// pixels would alias into black or white.
    @Test func shrinkingAveragesInsteadOfAliasing() {
        let src = Pixmap(width: 256, height: 256)
        for y in 0..<256 { for x in 0..<256 { src[x, y] = (x + y) % 2 == 0 ? 0xFFFF_FFFF : 0xFF00_0000 } }
        let out = Resample.scaled(src, source: Rect(x: 0, y: 0, width: 256, height: 256), width: 32, height: 32)
        for y in 0..<32 {
            for x in 0..<32 {
                let c = out.color(x: x, y: y)
                #expect(c.a == 255 && abs(Int(c.r) - 128) <= 2, "(\(x), \(y)): \(c)")
            }
        }
    }

    /// Enlarging interpolates: between a black and a white pixel the values rise monotonically
    /// through grey, and the original samples are kept where the centres line up.
    @Test func enlargingInterpolatesSmoothly() {
        let src = Pixmap(width: 2, height: 1)
        src[0, 0] = 0xFF00_0000; src[1, 0] = 0xFFFF_FFFF
        let out = Resample.scaled(src, source: Rect(x: 0, y: 0, width: 2, height: 1), width: 16, height: 1)
        let row = (0..<16).map { Int(out.color(x: $0, y: 0).r) }
        #expect(row.first! == 0 && row.last! == 255)
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "\(row)")
        #expect(row.contains { $0 > 60 && $0 < 200 }, "\(row)")   // real in-between values, not nearest
    }

    /// A sub-rectangle (a cover crop) samples only that part, and positions are exact: the
    /// right half of a half-red, half-blue image at its own size is all blue.
    @Test func sourceRectangleSelectsThePart() {
        let src = Pixmap(width: 20, height: 10)
        for y in 0..<10 { for x in 0..<20 { src[x, y] = x < 10 ? 0xFF00_00FF : 0xFFFF_0000 } }
        let out = Resample.scaled(src, source: Rect(x: 10, y: 0, width: 10, height: 10), width: 10, height: 10)
        for y in 0..<10 { for x in 0..<10 { #expect(out[x, y] == 0xFFFF_0000) } }
        // Reaching outside the image repeats the edge.
        let edge = Resample.scaled(src, source: Rect(x: -5, y: -5, width: 5, height: 5), width: 3, height: 3)
        for y in 0..<3 { for x in 0..<3 { #expect(edge[x, y] == 0xFF00_00FF) } }
    }

    /// Transparent pixels carry no colour into their neighbours (filtering premultiplied), and
    /// every output is valid premultiplied RGBA despite the cubic's overshoot.
    @Test func premultipliedStaysValid() {
        let src = Pixmap(width: 8, height: 1)
        for x in 0..<8 { src[x, 0] = x < 4 ? 0 : 0xFF00_FF00 }   // transparent | opaque green
        let out = Resample.scaled(src, source: Rect(x: 0, y: 0, width: 8, height: 1), width: 40, height: 1)
        for x in 0..<40 {
            let c = out.color(x: x, y: 0)
            #expect(c.r == 0 && c.b == 0, "no colour from the transparent side at \(x): \(c)")
        }
        for seed in 1...3 as ClosedRange<UInt64> {
            let r = Self.random(31, 19, seed: seed)
            #expect(Self.isValidPremultiplied(Resample.scaled(r, source: Rect(x: 1.3, y: 0.7, width: 20.5, height: 11), width: 77, height: 45)))
            #expect(Self.isValidPremultiplied(Resample.scaled(r, source: Rect(x: 0, y: 0, width: 31, height: 19), width: 9, height: 5)))
        }
    }

    @Test func lerpSpanCrossFades() {
        let a = Self.random(64, 1, seed: 11), b = Self.random(64, 1, seed: 12)
        let out = Pixmap(width: 64, height: 1)
        Blend.lerpSpan(out.pixels, a.pixels, b.pixels, count: 64, weight: 0)
        for x in 0..<64 { #expect(out[x, 0] == a[x, 0]) }
        Blend.lerpSpan(out.pixels, a.pixels, b.pixels, count: 64, weight: 256)
        for x in 0..<64 { #expect(out[x, 0] == b[x, 0]) }
        for w in [1, 77, 128, 200, 255] as [UInt32] {
            Blend.lerpSpan(out.pixels, a.pixels, b.pixels, count: 64, weight: w)
            #expect(Self.isValidPremultiplied(out))
            for x in 0..<64 {
                let p = out.color(x: x, y: 0), pa = a.color(x: x, y: 0), pb = b.color(x: x, y: 0)
                for (o, u, v) in [(p.r, pa.r, pb.r), (p.g, pa.g, pb.g), (p.b, pa.b, pb.b), (p.a, pa.a, pb.a)] {
                    let exact = (Double(u) * Double(256 - w) + Double(v) * Double(w)) / 256
                    #expect(abs(Double(o) - exact) < 1, "weight \(w) at \(x): \(o) vs \(exact)")
                }
            }
        }
    }

    /// Decoding writes straight into the pixmap and premultiplies in place: the same pixels
    /// as premultiplying the straight bytes the file holds (translucent and opaque pixels).
    @Test func pngDecodePremultipliesLikeTheStraightPath() throws {
        let p = Self.random(57, 31, seed: 9)
        let decoded = try PNG.decode(PNG.encode(p))
        let expected = Pixmap(width: 57, height: 31, straightRGBA: p.straightRGBABytes())
        for y in 0..<31 { for x in 0..<57 { #expect(decoded[x, y] == expected[x, y], "(\(x), \(y))") } }
        #expect((0..<57).contains { p.color(x: $0, y: 0).a != 255 && p.color(x: $0, y: 0).a != 0 })
    }

    @Test func pngDecodeRefusesTooManyPixelsBeforeDecoding() throws {
        let p = Self.random(40, 30, seed: 5)
        let bytes = try PNG.encode(p)
        #expect(Array(bytes.prefix(8)) == PNG.signature)
        #expect(try PNG.decode(bytes, maxPixels: 1200).width == 40)
        do {
            _ = try PNG.decode(bytes, maxPixels: 1199)
            Issue.record("a 40x30 image passed a limit of 1199 pixels")
        } catch {
            #expect("\(error)".contains("40x30"), "\(error)")
        }
    }
}
