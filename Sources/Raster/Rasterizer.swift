/// Exact-area anti-aliased scan conversion.
///
/// Every edge adds its signed contribution to an accumulation buffer: for each pixel cell it
/// crosses, the part of the cell to the right of the edge (times the edge's signed height in that
/// cell) goes into the cell, and the rest of the height into the next cell. A prefix sum along each
/// row then yields, per pixel, the exact integral of the winding number over the pixel's area.
/// Coverage is that integral folded by the fill rule: `min(1, |w|)` for non-zero, a triangle wave
/// of period 2 for even-odd. This is exact wherever a pixel holds no edge crossing (the usual
/// case); inside a pixel where edges cross, the fold of the average is used, like FreeType.
///
/// The rasterizer owns reusable buffers (left zero after every fill): keep one per thread of
/// drawing; canvases share their `LayerPool`'s.
public final class Rasterizer {
    private var accumulation: [Float] = []
    private var rowMin: [Int32] = []
    private var rowMax: [Int32] = []
    private var coverage: [UInt8] = []
    private var edges: [Edge] = []
    // Current bounding box in device pixels.
    private var bx = 0, by = 0, bw = 0, bh = 0

    /// The device rectangle the last `fill` could report spans in: the path's bounding box
    /// clipped (empty when the path had no edges or missed the clip).
    public private(set) var lastBounds = IntRect.zero

    public init() {}

    /// Rasterizes `path` (mapped through `transform`) clipped to `clip`, calling `span` once per
    /// row that has any coverage, with the row's y, the first x and the 8-bit coverage of
    /// `count` pixels from there. Coverage bytes are rounded (0 … 255).
    public func fill(_ path: Path, transform: Transform = .identity, rule: FillRule = .nonZero,
                     clip: IntRect, tolerance: Double = Flattener.defaultTolerance,
                     span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
        edges.removeAll(keepingCapacity: true)
        Flattener.edges(of: path, transform: transform, tolerance: tolerance, into: &edges)
        fillEdges(rule: rule, clip: clip, span: span)
    }

    private func fillEdges(rule: FillRule, clip: IntRect,
                           span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
        lastBounds = .zero
        guard !edges.isEmpty else { return }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for e in edges {
            guard e.x0.isFinite, e.y0.isFinite, e.x1.isFinite, e.y1.isFinite else { return }
            minX = min(minX, min(e.x0, e.x1)); maxX = max(maxX, max(e.x0, e.x1))
            minY = min(minY, min(e.y0, e.y1)); maxY = max(maxY, max(e.y0, e.y1))
        }
        let box = Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY).roundedOut.intersection(clip)
        guard !box.isEmpty else { return }
        lastBounds = box
        bx = box.x; by = box.y; bw = box.width; bh = box.height
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
    private func addEdge(_ e: Edge, left: Double, right: Double, top: Double, bottom: Double) {
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

    private func scan(rule: FillRule, span: (_ y: Int, _ x: Int, _ count: Int, _ coverage: UnsafePointer<UInt8>) -> Void) {
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
                    var level: UInt8 = 0       // fold(sum), kept in step with sum
                    while x < hi {
                        let a = acc[x]
                        if a == 0 {
                            // Cells no edge touched leave the sum (and so the coverage) as it is:
                            // fill the whole run at once instead of folding pixel by pixel.
                            let end = Rasterizer.zeroRunEnd(acc, from: x &+ 1, to: hi)
                            (cov + x).update(repeating: level, count: end &- x)
                            x = end
                            continue
                        }
                        sum += a; acc[x] = 0
                        level = Rasterizer.fold(sum, rule)
                        cov[x] = level
                        x &+= 1
                    }
                    // The winding may stay non-zero to the right (a contour projected on the
                    // left side, or an open fill region): extend while the sum is non-zero.
                    let tail = Rasterizer.fold(sum, rule)
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

    /// The first index in `from..<to` whose cell is not +0 or −0 (`to` if none). Cells are
    /// compared four at a time as bit patterns while the rest of the run allows.
    @inline(__always)
    static func zeroRunEnd(_ acc: UnsafeMutablePointer<Float>, from start: Int, to end: Int) -> Int {
        let raw = UnsafeRawPointer(acc)
        let signless: UInt64 = 0x7FFF_FFFF_7FFF_FFFF
        var x = start
        while x &+ 4 <= end {
            let a = raw.loadUnaligned(fromByteOffset: x &* 4, as: UInt64.self)
            let b = raw.loadUnaligned(fromByteOffset: x &* 4 &+ 8, as: UInt64.self)
            if (a | b) & signless != 0 { break }
            x &+= 4
        }
        while x < end && acc[x] == 0 { x &+= 1 }
        return x
    }

    @inline(__always)
    static func fold(_ sum: Float, _ rule: FillRule) -> UInt8 {
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
