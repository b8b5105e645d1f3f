import Foundation
import Testing
@testable import Raster
import RasterReference

/// The optimised kernels against the scalar pre-optimisation versions (the test-only
/// `RasterReference` target, which shares no code with Raster): identical bytes (and
/// identical float bits for the blur) on random inputs.
@Suite struct KernelEquivalenceTests {
    /// A coverage row made of runs: zeros, full 255s and random partial values, with run
    /// lengths that straddle the 8-byte words the span kernels read.
    static func coverageRow(_ n: Int, _ rng: inout SeededRandom) -> [UInt8] {
        var row: [UInt8] = []
        while row.count < n {
            let length = Int(rng.next() % 40) + 1
            switch rng.next() % 4 {
            case 0: row += [UInt8](repeating: 0, count: length)
            case 1, 2: row += [UInt8](repeating: 255, count: length)
            default: for _ in 0..<length { row.append(UInt8(truncatingIfNeeded: rng.next())) }
            }
        }
        return Array(row.prefix(n))
    }

    /// A random premultiplied pixel; a quarter of them transparent, a quarter opaque.
    static func pixel(_ rng: inout SeededRandom) -> UInt32 {
        let a: UInt32
        switch rng.next() % 4 {
        case 0: return 0
        case 1: a = 255
        default: a = UInt32(rng.next() % 256)
        }
        func channel() -> UInt32 { a == 0 ? 0 : UInt32(rng.next() % UInt64(a + 1)) }
        return channel() | channel() << 8 | channel() << 16 | a << 24
    }

    static func pixels(_ n: Int, _ rng: inout SeededRandom) -> [UInt32] { (0..<n).map { _ in pixel(&rng) } }

    /// `behindSpan` (a shadow's tints under content, in lanes) and `lookUpSpan` (a table by
    /// 8-bit key, runs of one key written at once) against the scalar reference, on rows whose
    /// lengths straddle the four-pixel lanes and the eight-byte words.
    @Test func behindAndLookUpSpansMatchTheReference() {
        var rng = SeededRandom(seed: 29)
        let table = Self.pixels(256, &rng)
        for n in [1, 3, 4, 7, 8, 9, 31, 64, 131] {
            let content = Self.pixels(n, &rng), under = Self.pixels(n, &rng)
            var got = content
            under.withUnsafeBufferPointer { u in got.withUnsafeMutableBufferPointer { Blend.behindSpan($0.baseAddress!, source: u.baseAddress!, count: n) } }
            #expect(got == zip(content, under).map { ReferenceBlend.over($0, $1) }, "behind, n=\(n)")
            let keys = Self.coverageRow(n, &rng)
            var looked = [UInt32](repeating: 7, count: n)
            keys.withUnsafeBufferPointer { k in table.withUnsafeBufferPointer { t in looked.withUnsafeMutableBufferPointer {
                Blend.lookUpSpan($0.baseAddress!, keys: k.baseAddress!, count: n, table: t.baseAddress!)
            } } }
            #expect(looked == keys.map { table[Int($0)] }, "look-up, n=\(n)")
        }
    }

    @Test func overScaledMatchesTheReferenceOnEveryCoverage() {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<20_000 {
            let s = Self.pixel(&rng), d = Self.pixel(&rng), k = UInt32(rng.next() % 256)
            #expect(Blend.overScaled(s, k, d) == ReferenceBlend.overScaled(s, k, d))
        }
    }

    @Test(arguments: [0 as UInt64, 1, 2, 3, 4, 5, 6, 7])
    func spansMatchTheReference(seed: UInt64) {
        var rng = SeededRandom(seed: 100 + seed)
        for _ in 0..<60 {
            let n = Int(rng.next() % 150)
            let dst0 = Self.pixels(n, &rng), src = Self.pixels(n, &rng)
            let cov = Self.coverageRow(n, &rng)
            let color = Self.pixel(&rng) | (seed % 2 == 0 ? 0xFF00_0000 : 0)   // opaque for even seeds
            let opacity = UInt32(rng.next() % 3 == 0 ? 255 : rng.next() % 256)
            for useCoverage in [true, false] {
                var a = dst0, b = dst0
                cov.withUnsafeBufferPointer { c in
                    let cp = useCoverage ? c.baseAddress : nil
                    a.withUnsafeMutableBufferPointer { Blend.solidSpan($0.baseAddress!, count: n, color: color, coverage: cp) }
                    b.withUnsafeMutableBufferPointer { ReferenceBlend.solidSpan($0.baseAddress!, count: n, color: color, coverage: cp) }
                    #expect(a == b, "solidSpan n=\(n) coverage=\(useCoverage)")
                    a = dst0; b = dst0
                    src.withUnsafeBufferPointer { s in
                        a.withUnsafeMutableBufferPointer { Blend.sourceSpan($0.baseAddress!, count: n, source: s.baseAddress!, coverage: cp) }
                        b.withUnsafeMutableBufferPointer { ReferenceBlend.sourceSpan($0.baseAddress!, count: n, source: s.baseAddress!, coverage: cp) }
                        #expect(a == b, "sourceSpan n=\(n) coverage=\(useCoverage)")
                        a = dst0; b = dst0
                        a.withUnsafeMutableBufferPointer { Blend.layerSpan($0.baseAddress!, source: s.baseAddress!, count: n, opacity: opacity, mask: cp) }
                        b.withUnsafeMutableBufferPointer { ReferenceBlend.layerSpan($0.baseAddress!, source: s.baseAddress!, count: n, opacity: opacity, mask: cp) }
                        #expect(a == b, "layerSpan n=\(n) opacity=\(opacity) mask=\(useCoverage)")
                    }
                }
            }
        }
    }

    /// Every span the rasterizer reports, flattened to (y, x, coverage bytes).
    static func spans(_ fill: ((Int, Int, Int, UnsafePointer<UInt8>) -> Void) -> Void) -> [[Int]] {
        var out: [[Int]] = []
        fill { y, x, n, cov in out.append([y, x] + (0..<n).map { Int(cov[$0]) }) }
        return out
    }

    static func randomPath(_ rng: inout SeededRandom) -> Path {
        var p = Path()
        for _ in 0..<Int(rng.next() % 3) + 1 {
            switch rng.next() % 4 {
            case 0: p.append(.circle(center: Point(rng.range(-20, 220), rng.range(-20, 160)), radius: rng.range(0.3, 120)))
            case 1: p.append(.roundedRect(Rect(x: rng.range(-30, 150), y: rng.range(-30, 100), width: rng.range(1, 200),
                                               height: rng.range(1, 120)), radius: rng.range(0, 40), style: .continuous))
            case 2: p.append(.star(center: Point(rng.range(0, 200), rng.range(0, 140)), points: Int(rng.next() % 7) + 3,
                                   outerRadius: rng.range(5, 90), innerRadius: rng.range(2, 40)))
            default: p.append(.polygon((0..<Int(rng.next() % 8 + 3)).map { _ in Point(rng.range(-40, 240), rng.range(-40, 180)) }))
            }
        }
        return p
    }

    @Test(arguments: [FillRule.nonZero, .evenOdd])
    func rasterizerMatchesTheReference(rule: FillRule) {
        var rng = SeededRandom(seed: rule == .nonZero ? 7 : 8)
        let optimised = Rasterizer(), reference = ReferenceRasterizer()
        for round in 0..<150 {
            let path = Self.randomPath(&rng)
            let transform = round % 3 == 0 ? Transform.identity
                : Transform(a: rng.range(0.5, 1.5), b: rng.range(-0.4, 0.4), c: rng.range(-0.4, 0.4), d: rng.range(0.5, 1.5),
                            tx: rng.range(-10, 10), ty: rng.range(-10, 10))
            let clip = IntRect(x: Int(rng.next() % 20), y: Int(rng.next() % 20), width: 180 + Int(rng.next() % 60),
                               height: 120 + Int(rng.next() % 40))
            let a = Self.spans { optimised.fill(path, transform: transform, rule: rule, clip: clip, span: $0) }
            // The reference scan-converts the same flattened edges (it has no paths of its own).
            var edges: [Edge] = []
            Flattener.edges(of: path, transform: transform, tolerance: Flattener.defaultTolerance, into: &edges)
            let b = Self.spans {
                reference.fill(edges: edges.map { ReferenceEdge($0.x0, $0.y0, $0.x1, $0.y1) },
                               rule: rule == .nonZero ? .nonZero : .evenOdd,
                               clip: ReferenceRect(x: clip.x, y: clip.y, width: clip.width, height: clip.height), span: $0)
            }
            #expect(a == b, "round \(round)")
        }
    }

    @Test(arguments: [0.7, 3.2, 4.0, 7.9, 8.0, 10.0, 13.5, 21.06, 26.0])
    func blurMatchesTheReferenceBitForBit(sigma: Double) {
        var rng = SeededRandom(seed: UInt64(sigma * 100))
        for (w, h) in [(97, 61), (120, 80), (33, 131)] {
            let plane = (0..<(w * h)).map { _ in rng.next() % 3 == 0 ? 0 : Float(rng.unit()) }
            var a = plane, b = plane
            var scratchA: [Float] = [], scratchB: [Float] = []
            a.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchA) }
            b.withUnsafeMutableBufferPointer { ReferenceBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchB) }
            #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "sigma \(sigma) \(w)x\(h)")
        }
    }

    /// Planes like a shadow's: flat zero around shapes, flat values inside them (one, and
    /// other values), edges on and off the 16-output blocks the blur fills when flat, rows and
    /// columns that are flat for part of a window, and a little noise. Random planes (above)
    /// are rarely flat; these are mostly flat, so they test the filled blocks.
    @Test(arguments: [0.7, 3.2, 7.9, 8.0, 8.42, 13.5, 21.06, 35.2])
    func blurOfFlatRegionsMatchesTheReferenceBitForBit(sigma: Double) {
        var rng = SeededRandom(seed: UInt64(sigma * 1000) + 5)
        for (w, h) in [(160, 96), (203, 131), (47, 300), (16, 16), (33, 40)] {
            var plane = [Float](repeating: 0, count: w * h)
            // Rectangles of one value, some overlapping, some touching block boundaries.
            for _ in 0..<6 {
                let x0 = Int(rng.next() % UInt64(w)), y0 = Int(rng.next() % UInt64(h))
                let x1 = min(w, x0 + 1 + Int(rng.next() % UInt64(w))), y1 = min(h, y0 + 1 + Int(rng.next() % UInt64(h)))
                let v: Float = [1, 1, 0.5, Float(rng.unit()), 0][Int(rng.next() % 5)]
                for y in y0..<y1 { for x in x0..<x1 { plane[y * w + x] = v } }
            }
            // A disc's coverage (anti-aliased rim, flat inside).
            let grid = coverageGrid(Path.circle(center: Point(Double(w) * 0.6, Double(h) * 0.4), radius: Double(min(w, h)) * 0.3),
                                    width: w, height: h)
            for i in 0..<(w * h) where grid[i] > 0 { plane[i] = Float(grid[i]) * (1 / 255) }
            // A few lone values.
            for _ in 0..<3 { plane[Int(rng.next() % UInt64(w * h))] = Float(rng.unit()) }
            var a = plane, b = plane
            var scratchA: [Float] = [], scratchB: [Float] = []
            a.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchA) }
            b.withUnsafeMutableBufferPointer { ReferenceBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchB) }
            #expect(Self.firstBitDifference(a, b) == nil, "sigma \(sigma) \(w)x\(h)")
            // All zero stays all zero; one value everywhere blurs as the reference does too.
            for fill: Float in [0, 0.75] {
                var c = [Float](repeating: fill, count: w * h), d = c
                c.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchA) }
                d.withUnsafeMutableBufferPointer { ReferenceBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratchB) }
                #expect(Self.firstBitDifference(c, d) == nil, "sigma \(sigma) \(w)x\(h) filled with \(fill)")
            }
        }
    }

    /// The blur of a plane given by rows (`load`/`store`, no full-size plane at reduced
    /// resolution) against the reference on the whole plane: the same bits in every stored row,
    /// only the rows asked for, in order, after every row is loaded. The loads write only the
    /// columns a shape spans (the rest of the row buffer is what the previous load left, zeros
    /// at first) and report rows of zeros, as the shadows' loads do.
    @Test(arguments: [0.7, 3.2, 7.9, 8.0, 10.0, 13.5, 21.06, 35.2])
    func blurByRowsMatchesTheReferenceBitForBit(sigma: Double) {
        var rng = SeededRandom(seed: UInt64(sigma * 1000) + 11)
        for (w, h) in [(160, 96), (203, 131), (47, 300), (16, 16)] {
            // Values in columns x0..<x1 of rows y0..<y1, zero elsewhere.
            let x0 = Int(rng.next() % UInt64(w / 3)), x1 = w - Int(rng.next() % UInt64(w / 3))
            let y0 = Int(rng.next() % UInt64(h / 3)), y1 = h - Int(rng.next() % UInt64(h / 3))
            var plane = [Float](repeating: 0, count: w * h)
            for y in y0..<y1 where y % 7 != 3 {        // some rows inside stay zero too
                for x in x0..<x1 { plane[y * w + x] = rng.next() % 4 == 0 ? 1 : Float(rng.unit()) }
            }
            var want = plane, scratch: [Float] = [], reference: [Float] = []
            want.withUnsafeMutableBufferPointer { ReferenceBlur.blur($0.baseAddress!, width: w, height: h, sigma: sigma, scratch: &reference) }
            for rows in [0..<h, (h / 4)..<(h * 3 / 4), (h - 1)..<(h + 5)] {
                var got = [Float](repeating: -1, count: w * h), loaded = 0, stored: [Int] = []
                GaussianBlur.blur(width: w, height: h, sigma: sigma, scratch: &scratch, outputRows: rows, load: { y, row in
                    #expect(y == loaded && stored.isEmpty)
                    loaded += 1
                    guard y >= y0 && y < y1 && y % 7 != 3 else { return false }
                    for x in x0..<x1 { row[x] = plane[y * w + x] }
                    return true
                }, store: { y, row in
                    stored.append(y)
                    for x in 0..<w { got[y * w + x] = row[x] }
                })
                let expected = Array(rows.clamped(to: 0..<h))
                #expect(loaded == h && stored == expected, "sigma \(sigma) \(w)x\(h) rows \(rows)")
                let a = expected.flatMap { y in got[(y * w)..<(y * w + w)] }, b = expected.flatMap { y in want[(y * w)..<(y * w + w)] }
                #expect(Self.firstBitDifference(a, b) == nil, "sigma \(sigma) \(w)x\(h) rows \(rows)")
            }
        }
    }

    /// The first index where two planes' float bits differ, with both values; nil if none.
    static func firstBitDifference(_ a: [Float], _ b: [Float]) -> (index: Int, got: Float, want: Float)? {
        guard let i = a.indices.first(where: { a[$0].bitPattern != b[$0].bitPattern }) else { return nil }
        return (i, a[i], b[i])
    }
}

/// The block kernels (16-bit lanes) against the scalar `scale` and `over` they stand for.
@Suite struct LaneKernelTests {
    @Test func mulDiv255RoundsAsScaleForEveryChannelAndFactor() {
        for k in 0...255 {
            for c0 in stride(from: 0, through: 255, by: 16) {
                let c = Blend.Lanes((0..<16).map { UInt16(c0 + $0) })
                let got = Blend.mulDiv255(c, Blend.Lanes(repeating: UInt16(k)))
                for j in 0..<16 {
                    // `scale` of a pixel whose red channel is c: its red channel.
                    #expect(UInt32(got[j]) == Blend.scale(UInt32(c0 + j), UInt32(k)) & 0xFF, "c=\(c0 + j) k=\(k)")
                }
            }
        }
    }

    @Test func floorDiv255IsTheQuotientForEveryLaneValueItTakes() {
        for t0 in stride(from: 0, through: 65152, by: 16) {
            let t = Blend.Lanes((0..<16).map { UInt16(min(t0 + $0, 65152)) })
            let q = Blend.floorDiv255(t)
            for j in 0..<16 where q[j] != t[j] / 255 {
                Issue.record("t=\(t[j]): \(q[j]) instead of \(t[j] / 255)")
            }
        }
    }

    /// Every channel value of an opaque colour, every coverage, every backdrop value.
    @Test func opaqueSolidBlockMatchesPartialSolidEverywhere() {
        var got = [UInt32](repeating: 0, count: 8), want = got
        for s in 0..<256 {
            let color = 0xFF00_0000 | UInt32(s) | UInt32(255 - s) << 8 | UInt32((s &* 7) & 255) << 16
            let lanes = Blend.lanes(Blend.Pixels(repeating: color))
            for k in 0..<256 {
                let coverage = [UInt8](repeating: UInt8(k), count: 8)
                for d0 in stride(from: 0, to: 256, by: 8) {
                    for j in 0..<8 {
                        let d = UInt32(d0 + j)
                        got[j] = d | (255 - d) << 8 | ((d &* 3) & 255) << 16 | ((d &* 5) & 255) << 24
                    }
                    want = got
                    for j in 0..<8 { Blend.partialSolid(&want[j], color: color, coverage: UInt32(k)) }
                    coverage.withUnsafeBufferPointer { Blend.opaqueSolidBlock(&got, color: lanes, coverage: $0.baseAddress!) }
                    if got != want {
                        Issue.record("color \(String(color, radix: 16)) coverage \(k) backdrop from \(d0): \(got) instead of \(want)")
                        return
                    }
                }
            }
        }
    }

    @Test func blockOverAndScaledOverMatchTheScalarKernels() {
        var rng = SeededRandom(seed: 29)
        for round in 0..<20_000 {
            // Any words, premultiplied or not (the scalar kernels' word sums carry over lanes).
            func word() -> UInt32 { round % 2 == 0 ? KernelEquivalenceTests.pixel(&rng) : UInt32(truncatingIfNeeded: rng.next()) }
            let s = Blend.Pixels((0..<Blend.blockWidth).map { _ in word() }), d = Blend.Pixels((0..<Blend.blockWidth).map { _ in word() })
            let k = UInt32(rng.next() % 256)
            let over = Blend.overBlock(s, d), scaled = Blend.scaledOverBlock(s, Blend.Lanes(repeating: UInt16(k)), d)
            for j in 0..<Blend.blockWidth {
                #expect(over[j] == Blend.over(s[j], d[j]))
                #expect(scaled[j] == Blend.over(Blend.scale(s[j], k), d[j]))
            }
        }
    }
}
