import Testing
@testable import Raster
import RasterAVX2

/// The span kernels' two copies (Raster's `Blend`, the portable build, and `RasterAVX2.Blend`,
/// the same source compiled for x86-64-v3) give the same bytes for the same input, on random
/// rows of every length around the eight-pixel blocks. The AVX2 copy runs only on a CPU that
/// has it (elsewhere it would die of SIGILL, and the kiosk never picks it).
@Suite(.serialized) struct KernelDispatchTests {
    typealias Row = [UInt32]

    /// One span kernel under both copies: `run` gets the copy to call and a fresh destination row.
    struct Case {
        var name: String
        var run: (_ avx2: Bool, _ dst: UnsafeMutablePointer<UInt32>) -> Void
    }

    static func cases(n: Int, _ rng: inout SeededRandom) -> [Case] {
        let src = KernelEquivalenceTests.pixels(n, &rng), other = KernelEquivalenceTests.pixels(n, &rng)
        let cov = KernelEquivalenceTests.coverageRow(n, &rng), keys = KernelEquivalenceTests.coverageRow(n, &rng)
        let table = KernelEquivalenceTests.pixels(256, &rng)
        let color = KernelEquivalenceTests.pixel(&rng) | (rng.next() % 2 == 0 ? 0xFF00_0000 : 0)
        let k = UInt32(rng.next() % 3 == 0 ? 255 : rng.next() % 256), k2 = UInt32(rng.next() % 256)
        let floats = (0..<n).map { _ in Float(rng.next() % 1000) / 999 }
        // Each closure copies its inputs into stable buffers for the call.
        func with<R>(_ a: [UInt32], _ body: (UnsafePointer<UInt32>) -> R) -> R { a.withUnsafeBufferPointer { body($0.baseAddress!) } }
        func with<R>(_ a: [UInt8], _ body: (UnsafePointer<UInt8>) -> R) -> R { a.withUnsafeBufferPointer { body($0.baseAddress!) } }
        return [
            Case(name: "solidSpan") { v, d in with(cov) { c in v ? RasterAVX2.Blend.solidSpan(d, count: n, color: color, coverage: c)
                                                                : Raster.Blend.solidSpan(d, count: n, color: color, coverage: c) } },
            Case(name: "solidSpan, full coverage") { v, d in v ? RasterAVX2.Blend.solidSpan(d, count: n, color: color, coverage: nil)
                                                                : Raster.Blend.solidSpan(d, count: n, color: color, coverage: nil) },
            Case(name: "sourceSpan") { v, d in with(src) { s in with(cov) { c in
                v ? RasterAVX2.Blend.sourceSpan(d, count: n, source: s, coverage: c) : Raster.Blend.sourceSpan(d, count: n, source: s, coverage: c) } } },
            Case(name: "layerSpan") { v, d in with(src) { s in with(cov) { c in
                v ? RasterAVX2.Blend.layerSpan(d, source: s, count: n, opacity: k, mask: c)
                  : Raster.Blend.layerSpan(d, source: s, count: n, opacity: k, mask: c) } } },
            Case(name: "layerSpan with backdrop") { v, d in with(src) { s in with(cov) { c in
                v ? RasterAVX2.Blend.layerSpan(d, source: s, count: n, opacity: k, mask: c, backdrop: color)
                  : Raster.Blend.layerSpan(d, source: s, count: n, opacity: k, mask: c, backdrop: color) } } },
            Case(name: "layerPairSpan") { v, d in with(src) { a in with(other) { b in
                v ? RasterAVX2.Blend.layerPairSpan(d, a, opacity: k, b, opacity: k2, count: n)
                  : Raster.Blend.layerPairSpan(d, a, opacity: k, b, opacity: k2, count: n) } } },
            Case(name: "storeSpan") { v, d in with(src) { s in
                v ? RasterAVX2.Blend.storeSpan(d, source: s, count: n, opacity: k) : Raster.Blend.storeSpan(d, source: s, count: n, opacity: k) } },
            Case(name: "behindSpan") { v, d in with(src) { s in
                v ? RasterAVX2.Blend.behindSpan(d, source: s, count: n) : Raster.Blend.behindSpan(d, source: s, count: n) } },
            Case(name: "overColorSpan") { v, d in with(src) { s in
                v ? RasterAVX2.Blend.overColorSpan(d, source: s, count: n, color: color)
                  : Raster.Blend.overColorSpan(d, source: s, count: n, color: color) } },
            Case(name: "lerpSpan") { v, d in with(src) { a in with(other) { b in
                v ? RasterAVX2.Blend.lerpSpan(d, a, b, count: n, weight: k) : Raster.Blend.lerpSpan(d, a, b, count: n, weight: k) } } },
            Case(name: "maskSpan") { v, d in with(cov) { m in
                v ? RasterAVX2.Blend.maskSpan(d, mask: m, count: n) : Raster.Blend.maskSpan(d, mask: m, count: n) } },
            Case(name: "lookUpSpan") { v, d in with(keys) { kp in with(table) { t in
                v ? RasterAVX2.Blend.lookUpSpan(d, keys: kp, count: n, table: t) : Raster.Blend.lookUpSpan(d, keys: kp, count: n, table: t) } } },
            Case(name: "quantize (into the row's bytes)") { v, d in
                floats.withUnsafeBufferPointer { f in
                    d.withMemoryRebound(to: UInt8.self, capacity: n * 4) { bytes in
                        v ? RasterAVX2.Blend.quantize(f.baseAddress!, count: n, into: bytes)
                          : Raster.Blend.quantize(f.baseAddress!, count: n, into: bytes)
                    }
                }
            },
        ]
    }

    @Test(.enabled(if: Kernels.avx2Available, "this CPU has no AVX2: the second copy cannot run here"))
    func bothCopiesGiveTheSameBytesForEverySpan() {
        #expect(Kernels.choose(.baseline))
        defer { Kernels.choose(Kernels.best) }
        var rng = SeededRandom(seed: 2026)
        var compared = 0
        for n in Array(0...40) + [63, 64, 65, 127, 128, 129, 333, 1024] {
            for _ in 0..<6 {
                let dst0 = KernelEquivalenceTests.pixels(n, &rng)
                for c in Self.cases(n: n, &rng) {
                    var base = dst0, avx = dst0
                    base.withUnsafeMutableBufferPointer { c.run(false, $0.baseAddress!) }
                    avx.withUnsafeMutableBufferPointer { c.run(true, $0.baseAddress!) }
                    #expect(base == avx, "\(c.name), \(n) pixels: the AVX2 copy differs from the baseline")
                    compared += 1
                }
            }
        }
        #expect(compared == 49 * 6 * 13)
    }

    @Test func theChoiceFollowsTheCPU() {
        #expect(Kernels.best == (Kernels.avx2Available ? .avx2 : .baseline))
        #expect(Kernels.choose(.baseline))
        #expect(Kernels.level == .baseline)
        #expect(Kernels.choose(.avx2) == Kernels.avx2Available)
        #expect(Kernels.level == Kernels.best)
        Kernels.choose(Kernels.best)
    }
}
