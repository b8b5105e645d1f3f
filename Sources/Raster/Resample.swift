/// Image scaling for premultiplied pixmaps: a separable Catmull-Rom cubic (Keys, a = −½),
/// widened by the reduction factor when shrinking so every source pixel contributes (an
/// area-aware filter; no aliasing from skipped pixels), clamp-to-edge outside the image.
/// Filtering premultiplied values keeps transparent pixels from bleeding colour. The cubic's
/// small negative lobes can overshoot at hard edges; results are clamped to 0…255 and colour to
/// at most alpha, so the output is always valid premultiplied RGBA.
///
/// Work is one horizontal pass per source row the output needs (kept in a ring of as many rows
/// as the vertical filter has taps) and one vertical pass per output row: memory beyond the
/// output is a few rows, whatever the sizes.
public enum Resample {
    /// The Catmull-Rom kernel at distance `x` (support 2).
    @inlinable
    public static func catmullRom(_ x: Double) -> Double {
        let t = abs(x)
        if t < 1 { return (1.5 * t - 2.5) * t * t + 1 }
        if t < 2 { return ((-0.5 * t + 2.5) * t - 4) * t + 2 }
        return 0
    }

    /// Filter taps along one axis: for output sample i, source indices `first[i] ..< first[i] + count[i]`
    /// with weights `weights[i * stride ..< i * stride + count[i]]` (normalised, summing to 1).
    struct Taps {
        var first: [Int]
        var count: [Int]
        var weights: [Float]
        var stride: Int

        /// `n` output samples covering source interval [start, start + length) of an axis of
        /// `sourceSize` pixels.
        init(n: Int, start: Double, length: Double, sourceSize: Int) {
            let scale = Double(n) / length                  // output samples per source pixel
            let widen = max(1, 1 / scale)                   // kernel stretch when shrinking
            let radius = 2 * widen
            stride = Int((2 * radius).rounded(.up)) + 2
            first = [Int](repeating: 0, count: n)
            count = [Int](repeating: 0, count: n)
            weights = [Float](repeating: 0, count: n * stride)
            var w = [Double](repeating: 0, count: stride)
            for i in 0..<n {
                // Centre of output sample i in source index space (pixel j's centre is at j).
                let u = start + (Double(i) + 0.5) / scale - 0.5
                let lo = Int((u - radius).rounded(.down)) + 1, hi = Int((u + radius).rounded(.down))
                // Clamp-to-edge: weights of indices outside fold onto the edge pixels, so the
                // taps stay one contiguous, duplicate-free run.
                let a = min(max(lo, 0), sourceSize - 1), b = min(max(hi, 0), sourceSize - 1)
                let m = b - a + 1
                for k in 0..<m { w[k] = 0 }
                var total = 0.0
                for j in lo...max(lo, hi) {
                    let k = kernelWeight(Double(j) - u, widen)
                    w[min(max(j, 0), sourceSize - 1) - a] += k
                    total += k
                }
                // Taps of weight exactly zero at either end (the kernel's zeros at whole
                // distances, e.g. every tap but one at scale 1) are dropped: same result, less work.
                var lo0 = 0, hi0 = m - 1
                while lo0 < hi0 && w[lo0] == 0 { lo0 += 1 }
                while hi0 > lo0 && w[hi0] == 0 { hi0 -= 1 }
                first[i] = a + lo0
                count[i] = hi0 - lo0 + 1
                for k in lo0...hi0 { weights[i * stride + k - lo0] = Float(total != 0 ? w[k] / total : (k == lo0 ? 1 : 0)) }
            }
        }

        private func kernelWeight(_ d: Double, _ widen: Double) -> Double { Resample.catmullRom(d / widen) }
    }

    /// Scales the part `source` (a rectangle in `image`'s pixels, fractional allowed; it may
    /// reach outside, which repeats the edge pixels) to a new `width × height` pixmap.
    public static func scaled(_ image: Pixmap, source: Rect, width: Int, height: Int) -> Pixmap {
        // The whole image at its own size: every output pixel is its source pixel (what the
        // filter gives there too, exactly), so copy.
        if source == Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height)),
           width == image.width, height == image.height {
            return image.clone()
        }
        let out = Pixmap(width: width, height: height)
        guard width > 0, height > 0, image.width > 0, image.height > 0, source.width > 0, source.height > 0 else { return out }
        let hx = Taps(n: width, start: source.minX, length: source.width, sourceSize: image.width)
        let vy = Taps(n: height, start: source.minY, length: source.height, sourceSize: image.height)
        let ringRows = max(1, vy.count.max() ?? 1)
        var ring = [SIMD4<Float>](repeating: .zero, count: ringRows * width)
        var ringSource = [Int](repeating: -1, count: ringRows)
        var column = [SIMD4<Float>](repeating: .zero, count: width)
        ring.withUnsafeMutableBufferPointer { ringBuf in
            column.withUnsafeMutableBufferPointer { colBuf in
                hx.weights.withUnsafeBufferPointer { hw in
                    vy.weights.withUnsafeBufferPointer { vw in
                        let rows = ringBuf.baseAddress!, acc = colBuf.baseAddress!
                        /// Source row j filtered horizontally, in its ring slot.
                        func horizontal(_ j: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
                            let slot = j % ringRows
                            let dst = rows + slot * width
                            if ringSource[slot] == j { return dst }
                            ringSource[slot] = j
                            let src = image.pixels + j * image.stride
                            for x in 0..<width {
                                let f = hx.first[x], n = hx.count[x], base = x &* hx.stride
                                var sum = SIMD4<Float>.zero
                                for k in 0..<n { sum += unpack(src[f &+ k]) * hw[base &+ k] }
                                dst[x] = sum
                            }
                            return dst
                        }
                        for y in 0..<height {
                            let f = vy.first[y], n = vy.count[y], base = y &* vy.stride
                            acc.update(repeating: .zero, count: width)
                            for k in 0..<n {
                                let row = horizontal(f &+ k), wk = vw[base &+ k]
                                for x in 0..<width { acc[x] += row[x] * wk }
                            }
                            let dst = out.pixels + y * out.stride
                            for x in 0..<width { dst[x] = pack(acc[x]) }
                        }
                    }
                }
            }
        }
        return out
    }

    @inline(__always)
    static func unpack(_ p: UInt32) -> SIMD4<Float> {
        SIMD4<Float>(Float(p & 0xFF), Float((p &>> 8) & 0xFF), Float((p &>> 16) & 0xFF), Float(p &>> 24))
    }

    /// Rounds, clamps to 0…255 and keeps colour ≤ alpha.
    @inline(__always)
    static func pack(_ v: SIMD4<Float>) -> UInt32 {
        let c = (v + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4<Float>(repeating: 255))
        let a = UInt32(c.w)
        let r = min(UInt32(c.x), a), g = min(UInt32(c.y), a), b = min(UInt32(c.z), a)
        return r | g &<< 8 | b &<< 16 | a &<< 24
    }
}
