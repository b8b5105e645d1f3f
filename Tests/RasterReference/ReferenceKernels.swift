#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The kernels as they were before the performance work (scalar, pixel by pixel), kept as oracles:
// the optimised kernels must produce the very same bytes (RasterTests/KernelEquivalenceTests).
//
// This target is test-only and shares no code with production: it does not import Raster at
// all. It has its own minimal value types; the tests convert Raster's values into them.

/// A line segment in device pixels, from (x0, y0) to (x1, y1).
public struct ReferenceEdge: Equatable, Sendable {
    public var x0, y0, x1, y1: Double
    public init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }
}

/// Which winding counts as inside.
public enum ReferenceFillRule: Sendable {
    case nonZero, evenOdd
}

/// A rectangle of whole device pixels.
public struct ReferenceRect: Equatable, Sendable {
    public var x, y, width, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// Pre-optimisation scan converter (prefix sum folded pixel by pixel).
public final class ReferenceRasterizer {
    private var accumulation: [Float] = []
    private var rowMin: [Int32] = []
    private var rowMax: [Int32] = []
    private var coverage: [UInt8] = []
    private var edges: [ReferenceEdge] = []
    // Current bounding box in device pixels.
    private var bx = 0, by = 0, bw = 0, bh = 0

    public init() {}

    /// Rasterizes already flattened edges (device pixels) clipped to `clip`, calling `span` once
    /// per row that has any coverage, with the row's y, the first x and the 8-bit coverage of
    /// `count` pixels from there. Coverage bytes are rounded (0 … 255).
    public func fill(edges input: [ReferenceEdge], rule: ReferenceFillRule = .nonZero, clip: ReferenceRect,
                     span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
        edges = input
        fillEdges(rule: rule, clip: clip, span: span)
    }

    private func fillEdges(rule: ReferenceFillRule, clip: ReferenceRect,
                           span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
        guard !edges.isEmpty else { return }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for e in edges {
            guard e.x0.isFinite, e.y0.isFinite, e.x1.isFinite, e.y1.isFinite else { return }
            minX = min(minX, min(e.x0, e.x1)); maxX = max(maxX, max(e.x0, e.x1))
            minY = min(minY, min(e.y0, e.y1)); maxY = max(maxY, max(e.y0, e.y1))
        }
        // The bounding box rounded out to whole pixels, intersected with the clip.
        let x0 = max(Int(minX.rounded(.down)), clip.x), y0 = max(Int(minY.rounded(.down)), clip.y)
        let x1 = min(Int(maxX.rounded(.up)), clip.x + clip.width), y1 = min(Int(maxY.rounded(.up)), clip.y + clip.height)
        guard x1 > x0, y1 > y0 else { return }
        bx = x0; by = y0; bw = x1 - x0; bh = y1 - y0
        prepareBuffers()
        let left = Double(bx), right = Double(bx + bw), top = Double(by), bottom = Double(by + bh)
        for e in edges {
            addEdge(e, left: left, right: right, top: top, bottom: bottom)
        }
        scan(rule: rule, span: span)
    }

    private func prepareBuffers() {
        let cells = (bw + 2) * bh
        if accumulation.count < cells { accumulation = [Float](repeating: 0, count: cells) }
        if rowMin.count < bh {
            rowMin = [Int32](repeating: 0, count: bh)
            rowMax = [Int32](repeating: 0, count: bh)
        }
        for i in 0..<bh { rowMin[i] = Int32.max; rowMax[i] = Int32.min }
        if coverage.count < bw + 2 { coverage = [UInt8](repeating: 0, count: bw + 2) }
    }

    /// Clips an edge to the box rows, projects the part left of the box onto its left side
    /// (which keeps the winding of everything to the right exact), then accumulates it.
    private func addEdge(_ e: ReferenceEdge, left: Double, right: Double, top: Double, bottom: Double) {
        var x0 = e.x0, y0 = e.y0, x1 = e.x1, y1 = e.y1
        if y0 == y1 { return }
        // Vertical clip to the box.
        if max(y0, y1) <= top || min(y0, y1) >= bottom { return }
        let dxdy = (x1 - x0) / (y1 - y0)
        if y0 < top { x0 += (top - y0) * dxdy; y0 = top } else if y0 > bottom { x0 += (bottom - y0) * dxdy; y0 = bottom }
        if y1 < top { x1 += (top - y1) * dxdy; y1 = top } else if y1 > bottom { x1 += (bottom - y1) * dxdy; y1 = bottom }
        // Everything right of the box contributes nothing visible; split at the side lines.
        if (x0 < left) != (x1 < left) {
            let ym = y0 + (left - x0) / dxdy
            accumulateLine(max(x0, left), y0, left, ym)
            accumulateLine(left, ym, max(x1, left), y1)
            return
        }
        if x0 < left { accumulateLine(left, y0, left, y1); return }
        if x0 >= right && x1 >= right { return }
        accumulateLine(x0, y0, x1, y1)
    }

    /// Accumulates a line segment lying inside the box rows with x ≥ left.
    private func accumulateLine(_ ax: Double, _ ay: Double, _ bxp: Double, _ byp: Double) {
        if ay == byp { return }
        let dir: Double = ay < byp ? 1 : -1
        // Work from top to bottom; dir carries the winding sign.
        var (x0, y0, x1, y1) = ay < byp ? (ax, ay, bxp, byp) : (bxp, byp, ax, ay)
        x0 -= Double(bx); x1 -= Double(bx); y0 -= Double(by); y1 -= Double(by)
        let dxdy = (x1 - x0) / (y1 - y0)
        let stride = bw + 2
        var yRow = Int(y0.rounded(.down))
        let yEnd = min(Int(y1.rounded(.up)), bh)
        accumulation.withUnsafeMutableBufferPointer { acc in
            while yRow < yEnd {
                let rowTop = max(y0, Double(yRow)), rowBottom = min(y1, Double(yRow + 1))
                let dy = rowBottom - rowTop
                if dy <= 0 { yRow += 1; continue }
                let xTop = x0 + (rowTop - y0) * dxdy
                let xBottom = x0 + (rowBottom - y0) * dxdy
                let rowBase = yRow * stride
                accumulateRow(acc.baseAddress! + rowBase, row: yRow, xa: xTop, xb: xBottom, dy: dy * dir)
                yRow += 1
            }
        }
    }

    /// Distributes one row's part of an edge (from x = xa at its top to xb at its bottom, signed
    /// height dy) over the pixel cells it crosses.
    @inline(__always)
    private func accumulateRow(_ row: UnsafeMutablePointer<Float>, row y: Int, xa: Double, xb: Double, dy: Double) {
        let lo = max(0, min(xa, xb)), hi = max(0, max(xa, xb))
        let i0 = Int(lo.rounded(.down)), i1 = Int(hi.rounded(.down))
        if i0 >= bw { return }
        rowMin[y] = min(rowMin[y], Int32(max(0, i0)))
        rowMax[y] = max(rowMax[y], Int32(min(bw, i1 + 1)))  // index of the last cell written
        if i0 == i1 || hi - lo < 1e-12 {
            // Within one cell: the area right of the edge is (i+1 − mean x)·dy.
            let xm = (xa + xb) / 2
            let area = (Double(i0 + 1) - xm) * dy
            row[i0] += Float(area)
            row[i0 + 1] += Float(dy - area)
            return
        }
        // Crosses several cells: walk them from left to right with the y share of each.
        let dydx = dy / (hi - lo)   // signed height per unit of x
        var xPrev = lo
        var i = i0
        while i <= i1 && i < bw {
            let xNext = min(hi, Double(i + 1))
            let share = (xNext - xPrev) * dydx
            let xm = (xPrev + xNext) / 2
            let area = (Double(i + 1) - xm) * share
            row[i] += Float(area)
            row[i + 1] += Float(share - area)
            xPrev = xNext
            i += 1
        }
        if i <= i1 && xPrev < hi {
            // The remainder lies right of the box: only the cover matters, at the right edge.
            row[bw] += Float((hi - xPrev) * dydx)
        }
    }

    private func scan(rule: ReferenceFillRule, span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
        let stride = bw + 2
        accumulation.withUnsafeMutableBufferPointer { accBuf in
            coverage.withUnsafeMutableBufferPointer { covBuf in
                let cov = covBuf.baseAddress!
                for y in 0..<bh {
                    let lo = Int(rowMin[y])
                    guard lo != Int(Int32.max) else { continue }
                    let acc = accBuf.baseAddress! + y * stride
                    // Past the last touched cell the running sum is back to what it was before
                    // the first: zero for closed paths, up to the box's right edge.
                    let touched = Int(rowMax[y])   // last cell written (≤ bw)
                    var hi = min(bw, touched + 1)
                    var sum: Float = 0
                    var x = lo
                    while x < hi {
                        sum += acc[x]; acc[x] = 0
                        cov[x] = ReferenceRasterizer.fold(sum, rule)
                        x += 1
                    }
                    // The winding may stay non-zero to the right (a contour projected on the
                    // left side, or an open fill region): extend while the sum is non-zero.
                    let tail = ReferenceRasterizer.fold(sum, rule)
                    if tail != 0 {
                        while x < bw { cov[x] = tail; x += 1 }
                        hi = bw
                    }
                    var z = x
                    while z <= touched { acc[z] = 0; z += 1 }
                    acc[bw] = 0
                    // Trim zero coverage at both ends.
                    var s = lo
                    while s < hi && cov[s] == 0 { s += 1 }
                    var e = hi
                    while e > s && cov[e - 1] == 0 { e -= 1 }
                    if e > s { span(by + y, bx + s, e - s, UnsafePointer(cov + s)) }
                }
            }
        }
    }

    @inline(__always)
    static func fold(_ sum: Float, _ rule: ReferenceFillRule) -> UInt8 {
        var a = abs(sum)
        switch rule {
        case .nonZero:
            a = min(a, 1)
        case .evenOdd:
            a = a.truncatingRemainder(dividingBy: 2)
            if a > 1 { a = 2 - a }
        }
        return UInt8(a * 255 + 0.5)
    }
}

/// Pre-optimisation span kernels (per-pixel tests, per-channel loop in overScaled).
public enum ReferenceBlend {
    /// Scales all four channels of a packed pixel by k/255 (rounded).
    public static func scale(_ p: UInt32, _ k: UInt32) -> UInt32 {
        var rb = (p & 0x00FF_00FF) &* k &+ 0x0080_0080
        rb = ((rb &+ ((rb &>> 8) & 0x00FF_00FF)) &>> 8) & 0x00FF_00FF
        var ag = ((p &>> 8) & 0x00FF_00FF) &* k &+ 0x0080_0080
        ag = (ag &+ ((ag &>> 8) & 0x00FF_00FF)) & 0xFF00_FF00
        return rb | ag
    }

    /// Premultiplied src-over: `src + dst·(1 − src.a)`.
    public static func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 255 &- (src &>> 24)
        return src &+ scale(dst, inv)
    }

    /// `src·k/255 over dst` with a single rounding per channel (exact to half a level), used
    /// where coverage or opacity is partial: scaling first and blending after would round twice.
    public static func overScaled(_ src: UInt32, _ k: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 65025 &- (src &>> 24) &* k          // 255² · (1 − src.a·k/255²)
        var out: UInt32 = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let s = (src &>> shift) & 0xFF, d = (dst &>> shift) & 0xFF
            let v = s &* k &* 255 &+ d &* inv
            out |= ((v &+ 32512) / 65025) &<< shift
            shift &+= 8
        }
        return out
    }

    /// `dst = color·coverage over dst` for a row; `coverage == nil` means full coverage.
    public static func solidSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32,
                                 coverage: UnsafePointer<UInt8>?) {
        let opaque = color &>> 24 == 255
        if let coverage {
            for i in 0..<count {
                let c = UInt32(coverage[i])
                if c == 0 { continue }
                if c == 255 {
                    dst[i] = opaque ? color : over(color, dst[i])
                } else {
                    dst[i] = overScaled(color, c, dst[i])
                }
            }
        } else if opaque {
            dst.update(repeating: color, count: count)
        } else {
            let inv = 255 &- (color &>> 24)
            for i in 0..<count { dst[i] = color &+ scale(dst[i], inv) }
        }
    }

    /// `dst = src·coverage over dst` with a per-pixel source row.
    public static func sourceSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, source: UnsafePointer<UInt32>,
                                  coverage: UnsafePointer<UInt8>?) {
        if let coverage {
            for i in 0..<count {
                let c = UInt32(coverage[i])
                if c == 0 { continue }
                dst[i] = c == 255 ? over(source[i], dst[i]) : overScaled(source[i], c, dst[i])
            }
        } else {
            for i in 0..<count { dst[i] = over(source[i], dst[i]) }
        }
    }

    /// Composites a layer row onto a destination row: `dst = src·opacity·mask over dst`
    /// (opacity 0…255; mask optional). A partial factor scales the source (rounded), then
    /// blends: layers take one rounding more than coverage spans, for speed.
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>?) {
        if let mask {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                let k = opacity == 255 ? UInt32(mask[i]) : div255(UInt32(mask[i]) &* opacity)
                if k == 0 { continue }
                dst[i] = k == 255 ? over(s, dst[i]) : over(scale(s, k), dst[i])
            }
        } else if opacity == 255 {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                dst[i] = s &>> 24 == 255 ? s : over(s, dst[i])
            }
        } else {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                dst[i] = over(scale(s, opacity), dst[i])
            }
        }
    }

    /// x / 255, rounded, for x ≤ 255·255.
    static func div255(_ x: UInt32) -> UInt32 {
        let t = x &+ 128
        return (t &+ (t &>> 8)) &>> 8
    }

    /// Multiplies a row in place by a mask (destination-in): `dst = dst·mask`.
    public static func maskSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, mask: UnsafePointer<UInt8>) {
        for i in 0..<count {
            let m = UInt32(mask[i])
            if m == 255 { continue }
            dst[i] = m == 0 ? 0 : scale(dst[i], m)
        }
    }
}

/// Pre-optimisation Gaussian blur (per-pixel bilinear reconstruction with bounds tests).
public enum ReferenceBlur {
    static let downsampleSigma = 4.0
    static let kernelReach = 3.5

    /// Blurs `plane` (row-major, `width × height`) in place; values outside are taken as zero.
    /// `scratch` is reused between calls.
    public static func blur(_ plane: UnsafeMutablePointer<Float>, width: Int, height: Int, sigma: Double,
                            scratch: inout [Float]) {
        guard sigma > 0, width > 0, height > 0 else { return }
        let f = max(1, Int(sigma / downsampleSigma))
        if f == 1 {
            let kernel = gaussianKernel(sigma)
            ensure(&scratch, width * height + width + 2 * kernel.count)
            scratch.withUnsafeMutableBufferPointer { s in
                separable(plane, width: width, height: height, kernel: kernel, scratch: s.baseAddress!)
            }
            return
        }
        let lw = (width + f - 1) / f, lh = (height + f - 1) / f
        let fd = Double(f)
        let lowVariance = sigma * sigma - (fd * fd - 1) / 12 - (fd * fd - 1) / 6
        let kernel = gaussianKernel(lowVariance.squareRoot() / fd)
        ensure(&scratch, lw * lh * 2 + lw + 2 * kernel.count + width)
        scratch.withUnsafeMutableBufferPointer { s in
            let low = s.baseAddress!
            let work = low + lw * lh
            downsample(plane, width: width, height: height, factor: f, into: low, lw: lw, lh: lh)
            separable(low, width: lw, height: lh, kernel: kernel, scratch: work)
            upsample(low, lw: lw, lh: lh, factor: f, into: plane, width: width, height: height)
        }
    }

    /// How far (pixels) a blur of this sigma spreads: leave this much margin around content.
    public static func extent(sigma: Double) -> Int {
        guard sigma > 0 else { return 0 }
        let f = max(1, Int(sigma / downsampleSigma))
        return Int((kernelReach * sigma).rounded(.up)) + 2 * f
    }

    /// Normalised sampled Gaussian, radius ⌈3.5σ⌉.
    public static func gaussianKernel(_ sigma: Double) -> [Float] {
        let r = max(1, Int((kernelReach * sigma).rounded(.up)))
        let k = (-r...r).map { i in exp(-Double(i * i) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        return k.map { Float($0 / s) }
    }

    private static func ensure(_ a: inout [Float], _ n: Int) {
        if a.count < n { a = [Float](repeating: 0, count: n) }
    }

    /// Separable convolution; both passes have unit-stride inner loops (they vectorise).
    private static func separable(_ p: UnsafeMutablePointer<Float>, width w: Int, height h: Int, kernel: [Float],
                                  scratch: UnsafeMutablePointer<Float>) {
        let r = kernel.count / 2
        let copy = scratch                 // w·h
        let padded = scratch + w * h       // w + 2r
        kernel.withUnsafeBufferPointer { kb in
            let k = kb.baseAddress!
            // Rows: out[x] = Σ k[j]·in[x + j − r] over a zero-padded copy.
            padded.update(repeating: 0, count: w + 2 * r)
            for y in 0..<h {
                let row = p + y * w
                (padded + r).update(from: row, count: w)
                row.update(repeating: 0, count: w)
                for j in 0..<(2 * r + 1) {
                    let kj = k[j], src = padded + j
                    for x in 0..<w { row[x] += src[x] * kj }
                }
            }
            // Columns, row by row: out[y] = Σ k[j]·in[y + j − r].
            copy.update(from: p, count: w * h)
            for y in 0..<h {
                let out = p + y * w
                out.update(repeating: 0, count: w)
                for j in max(0, r - y)...min(2 * r, h - 1 - y + r) {
                    let src = copy + (y + j - r) * w, kj = k[j]
                    for x in 0..<w { out[x] += src[x] * kj }
                }
            }
        }
    }

    private static func downsample(_ p: UnsafePointer<Float>, width w: Int, height h: Int, factor f: Int,
                                   into low: UnsafeMutablePointer<Float>, lw: Int, lh: Int) {
        low.update(repeating: 0, count: lw * lh)
        let inv = 1 / Float(f * f)
        for y in 0..<h {
            let dst = low + (y / f) * lw, src = p + y * w
            for x in 0..<w { dst[x / f] += src[x] * inv }
        }
    }

    /// Bilinear reconstruction: low-res sample i sits at full-res x = i·f + (f−1)/2.
    private static func upsample(_ low: UnsafePointer<Float>, lw: Int, lh: Int, factor f: Int,
                                 into p: UnsafeMutablePointer<Float>, width w: Int, height h: Int) {
        let fd = Float(f), half = Float(f - 1) / 2
        @inline(__always) func sample(_ i: Int, _ j: Int) -> Float {
            i >= 0 && i < lw && j >= 0 && j < lh ? low[j * lw + i] : 0
        }
        for y in 0..<h {
            let v = (Float(y) - half) / fd
            let j = Int(v.rounded(.down)), ty = v - Float(j)
            let row = p + y * w
            for x in 0..<w {
                let u = (Float(x) - half) / fd
                let i = Int(u.rounded(.down)), tx = u - Float(i)
                let top = sample(i, j) + (sample(i + 1, j) - sample(i, j)) * tx
                let bottom = sample(i, j + 1) + (sample(i + 1, j + 1) - sample(i, j + 1)) * tx
                row[x] = top + (bottom - top) * ty
            }
        }
    }
}
