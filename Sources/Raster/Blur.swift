#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Gaussian blur of single-channel float planes, accurate to the true Gaussian.
///
/// Box-filter cascades were measured and rejected: even with exact variance (extended boxes)
/// three passes miss a blurred disc's peak by ~5 % (up to 6/255 at the sun's σ ≈ 21 px) and
/// five passes still by 3/255, because a sum of boxes is flatter-topped than a Gaussian.
/// Instead this is the real thing, made cheap:
/// - σ < 4: a sampled, normalised Gaussian kernel (radius ⌈3.5σ⌉), separable, at full size;
/// - σ ≥ 4: the plane is averaged down by f = ⌊σ/4⌋ in each axis (f×f blocks), blurred there
///   with a true Gaussian of the remaining variance (σ² minus what block averaging and bilinear
///   reconstruction add, (f²−1)/12 and (f²−1)/6 per axis), and read back with bilinear
///   interpolation. The low-resolution σ stays ≥ 4 px, where the blurred field is smooth enough
///   that reconstruction errs far below 1/255; the kernel stays ≤ 29 taps, so cost is a few
///   multiply-adds per output pixel whatever σ is.
/// The tests compare against a double-precision Gaussian convolution: within 2/255 everywhere.
public enum GaussianBlur {
    static let downsampleSigma = 4.0
    static let kernelReach = 3.5

    /// Blurs `plane` (row-major, `width × height`) in place; values outside are taken as zero.
    /// `scratch` is reused between calls.
    public static func blur(_ plane: UnsafeMutablePointer<Float>, width: Int, height: Int, sigma: Double,
                            scratch: inout [Float]) {
        guard sigma > 0, width > 0, height > 0 else { return }
        let f = factor(sigma: sigma)
        if f == 1 {
            let kernel = gaussianKernel(sigma)
            ensure(&scratch, width * height + width + 2 * kernel.count)
            scratch.withUnsafeMutableBufferPointer { s in
                separable(plane, width: width, height: height, kernel: kernel, scratch: s.baseAddress!)
            }
            return
        }
        reduced(width: width, height: height, sigma: sigma, factor: f, scratch: &scratch, outputRows: 0..<height,
                load: { y, low in downsample(row: plane + y * width, width: width, factor: f, into: low) },
                destination: { plane + $0 * width }, store: { _, _ in })
    }

    /// Blurs a plane that exists only as rows, so that no full-size float plane is made when the
    /// blur runs at reduced resolution (σ ≥ 8): `load(y, row)` puts input row `y` (`width`
    /// values) into `row` and returns false instead when the row is all zeros; `row` holds what
    /// the previous call left there (zeros before the first), so a caller that writes the same
    /// columns every time need not clear the rest. `store(y, row)` is then handed the blurred
    /// row `y`, for each `y` in `outputRows`, in order; every `load` comes before the first
    /// `store`. The values are the ones `blur(_:width:height:sigma:scratch:)` leaves in a
    /// plane of the loaded rows, bit for bit.
    ///
    /// `origin` places the plane inside a larger one (its top-left there, on that plane's f×f
    /// block grid: multiples of `factor(sigma:)`), whose blocks and reconstruction positions the
    /// blur then uses. A part cut from a plane that holds every non-zero input of the plane and
    /// reaches `reach(sigma:)` beyond them on each side (or to the plane's edge) gets, bit for
    /// bit, the values blurring the whole plane puts there; everywhere else those are 0.
    public static func blur(width: Int, height: Int, sigma: Double, scratch: inout [Float], outputRows: Range<Int>,
                            origin: (x: Int, y: Int) = (0, 0),
                            load: (_ y: Int, _ row: UnsafeMutablePointer<Float>) -> Bool,
                            store: (_ y: Int, _ row: UnsafePointer<Float>) -> Void) {
        guard width > 0, height > 0 else { return }
        let rows = outputRows.clamped(to: 0..<height)
        let f = factor(sigma: sigma)
        if sigma <= 0 || f == 1 {
            // A whole plane: the full-size convolution needs every row at once.
            let kernel = sigma > 0 ? gaussianKernel(sigma) : []
            ensure(&scratch, width * height * 2 + width + 2 * kernel.count)
            scratch.withUnsafeMutableBufferPointer { s in
                let plane = s.baseAddress!
                plane.update(repeating: 0, count: width)
                for y in 0..<height {
                    let row = plane + y * width
                    if y > 0 { row.update(from: row - width, count: width) }
                    if !load(y, row) { row.update(repeating: 0, count: width) }
                }
                if sigma > 0 {
                    separable(plane, width: width, height: height, kernel: kernel, scratch: plane + width * height)
                }
                for y in rows { store(y, plane + y * width) }
            }
            return
        }
        let row = UnsafeMutablePointer<Float>.allocate(capacity: width)
        defer { row.deallocate() }
        row.update(repeating: 0, count: width)
        precondition(origin.x % f == 0 && origin.y % f == 0, "GaussianBlur.blur: origin off the \(f)x\(f) block grid")
        reduced(width: width, height: height, sigma: sigma, factor: f, scratch: &scratch, outputRows: rows, origin: origin,
                load: { y, low in
                    if load(y, row) { downsample(row: row, width: width, factor: f, into: low) }
                },
                destination: { _ in row }, store: { y, out in store(y, out) })
    }

    /// The block size of the reduced-resolution blur for `sigma` (1: full resolution).
    public static func factor(sigma: Double) -> Int { max(1, Int(sigma / downsampleSigma)) }

    /// How far (pixels) an input value can move an output value, with room to spare: beyond
    /// this distance from every non-zero input the blur's output is exactly 0, and so are the
    /// low-resolution samples the reconstruction reads there (see `blur(…origin:…)`).
    public static func reach(sigma: Double) -> Int {
        guard sigma > 0 else { return 0 }
        let f = factor(sigma: sigma)
        if f == 1 { return kernelRadius(sigma) }
        return f * (kernelRadius(lowSigma(sigma, factor: f)) + 2) + f
    }

    /// The σ (low-resolution pixels) left to blur with after averaging f×f blocks and before
    /// bilinear reconstruction, which add (f²−1)/12 and (f²−1)/6 of variance per axis.
    static func lowSigma(_ sigma: Double, factor f: Int) -> Double {
        let fd = Double(f)
        return (sigma * sigma - (fd * fd - 1) / 12 - (fd * fd - 1) / 6).squareRoot() / fd
    }

    /// The reduced-resolution blur (f ≥ 2): each input row averaged into the low-res plane as it
    /// is loaded (`load(y, lowRow)`, in order of y), the low-res plane blurred, and the rows of
    /// `outputRows` reconstructed into `destination(y)` and handed to `store`.
    @inline(__always)
    private static func reduced(width: Int, height: Int, sigma: Double, factor f: Int, scratch: inout [Float],
                                outputRows: Range<Int>, origin: (x: Int, y: Int) = (0, 0),
                                load: (_ y: Int, _ low: UnsafeMutablePointer<Float>) -> Void,
                                destination: (_ y: Int) -> UnsafeMutablePointer<Float>,
                                store: (_ y: Int, _ row: UnsafePointer<Float>) -> Void) {
        let lw = (width + f - 1) / f, lh = (height + f - 1) / f
        let kernel = gaussianKernel(lowSigma(sigma, factor: f))
        ensure(&scratch, lw * lh * 2 + lw + 2 * kernel.count + width)
        scratch.withUnsafeMutableBufferPointer { s in
            let low = s.baseAddress!
            let work = low + lw * lh
            low.update(repeating: 0, count: lw * lh)
            for y in 0..<height { load(y, low + (y / f) * lw) }
            separable(low, width: lw, height: lh, kernel: kernel, scratch: work)
            upsample(low, lw: lw, lh: lh, factor: f, width: width, outputRows: outputRows, origin: origin,
                     destination: destination, store: store)
        }
    }

    /// How far (pixels) a blur of this sigma spreads: leave this much margin around content.
    public static func extent(sigma: Double) -> Int {
        guard sigma > 0 else { return 0 }
        return Int((kernelReach * sigma).rounded(.up)) + 2 * factor(sigma: sigma)
    }

    /// The radius of `gaussianKernel(sigma)`: ⌈3.5σ⌉, at least 1.
    static func kernelRadius(_ sigma: Double) -> Int { max(1, Int((kernelReach * sigma).rounded(.up))) }

    /// Normalised sampled Gaussian, radius ⌈3.5σ⌉.
    static func gaussianKernel(_ sigma: Double) -> [Float] {
        let r = kernelRadius(sigma)
        let k = (-r...r).map { i in exp(-Double(i * i) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        return k.map { Float($0 / s) }
    }

    private static func ensure(_ a: inout [Float], _ n: Int) {
        if a.count < n { a = [Float](repeating: 0, count: n) }
    }

    /// Separable convolution. Each output value is `((0 + in₀·k₀) + in₁·k₁) + …` in tap order;
    /// 16 outputs at a time keep their running sums in registers across all taps (one load, one
    /// multiply and one add per tap and lane, no stores in between), the same operations in the
    /// same order as a tap-by-tap sweep over the whole row.
    ///
    /// Flat blocks. A shadow's plane is mostly flat: zero around the shape, one value inside it.
    /// Where all of a block's 16 outputs read one value `v` under every tap, each of them is the
    /// same sum `((0 + v·k₀) + v·k₁) + …`, so the block is filled with that sum, computed once
    /// (`flatSum`) with the operations the lanes would do. The blocks are the ones the sweep
    /// uses (16 outputs from x = 0), so the outputs left to `convolve` are computed exactly as
    /// before: the result is the same, bit for bit, as convolving every output.
    private static func separable(_ p: UnsafeMutablePointer<Float>, width w: Int, height h: Int, kernel: [Float],
                                  scratch: UnsafeMutablePointer<Float>) {
        let r = kernel.count / 2
        let copy = scratch                 // w·h
        let padded = scratch + w * h       // w + 2r
        let blocks = w / flatBlock
        kernel.withUnsafeBufferPointer { kb in
            let k = kb.baseAddress!
            // Rows: out[x] = Σ k[j]·in[x + j − r] over a zero-padded copy of the row, into
            // `copy`, which the columns read.
            padded.update(repeating: 0, count: w + 2 * r)
            for y in 0..<h {
                (padded + r).update(from: p + y * w, count: w)
                rowPass(into: copy + y * w, width: w, padded: padded, reach: r, kernel: k)
            }
            // Columns, row by row, back into the plane: out[y] = Σ k[j]·in[y + j − r].
            let flat = FlatColumns(blocks: blocks)
            defer { flat.release() }
            flat.start(row: copy)
            var newest = 0
            for y in 0..<h {
                let first = max(0, r - y), last = min(2 * r, h - 1 - y + r)
                let top = y + first - r, bottom = y + last - r
                while newest < bottom {
                    newest += 1
                    flat.extend(row: copy + newest * w, index: newest)
                }
                let out = p + y * w, source = copy + top * w
                var done = 0, b = 0
                while b < blocks {
                    guard flat.since[b] <= top else { b &+= 1; continue }
                    let v = flat.value[b]
                    var e = b &+ 1
                    while e < blocks && flat.since[e] <= top && flat.value[e] == v { e &+= 1 }
                    let x0 = b * flatBlock, x1 = e * flatBlock
                    convolve(into: out + done, count: x0 - done, kernel: k + first, taps: last - first + 1,
                             source: source + done, tapStride: w)
                    (out + x0).update(repeating: flatSum(v, kernel: k + first, taps: last - first + 1), count: x1 - x0)
                    done = x1
                    b = e
                }
                let tail = lastBlock(from: done, width: w)
                convolve(into: out + tail, count: w - tail, kernel: k + first, taps: last - first + 1,
                         source: source + tail, tapStride: w)
            }
        }
    }

    /// The outputs `convolve` computes together, and the unit of a flat block.
    static let flatBlock = SIMD16<Float>.scalarCount

    /// One row of the row pass: the outputs whose windows lie in a run of one value, in whole
    /// blocks, are that value's `flatSum`; the rest are convolved.
    @inline(__always)
    private static func rowPass(into out: UnsafeMutablePointer<Float>, width w: Int, padded: UnsafePointer<Float>,
                                reach r: Int, kernel k: UnsafePointer<Float>) {
        let n = w + 2 * r, taps = 2 * r + 1
        var done = 0, i = 0
        while i < n {
            let v = padded[i]
            var e = i &+ 1
            while e < n && padded[e] == v { e &+= 1 }
            // Output x reads padded[x ... x + 2r]: inside the run for i ≤ x < e − 2r.
            let x0 = (i + flatBlock - 1) / flatBlock * flatBlock
            let end = e - 2 * r
            if end - x0 >= flatBlock {
                let x1 = end / flatBlock * flatBlock
                convolve(into: out + done, count: x0 - done, kernel: k, taps: taps, source: padded + done, tapStride: 1)
                (out + x0).update(repeating: flatSum(v, kernel: k, taps: taps), count: x1 - x0)
                done = x1
            }
            i = e
        }
        let tail = lastBlock(from: done, width: w)
        convolve(into: out + tail, count: w - tail, kernel: k, taps: taps, source: padded + tail, tapStride: 1)
    }

    /// Where to convolve a row's outputs from `done` to its end: earlier than `done` when fewer
    /// than a block are left, so that they are one block of lanes, not one by one. The outputs
    /// it takes again lie in filled flat blocks, and convolving gives their value again.
    @inline(__always)
    private static func lastBlock(from done: Int, width w: Int) -> Int {
        w - done < flatBlock && w > done ? max(0, w - flatBlock) : done
    }

    /// `((0 + v·k₀) + v·k₁) + …`: what `convolve` computes for an output whose taps all read `v`.
    @inline(__always)
    static func flatSum(_ v: Float, kernel k: UnsafePointer<Float>, taps: Int) -> Float {
        var acc: Float = 0
        for j in 0..<taps { acc = acc + v * k[j] }
        return acc
    }

    /// Per block of `flatBlock` columns of the row pass's output: since which row all its values
    /// have been one value (`Int.max` while the newest row's block holds two values).
    private struct FlatColumns {
        typealias Block = SIMD16<Float>
        let since: UnsafeMutablePointer<Int>
        let value: UnsafeMutablePointer<Float>
        let blocks: Int

        init(blocks: Int) {
            self.blocks = blocks
            since = .allocate(capacity: max(1, blocks))
            value = .allocate(capacity: max(1, blocks))
        }

        func release() { since.deallocate(); value.deallocate() }

        func start(row: UnsafePointer<Float>) {
            for b in 0..<blocks { restart(b, row: row, index: 0) }
        }

        /// Takes row `index` (the row after the last one taken) into each block's run.
        func extend(row: UnsafePointer<Float>, index: Int) {
            for b in 0..<blocks {
                if since[b] != Int.max, all(load(row, b) .== Block(repeating: value[b])) { continue }
                restart(b, row: row, index: index)
            }
        }

        @inline(__always)
        private func restart(_ b: Int, row: UnsafePointer<Float>, index: Int) {
            let v = row[b * Block.scalarCount]
            if all(load(row, b) .== Block(repeating: v)) {
                since[b] = index
                value[b] = v
            } else {
                since[b] = Int.max
            }
        }

        @inline(__always)
        private func load(_ row: UnsafePointer<Float>, _ b: Int) -> Block {
            UnsafeRawPointer(row + b * Block.scalarCount).loadUnaligned(as: Block.self)
        }
    }

    /// `out[x] = Σ_{j < taps} k[j]·source[j·tapStride + x]`, summed from zero in tap order.
    @inline(__always)
    private static func convolve(into out: UnsafeMutablePointer<Float>, count w: Int, kernel k: UnsafePointer<Float>,
                                 taps: Int, source: UnsafePointer<Float>, tapStride: Int) {
        typealias Block = SIMD16<Float>
        let lanes = Block.scalarCount
        /// Outputs x ..< x + 16 in lanes.
        @inline(__always) func block(_ x: Int) {
            var acc = Block(repeating: 0)
            for j in 0..<taps {
                let v = UnsafeRawPointer(source + (j &* tapStride &+ x)).loadUnaligned(as: Block.self)
                acc = acc + v * Block(repeating: k[j])
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: Block.self)
        }
        var x = 0
        while x &+ lanes <= w {
            block(x)
            x &+= lanes
        }
        guard x < w else { return }
        if w >= lanes {
            // The last few outputs as the block ending at the last one: it computes some
            // outputs again, each with the same operations and so the same value.
            block(w &- lanes)
            return
        }
        while x < w {
            var acc: Float = 0
            for j in 0..<taps { acc = acc + source[j &* tapStride &+ x] * k[j] }
            out[x] = acc
            x &+= 1
        }
    }

    /// Block average of one full-res row into its low-res row: each low-res cell sums its f×f
    /// block (times 1/f²) in row-major order, one full-res row at a time, exactly as a per-pixel
    /// `dst[x / f] += src[x]·inv` would. Rows of zeros may be skipped: adding zero changes no sum.
    @inline(__always)
    private static func downsample(row src: UnsafePointer<Float>, width w: Int, factor f: Int,
                                   into dst: UnsafeMutablePointer<Float>) {
        let inv = 1 / Float(f * f)
        let whole = w / f            // cells whose block lies entirely inside the row
        if f == 2 {
            for i in 0..<whole { dst[i] = (dst[i] + src[2 &* i] * inv) + src[2 &* i &+ 1] * inv }
        } else {
            for i in 0..<whole {
                var a = dst[i]
                let s = src + i &* f
                for dx in 0..<f { a += s[dx] * inv }
                dst[i] = a
            }
        }
        if whole * f < w {
            var a = dst[whole]
            for x in (whole * f)..<w { a += src[x] * inv }
            dst[whole] = a
        }
    }

    /// Bilinear reconstruction: low-res sample i sits at full-res x = i·f + (f−1)/2.
    ///
    /// Per output pixel this is `top + (bottom − top)·ty` with `top`/`bottom` the horizontal
    /// interpolations `s(i, j) + (s(i+1, j) − s(i, j))·tx` of low-res rows j and j+1 (zero outside).
    /// The horizontal interpolation of a low-res row depends only on x, so it is computed once
    /// per low-res row into a full-width row and shared by the f output rows that use it; the
    /// output loop is then one subtract, multiply and add per pixel. Same operations, same
    /// order, same results as evaluating everything per pixel.
    ///
    /// Rows of `outputRows` only, each into `destination(y)` and then handed to `store`.
    @inline(__always)
    private static func upsample(_ low: UnsafePointer<Float>, lw: Int, lh: Int, factor f: Int, width w: Int,
                                 outputRows: Range<Int>, origin: (x: Int, y: Int),
                                 destination: (_ y: Int) -> UnsafeMutablePointer<Float>,
                                 store: (_ y: Int, _ row: UnsafePointer<Float>) -> Void) {
        let fd = Float(f), half = Float(f - 1) / 2
        // Column tables: for each x the left sample index (offset by one for the zero border)
        // and the weight tx.
        let left = UnsafeMutablePointer<Int>.allocate(capacity: w)
        let tx = UnsafeMutablePointer<Float>.allocate(capacity: w)
        // A low-res row with one zero cell on each side, and two interpolated full-width rows.
        let padded = UnsafeMutablePointer<Float>.allocate(capacity: lw + 2)
        let rows = UnsafeMutablePointer<Float>.allocate(capacity: 2 * w)
        defer { left.deallocate(); tx.deallocate(); padded.deallocate(); rows.deallocate() }
        // Positions on the larger plane's grid (`origin`), cells of this plane's low-res rows.
        let cx = origin.x / f, cy = origin.y / f
        for x in 0..<w {
            let u = (Float(x + origin.x) - half) / fd
            let i = Int(u.rounded(.down))
            left[x] = i - cx &+ 1
            tx[x] = u - Float(i)
        }
        padded[0] = 0; padded[lw + 1] = 0
        /// Interpolates low-res row j (all zeros outside 0..<lh) across the full width.
        func interpolate(_ j: Int, into out: UnsafeMutablePointer<Float>) {
            if j < 0 || j >= lh {
                (padded + 1).update(repeating: 0, count: lw)
            } else {
                (padded + 1).update(from: low + j * lw, count: lw)
            }
            for x in 0..<w {
                let a = padded[left[x]], b = padded[left[x] &+ 1]
                out[x] = a + (b - a) * tx[x]
            }
        }
        var rowJ = Int.min           // low-res row held in `upper`
        var upper = rows, lower = rows + w
        for y in outputRows {
            let v = (Float(y + origin.y) - half) / fd
            let g = Int(v.rounded(.down)), ty = v - Float(g)
            let j = g - cy
            if j != rowJ {
                if j == rowJ &+ 1 {
                    swap(&upper, &lower)          // the old lower row is the new upper row
                    interpolate(j &+ 1, into: lower)
                } else {
                    interpolate(j, into: upper)
                    interpolate(j &+ 1, into: lower)
                }
                rowJ = j
            }
            let row = destination(y)
            for x in 0..<w {
                let top = upper[x], bottom = lower[x]
                row[x] = top + (bottom - top) * ty
            }
            store(y, row)
        }
    }
}
