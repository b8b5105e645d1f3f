/// An 8-bit coverage plane: `width × height` bytes, row by row (stride = width), placed in
/// device space at `origin`. A kept mask as a plane reads a quarter of the bytes of the same
/// mask kept as a pixmap's alpha, and needs no per-row extraction when it is applied.
public final class AlphaPlane {
    public let width: Int
    public let height: Int
    public let origin: (x: Int, y: Int)
    public let bytes: UnsafeMutablePointer<UInt8>

    /// A plane of zeros.
    public init(width: Int, height: Int, origin: (x: Int, y: Int)) {
        precondition(width >= 0 && height >= 0, "plane size must not be negative")
        self.width = width
        self.height = height
        self.origin = origin
        bytes = .allocate(capacity: max(1, width * height))
        LargeAllocations.note(bytes: width * height)
        bytes.initialize(repeating: 0, count: max(1, width * height))
    }

    /// The alpha channel of a sprite's pixels, at the sprite's origin.
    public init(alphaOf sprite: Sprite) {
        let p = sprite.pixmap
        width = p.width
        height = p.height
        origin = sprite.origin
        bytes = .allocate(capacity: max(1, width * height))
        LargeAllocations.note(bytes: width * height)
        for y in 0..<height {
            let row = p.pixels + y * p.stride, out = bytes + y * width
            for x in 0..<width { out[x] = UInt8(truncatingIfNeeded: row[x] &>> 24) }
        }
    }

    deinit { bytes.deallocate() }

    /// The plane's device rectangle when placed with its origin moved by `offset`.
    public func bounds(offset: (x: Int, y: Int)) -> IntRect {
        IntRect(x: origin.x + offset.x, y: origin.y + offset.y, width: width, height: height)
    }

    /// The coverage at device pixel (x, y) for a placement moved by `offset`; 0 outside.
    public func value(x: Int, y: Int, offset: (x: Int, y: Int) = (0, 0)) -> UInt8 {
        let px = x - origin.x - offset.x, py = y - origin.y - offset.y
        guard px >= 0 && px < width && py >= 0 && py < height else { return 0 }
        return bytes[py * width + px]
    }
}

extension AlphaPlane {
    /// The tallest rectangle (device pixels) of bytes 255 through device column `x`: the rows
    /// where that column is 255 (the first such run of rows), as wide as all of them are 255
    /// around it, cut to `bounds`. For a capsule's coverage, its straight section. Nil where the
    /// column has no 255, or nothing is left inside `bounds`.
    public func fullRect(throughColumn x: Int, within bounds: IntRect? = nil) -> IntRect? {
        let cx = x - origin.x
        guard cx >= 0 && cx < width else { return nil }
        func full(_ x: Int, _ y: Int) -> Bool { bytes[y * width + x] == 255 }
        var lo = 0, hi = width, y0 = -1, y1 = -1
        for y in 0..<height where full(cx, y) {
            if y0 < 0 { y0 = y }
            guard y1 < 0 || y1 == y else { break }     // the first run of rows only
            y1 = y + 1
            var a = cx, b = cx
            while a > 0 && full(a - 1, y) { a -= 1 }
            while b + 1 < width && full(b + 1, y) { b += 1 }
            lo = max(lo, a)
            hi = min(hi, b + 1)
        }
        guard y0 >= 0, hi > lo else { return nil }
        let r = IntRect(x: lo + origin.x, y: y0 + origin.y, width: hi - lo, height: y1 - y0)
        let cut = bounds.map { r.intersection($0) } ?? r
        return cut.isEmpty ? nil : cut
    }

    /// The anti-aliased coverage of `path` (under `transform`, non-zero or even-odd) over the
    /// device rectangle `bounds`, exactly as the rasterizer reports it to a fill (coverage does
    /// not depend on the clip): drawing through the plane (`Canvas.fill(plane:)`, or masking
    /// with `LayerMask.plane`) writes the bytes of filling (or masking with) the path itself,
    /// without rasterizing it again.
    public convenience init(coverageOf path: Path, transform: Transform = .identity, rule: FillRule = .nonZero,
                            bounds: IntRect) {
        self.init(width: max(0, bounds.width), height: max(0, bounds.height), origin: (bounds.x, bounds.y))
        let bytes = self.bytes, w = width
        Rasterizer().fill(path, transform: transform, rule: rule, clip: bounds) { y, x, n, cov in
            (bytes + (y - bounds.y) * w + (x - bounds.x)).update(from: cov, count: n)
        }
    }
}

extension Pixmap {
    /// Keeps the pixels only through `plane` (device coordinates; this pixmap's top-left at
    /// device `origin`): each pixel scaled by the plane's byte there, and cleared outside the
    /// plane. For content drawn straight into a transparent pixmap, these are the bytes of
    /// drawing it into a layer instead and ending that with `endLayer(mask: .plane(plane, …))`
    /// onto this pixmap (src-over onto transparent pixels is the source), without the layer.
    public func keep(through plane: AlphaPlane, origin: (x: Int, y: Int)) {
        let px = plane.origin.x - origin.x, py = plane.origin.y - origin.y
        let x0 = max(0, px), x1 = min(width, px + plane.width)
        for y in 0..<height {
            let row = pixels + y * stride
            let my = y - py
            guard my >= 0 && my < plane.height && x1 > x0 else {
                row.update(repeating: 0, count: width)
                continue
            }
            if x0 > 0 { row.update(repeating: 0, count: x0) }
            if x1 < width { (row + x1).update(repeating: 0, count: width - x1) }
            Blend.maskSpan(row + x0, mask: UnsafePointer(plane.bytes + my * plane.width + (x0 - px)), count: x1 - x0)
        }
    }
}

extension Pixmap {
    /// Clears the pixels where `plane` (device coordinates; this pixmap's top-left at device
    /// `origin`) is 255 — what something opaque drawn through the plane later covers — and keeps
    /// the rest. Runs of 255 are cleared as runs.
    public func clear(whereFull plane: AlphaPlane, origin: (x: Int, y: Int)) {
        let px = plane.origin.x - origin.x, py = plane.origin.y - origin.y
        let x0 = max(0, px), x1 = min(width, px + plane.width)
        let y0 = max(0, py), y1 = min(height, py + plane.height)
        guard x1 > x0 && y1 > y0 else { return }
        for y in y0..<y1 {
            let row = pixels + y * stride + x0
            let m = UnsafePointer(plane.bytes + (y - py) * plane.width + (x0 - px))
            Blend.walkCoverage(m, count: x1 - x0, full: { (row + $0).update(repeating: 0, count: $1) },
                               partial: { if m[$0] == 255 { row[$0] = 0 } })
        }
    }
}
