/// A mask applied when a layer is composited.
public enum LayerMask {
    /// The anti-aliased coverage of a path (user space, under the canvas transform at `endLayer`).
    case path(Path, FillRule)
    /// The alpha of another pixmap whose top-left sits at `origin` in device pixels.
    case alpha(Pixmap, origin: (x: Int, y: Int))
    /// An 8-bit plane, placed at its origin moved by `offset` (device pixels).
    case plane(AlphaPlane, offset: (x: Int, y: Int))
    /// As `plane`, and where the mask is 255 (within the layer) the layer is composited over
    /// the premultiplied colour `backdrop` instead of over the pixel beneath, which is not read:
    /// for a caller that knows what lies beneath there (e.g. an opaque solid fill) and so need
    /// not draw it first.
    case planeOverBackdrop(AlphaPlane, offset: (x: Int, y: Int), backdrop: UInt32)

    /// The device rectangle outside which the mask is 0 (nil for a path).
    var area: IntRect? {
        switch self {
        case .path: return nil
        case .alpha(let m, let origin): return IntRect(x: origin.x, y: origin.y, width: m.width, height: m.height)
        case .plane(let m, let offset), .planeOverBackdrop(let m, let offset, _): return m.bounds(offset: offset)
        }
    }
}

/// A premultiplied image placed in device space: what a finished layer or a cached sprite is.
public final class Sprite {
    public let pixmap: Pixmap
    /// Device position of the pixmap's top-left pixel.
    public var origin: (x: Int, y: Int)

    public init(pixmap: Pixmap, origin: (x: Int, y: Int)) {
        self.pixmap = pixmap
        self.origin = origin
    }

    deinit { packed?.deallocate() }

    public var bounds: IntRect { IntRect(x: origin.x, y: origin.y, width: pixmap.width, height: pixmap.height) }

    /// The box (device pixels) of the non-transparent pixels; empty when there are none.
    public var contentBounds: IntRect {
        var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min
        for y in 0..<pixmap.height {
            let row = pixmap.pixels + y * pixmap.stride
            var first = -1
            for x in 0..<pixmap.width where row[x] != 0 { first = x; break }
            guard first >= 0 else { continue }
            var last = first
            var x = pixmap.width - 1
            while x > first { if row[x] != 0 { last = x; break }; x -= 1 }
            x0 = min(x0, first); x1 = max(x1, last + 1); y0 = min(y0, y); y1 = y + 1
        }
        guard x1 > x0 else { return IntRect(x: origin.x, y: origin.y, width: 0, height: 0) }
        return IntRect(x: x0 + origin.x, y: y0 + origin.y, width: x1 - x0, height: y1 - y0)
    }

    /// The same image cut to `contentBounds` (a new pixmap; self when nothing can be cut):
    /// composites to the same pixels, in less memory. A blurred shadow's layer leaves a
    /// margin of 3.5σ around the content while its alpha rounds to 0 beyond about 2.7σ.
    public func trimmed() -> Sprite {
        let c = contentBounds
        if c == bounds { return self }
        let p = Pixmap(width: c.width, height: c.height)
        for y in 0..<c.height {
            (p.pixels + y * p.stride).update(from: pixmap.pixels + (y + c.y - origin.y) * pixmap.stride + (c.x - origin.x),
                                             count: c.width)
        }
        return Sprite(pixmap: p, origin: (c.x, c.y))
    }

    /// The packed pixel at device (x, y); 0 (transparent) outside the sprite.
    public func pixel(x: Int, y: Int) -> UInt32 {
        let px = x - origin.x, py = y - origin.y
        guard py >= 0 && py < pixmap.height && px >= 0 && px < pixmap.width else { return 0 }
        return pixmap.pixels[py * pixmap.stride + px]
    }

    /// Where the pixmap has content: per row, runs of pixels [x0, x1) (pixmap coordinates)
    /// outside of which every pixel is transparent, in row order (y ascending, then x). Nil
    /// until `indexRuns` is called; when set,
    /// compositing visits only these runs (a thin ring or a disc's bounding square then costs
    /// what its content covers, not its whole rectangle).
    public private(set) var runs: [(y: Int32, x0: Int32, x1: Int32)]? {
        didSet { pack() }
    }

    /// The runs' pixels one after another, in run order, when the runs hold at most a quarter
    /// of the pixmap (a thin ring, a stroke, a shadow's rim: nil otherwise, and without runs).
    /// A run of such a sprite is a few pixels of its own row, and the rows lie a page apart in
    /// the pixmap, so compositing it from the pixmap fetches a new cache line, and often a new
    /// page's translation, for every few pixels; packed, the pixels a frame reads are a few
    /// dense kilobytes. `packedStarts[k]` is where run k begins. The pixmap keeps every pixel
    /// for everything else (`pixel(x:y:)`, masks, trimming).
    private var packed: UnsafeMutablePointer<UInt32>?
    private var packedStarts: [Int] = []

    /// Whether compositing reads the runs' packed copy (for tests and `alike`).
    public var isPacked: Bool { packed != nil }

    /// Where compositing reads the pixels: the packed runs, or the pixmap.
    var storage: UnsafeMutablePointer<UInt32> { packed ?? pixmap.pixels }

    /// Makes (or drops) the packed copy of the runs' pixels for the current runs.
    private func pack() {
        packed?.deallocate()
        packed = nil
        packedStarts = []
        guard let runs else { return }
        let total = runs.reduce(0) { $0 + Int($1.x1 - $1.x0) }
        guard total > 0, total * 4 <= pixmap.width * pixmap.height else { return }
        let p = UnsafeMutablePointer<UInt32>.allocate(capacity: total)
        LargeAllocations.note(bytes: total * 4)
        var at = 0
        packedStarts.reserveCapacity(runs.count)
        for run in runs {
            let n = Int(run.x1 - run.x0)
            packedStarts.append(at)
            (p + at).initialize(from: pixmap.pixels + Int(run.y) * pixmap.stride + Int(run.x0), count: n)
            at += n
        }
        packed = p
    }

    /// Calls `segment(y, x0, x1, source)` (device pixels, x1 exclusive; `source` the sprite's
    /// pixel at device column x0 of that row, its next pixels to the right) for what to visit of
    /// the rows of `r` with the pixmap's top-left at `origin`: each run in those rows (found by
    /// binary search, as runs are in row order: a band of a page does not walk a whole sprite's
    /// runs), or each whole row of `r` when there are no runs. Segments may reach outside
    /// `r`'s columns (never outside the sprite's). Runs are read from the packed copy when
    /// there is one. `r` lies within the sprite placed at `origin`.
    func forEachRun(in r: IntRect, placedAt origin: (x: Int, y: Int),
                    _ segment: (_ y: Int, _ x0: Int, _ x1: Int, _ source: UnsafePointer<UInt32>) -> Void) {
        guard let runs else {
            for y in r.minY..<r.maxY {
                segment(y, r.minX, r.maxX, UnsafePointer(pixmap.pixels + (y - origin.y) * pixmap.stride + (r.minX - origin.x)))
            }
            return
        }
        let first = Int32(r.minY - origin.y)
        var lo = 0, hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runs[mid].y < first { lo = mid + 1 } else { hi = mid }
        }
        var k = lo
        while k < runs.count {
            let run = runs[k]
            let y = Int(run.y) + origin.y
            if y >= r.maxY { break }
            let source = packed.map { $0 + packedStarts[k] } ?? pixmap.pixels + Int(run.y) * pixmap.stride + Int(run.x0)
            segment(y, Int(run.x0) + origin.x, Int(run.x1) + origin.x, UnsafePointer(source))
            k += 1
        }
    }

    /// Builds `runs`; gaps of transparent pixels shorter than `minGap` stay inside a run.
    /// Call again after changing the pixels.
    public func indexRuns(minGap: Int = 32) {
        runs = Self.runs(of: pixmap, minGap: minGap) { _, _ in true }
    }

    /// The same pixels (shared, not copied) drawn only where `keep(x, y)` holds (pixmap
    /// coordinates): its runs leave out every other pixel, as if it were transparent. For a
    /// piece whose middle something opaque will cover anyway.
    public func restricted(minGap: Int = 32, to keep: (_ x: Int, _ y: Int) -> Bool) -> Sprite {
        let s = Sprite(pixmap: pixmap, origin: origin)
        s.runs = Self.runs(of: pixmap, minGap: minGap, keep)
        return s
    }

    private static func runs(of pixmap: Pixmap, minGap: Int, _ keep: (Int, Int) -> Bool) -> [(y: Int32, x0: Int32, x1: Int32)] {
        var out: [(y: Int32, x0: Int32, x1: Int32)] = []
        let w = pixmap.width
        for y in 0..<pixmap.height {
            let row = pixmap.pixels + y * pixmap.stride
            func empty(_ x: Int) -> Bool { row[x] == 0 || !keep(x, y) }
            var x = 0
            while x < w {
                while x < w && empty(x) { x += 1 }
                guard x < w else { break }
                let start = x
                var end = x
                var gap = 0
                while x < w && gap < minGap {
                    if empty(x) { gap += 1 } else { gap = 0; end = x + 1 }
                    x += 1
                }
                out.append((Int32(y), Int32(start), Int32(end)))
                x = end
            }
        }
        return out
    }
}

/// Draws paths and layers into a pixmap: the renderer's front end.
///
/// `transform` maps user coordinates to device pixels of the canvas's base pixmap. Layers
/// (`beginLayer`/`endLayer`, SwiftUI's `drawingGroup` and `compositingGroup`) are off-screen
/// pixmaps from a pool; they nest, and each one is composited into its parent with an opacity and
/// an optional mask. Everything is clipped to `clip` (device pixels) and the current layer.
public final class Canvas {
    public var transform: Transform = .identity
    public var clip: IntRect
    public let pool: LayerPool
    /// The pool's (one thread draws with a pool at a time; no fill runs inside another).
    private var rasterizer: Rasterizer { pool.rasterizer }
    /// Open layers, innermost last: the layer, the clip to restore, and its ink (the device
    /// rectangle holding everything drawn into it so far; the rest is still transparent).
    private var stack: [(sprite: Sprite, savedClip: IntRect, ink: IntRect)] = []
    private var base: Sprite
    private var rowScratch: [UInt32] = []
    private var maskScratch: [UInt8] = []
    private var blurScratch: [Float] = []

    public init(_ target: Pixmap, pool: LayerPool = LayerPool()) {
        self.pool = pool
        self.base = Sprite(pixmap: target, origin: (0, 0))
        self.clip = target.bounds
    }

    /// Points the canvas at another base pixmap (keeps pool and scratch memory).
    public func retarget(_ target: Pixmap, origin: (x: Int, y: Int) = (0, 0)) {
        precondition(stack.isEmpty, "retarget with open layers")
        base = Sprite(pixmap: target, origin: origin)
        clip = base.bounds
        transform = .identity
    }

    private var current: Sprite { stack.last?.sprite ?? base }

    /// Records that `r` (device pixels) of the innermost layer may have been drawn into.
    private func inked(_ r: IntRect) {
        guard !stack.isEmpty, !r.isEmpty else { return }
        stack[stack.count - 1].ink = stack[stack.count - 1].ink.union(r)
    }

    /// The device rectangle drawing can currently touch.
    public var drawableBounds: IntRect { clip.intersection(current.bounds) }

    // MARK: Filling

    /// Fills a path with a paint, anti-aliased by exact area coverage.
    public func fill(_ path: Path, _ paint: Paint, rule: FillRule = .nonZero, opacity: Double = 1) {
        let target = current
        let bounds = drawableBounds
        guard !bounds.isEmpty, opacity > 0 else { return }
        // A shape whose control points (whose hull holds every flattened edge) lie wholly
        // outside what is drawable puts no pixel: skipped before it is flattened (a band of a
        // page misses most of a toggle's small shapes).
        guard !misses(path.controlBounds, bounds) else { return }
        let pix = target.pixmap, ox = target.origin.x, oy = target.origin.y
        switch paint {
        case .solid(let color):
            let packed = color.multipliedAlpha(clamp(opacity, 0, 1)).premultiplied8.packed
            guard packed != 0 else { return }
            rasterizer.fill(path, transform: transform, rule: rule, clip: bounds) { y, x, n, cov in
                Blend.solidSpan(pix.pixels + (y - oy) * pix.stride + (x - ox), count: n, color: packed, coverage: cov)
            }
            inked(rasterizer.lastBounds)
        case .linearGradient(let g):
            let shader = GradientShader(g, transform: transform, opacity: clamp(opacity, 0, 1))
            if rowScratch.count < bounds.width { rowScratch = [UInt32](repeating: 0, count: bounds.width) }
            rowScratch.withUnsafeMutableBufferPointer { rowBuf in
                let row = rowBuf.baseAddress!
                rasterizer.fill(path, transform: transform, rule: rule, clip: bounds) { y, x, n, cov in
                    let dst = pix.pixels + (y - oy) * pix.stride + (x - ox)
                    if let solid = shader.rowConstant(y: y) {
                        Blend.solidSpan(dst, count: n, color: solid, coverage: cov)
                    } else {
                        shader.shade(y: y, x: x, count: n, into: row)
                        Blend.sourceSpan(dst, count: n, source: row, coverage: cov)
                    }
                }
            }
            inked(rasterizer.lastBounds)
        }
    }

    /// Fills a device-pixel rectangle with a colour (src-over), no anti-aliasing needed.
    public func fill(deviceRect: IntRect, _ color: Color) {
        let target = current
        let r = deviceRect.intersection(drawableBounds)
        guard !r.isEmpty else { return }
        let packed = color.premultiplied8.packed
        let pix = target.pixmap
        inked(r)
        for y in r.minY..<r.maxY {
            Blend.solidSpan(pix.pixels + (y - target.origin.y) * pix.stride + (r.minX - target.origin.x),
                            count: r.width, color: packed, coverage: nil)
        }
    }

    /// Blends `color` through an 8-bit coverage mask (`width`×`height`, row stride `stride`
    /// bytes) whose top-left sits at device pixel (x, y); clipped, transform ignored. Cached
    /// glyph coverage is drawn this way (the same span kernel as path fills).
    public func fill(coverage: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                     atDevice x: Int, _ y: Int, _ color: Color) {
        let target = current
        let r = IntRect(x: x, y: y, width: width, height: height).intersection(drawableBounds)
        guard !r.isEmpty else { return }
        let packed = color.premultiplied8.packed
        guard packed != 0 else { return }
        let pix = target.pixmap
        inked(r)
        for row in r.minY..<r.maxY {
            Blend.solidSpan(pix.pixels + (row - target.origin.y) * pix.stride + (r.minX - target.origin.x),
                            count: r.width, color: packed,
                            coverage: coverage + (row - y) * stride + (r.minX - x))
        }
    }

    /// Blends `color` through an 8-bit plane at its origin moved by `offset` (clipped,
    /// transform ignored): a path's kept coverage (`AlphaPlane(coverageOf:)`) fills as the path.
    public func fill(plane: AlphaPlane, offset: (x: Int, y: Int) = (0, 0), _ color: Color) {
        fill(coverage: plane.bytes, width: plane.width, height: plane.height, stride: plane.width,
             atDevice: plane.origin.x + offset.x, plane.origin.y + offset.y, color)
    }

    /// Writes `table[k]` to every pixel of `deviceRect` (clipped), k being the byte of `plane`
    /// there (placed at its origin moved by `offset`; 0 outside the plane). The pixels are
    /// replaced, not blended: for a fresh layer, or for a caller that has put into the table
    /// what a sequence of fills and composites would have made of each key. `table` holds 256
    /// entries.
    public func store(deviceRect: IntRect, table: UnsafePointer<UInt32>, keyedBy plane: AlphaPlane,
                      offset: (x: Int, y: Int) = (0, 0)) {
        let target = current
        let r = deviceRect.intersection(drawableBounds)
        guard !r.isEmpty else { return }
        inked(r)
        let pix = target.pixmap
        let keys = plane.bounds(offset: offset).intersection(r)
        let outside = table[0]
        for y in r.minY..<r.maxY {
            let row = pix.pixels + (y - target.origin.y) * pix.stride + (r.minX - target.origin.x)
            guard !keys.isEmpty, y >= keys.minY, y < keys.maxY else {
                row.update(repeating: outside, count: r.width)
                continue
            }
            let before = keys.minX - r.minX, n = keys.width
            if before > 0 { row.update(repeating: outside, count: before) }
            let after = r.maxX - keys.maxX
            if after > 0 { (row + before + n).update(repeating: outside, count: after) }
            let k = UnsafePointer(plane.bytes + (y - plane.origin.y - offset.y) * plane.width + (keys.minX - plane.origin.x - offset.x))
            Blend.lookUpSpan(row + before, keys: k, count: n, table: table)
        }
    }

    // MARK: Layers

    /// Starts an off-screen layer covering `deviceBounds` (clipped to what is drawable).
    public func beginLayer(deviceBounds: IntRect) {
        let r = deviceBounds.intersection(drawableBounds)
        let pix = pool.take(width: max(0, r.width), height: max(0, r.height))
        stack.append((Sprite(pixmap: pix, origin: (r.x, r.y)), clip, .zero))
        clip = r
    }

    /// Starts an off-screen layer covering `deviceBounds`, held in `storage`: a transparent
    /// pixmap of exactly that size, not the pool's, for a caller that keeps the layer
    /// (`endLayerAsSprite`) instead of compositing it. `deviceBounds` must lie within what is
    /// drawable.
    public func beginLayer(deviceBounds: IntRect, storage: Pixmap) {
        precondition(deviceBounds.intersection(drawableBounds) == deviceBounds,
                     "beginLayer(deviceBounds:storage:): the layer must lie within what is drawable")
        precondition(storage.width == deviceBounds.width && storage.height == deviceBounds.height,
                     "beginLayer(deviceBounds:storage:): the storage must be the layer's size")
        stack.append((Sprite(pixmap: storage, origin: (deviceBounds.x, deviceBounds.y)), clip, .zero))
        clip = deviceBounds
    }

    /// Starts a layer covering user-space `bounds` under the current transform.
    public func beginLayer(bounds: Rect) {
        beginLayer(deviceBounds: deviceBounds(of: bounds))
    }

    /// Whether user-space `r`, mapped through the transform, lies wholly outside device
    /// rectangle `d` (with a pixel to spare). False when a corner is not finite: the
    /// rasterizer then decides, as it does for every path.
    private func misses(_ r: Rect, _ d: IntRect) -> Bool {
        let a = transform.apply(Point(r.minX, r.minY)), b = transform.apply(Point(r.maxX, r.minY))
        let c = transform.apply(Point(r.minX, r.maxY)), e = transform.apply(Point(r.maxX, r.maxY))
        let x0 = min(min(a.x, b.x), min(c.x, e.x)), x1 = max(max(a.x, b.x), max(c.x, e.x))
        let y0 = min(min(a.y, b.y), min(c.y, e.y)), y1 = max(max(a.y, b.y), max(c.y, e.y))
        guard x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite else { return false }
        return x1 < Double(d.minX) - 1 || x0 > Double(d.maxX) + 1 || y1 < Double(d.minY) - 1 || y0 > Double(d.maxY) + 1
    }

    /// The device pixels a user-space rectangle touches.
    public func deviceBounds(of r: Rect) -> IntRect {
        let pts = [Point(r.minX, r.minY), Point(r.maxX, r.minY), Point(r.minX, r.maxY), Point(r.maxX, r.maxY)].map(transform.apply)
        let xs = pts.map(\.x), ys = pts.map(\.y)
        return Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!).roundedOut
    }

    /// Ends the innermost layer and returns it as a sprite instead of compositing it (for caching
    /// or post-processing). The caller owns the pixmap; give it back to `pool` when done.
    public func endLayerAsSprite() -> Sprite {
        let (sprite, saved, _) = stack.removeLast()
        clip = saved
        return sprite
    }

    /// Ends the innermost layer and composites it into its parent with an opacity and mask.
    /// Only its ink is composited: the rest of the layer is transparent, and src-over of a
    /// transparent pixel leaves the parent's pixel as it is, at any opacity and mask (but a
    /// backdrop mask writes its backdrop there, so the whole layer is composited).
    public func endLayer(opacity: Double = 1, mask: LayerMask? = nil) {
        var ink = stack.last?.ink ?? .zero
        if case .planeOverBackdrop = mask, let top = stack.last { ink = top.sprite.bounds }
        let sprite = endLayerAsSprite()
        let saved = clip
        clip = clip.intersection(ink)
        draw(sprite, opacity: opacity, mask: mask)
        clip = saved
        pool.give(sprite.pixmap)
    }

    /// An opacity as sprites and layers are composited with it: 0…255, rounded.
    public static func opacityLevel(_ opacity: Double) -> UInt32 { UInt32(clamp(opacity, 0, 1) * 255 + 0.5) }

    /// Composites a sprite (src-over) at its origin, with opacity and an optional mask.
    public func draw(_ sprite: Sprite, opacity: Double = 1, mask: LayerMask? = nil) {
        draw(sprite, offset: (0, 0), opacity: opacity, mask: mask)
    }

    /// Composites a sprite (src-over) at its origin moved by `offset` (device pixels), with
    /// opacity and an optional mask. The sprite is only read: canvases on other threads may draw
    /// the same sprite at the same time.
    public func draw(_ sprite: Sprite, offset: (x: Int, y: Int), opacity: Double = 1, mask: LayerMask? = nil) {
        let alpha = Canvas.opacityLevel(opacity)
        guard alpha > 0 else { return }
        let target = current
        let so = (x: sprite.origin.x + offset.x, y: sprite.origin.y + offset.y)
        let spriteBounds = IntRect(x: so.x, y: so.y, width: sprite.pixmap.width, height: sprite.pixmap.height)
        var r = spriteBounds.intersection(drawableBounds)
        if let area = mask?.area { r = r.intersection(area) }
        guard !r.isEmpty else { return }
        // Onto pixels of a layer nothing has been drawn into yet (transparent), src-over is the
        // scaled source itself (`over(x, 0) == x`): stored without reading them.
        let ontoClear = mask == nil && stack.last.map { $0.ink.intersection(r).isEmpty } ?? false
        inked(r)
        let dst = target.pixmap
        if case .path(let path, let rule) = mask {
            // The path's spans, read from the pixmap (which holds every pixel).
            let src = sprite.pixmap
            rasterizer.fill(path, transform: transform, rule: rule, clip: r) { y, x, n, cov in
                let d = dst.pixels + (y - target.origin.y) * dst.stride + (x - target.origin.x)
                let s = UnsafePointer(src.pixels + (y - so.y) * src.stride + (x - so.x))
                Blend.layerSpan(d, source: s, count: n, opacity: alpha, mask: cov)
            }
            return
        }
        if maskScratch.count < r.width { maskScratch = [UInt8](repeating: 0, count: r.width) }
        maskScratch.withUnsafeMutableBufferPointer { mbuf in
            let mrow = mbuf.baseAddress!
            /// Composites device pixels [x0, x1) of row y, the sprite's from `source` on.
            func segment(_ y: Int, _ x0: Int, _ x1: Int, _ source: UnsafePointer<UInt32>) {
                let lo = max(x0, r.minX), hi = min(x1, r.maxX)
                guard hi > lo else { return }
                let d = dst.pixels + (y - target.origin.y) * dst.stride + (lo - target.origin.x)
                let s = source + (lo - x0)
                if ontoClear {
                    Blend.storeSpan(d, source: s, count: hi - lo, opacity: alpha)
                    return
                }
                switch mask {
                case .alpha(let m, let origin):
                    let mp = m.pixels + (y - origin.y) * m.stride + (lo - origin.x)
                    for i in 0..<(hi - lo) { mrow[i] = UInt8(truncatingIfNeeded: mp[i] &>> 24) }
                    Blend.layerSpan(d, source: s, count: hi - lo, opacity: alpha, mask: UnsafePointer(mrow))
                case .plane(let m, let offset):
                    let mp = m.bytes + (y - m.origin.y - offset.y) * m.width + (lo - m.origin.x - offset.x)
                    Blend.layerSpan(d, source: s, count: hi - lo, opacity: alpha, mask: UnsafePointer(mp))
                case .planeOverBackdrop(let m, let offset, let backdrop):
                    let mp = m.bytes + (y - m.origin.y - offset.y) * m.width + (lo - m.origin.x - offset.x)
                    Blend.layerSpan(d, source: s, count: hi - lo, opacity: alpha, mask: UnsafePointer(mp), backdrop: backdrop)
                case .path, nil:
                    Blend.layerSpan(d, source: s, count: hi - lo, opacity: alpha, mask: nil)
                }
            }
            sprite.forEachRun(in: r, placedAt: so, segment)
        }
    }

    /// Composites, through a plane mask, a layer that holds the premultiplied colour `color` at
    /// every pixel of `deviceRect`: the bytes `endLayer(mask:)` would write for such a layer
    /// (the same kernels, at opacity 1), without drawing the layer. Clipped to the clip and the
    /// mask's area.
    public func drawUniform(_ color: UInt32, deviceRect: IntRect, mask: LayerMask) {
        let target = current
        var r = deviceRect.intersection(drawableBounds)
        if let area = mask.area { r = r.intersection(area) }
        guard !r.isEmpty else { return }
        let plane: AlphaPlane, offset: (x: Int, y: Int), backdrop: UInt32?
        switch mask {
        case .plane(let m, let o): (plane, offset, backdrop) = (m, o, nil)
        case .planeOverBackdrop(let m, let o, let b): (plane, offset, backdrop) = (m, o, b)
        case .path, .alpha: preconditionFailure("drawUniform takes a plane mask")
        }
        inked(r)
        let dst = target.pixmap
        // Under a full mask the layer's pixel goes over the backdrop (one colour for the whole
        // run) or over the pixel beneath (a solid span); elsewhere `partialLayer`, as `layerSpan`.
        let full = backdrop.map { Blend.over(color, $0) }
        for y in r.minY..<r.maxY {
            let d = dst.pixels + (y - target.origin.y) * dst.stride + (r.minX - target.origin.x)
            let mp = UnsafePointer(plane.bytes + (y - plane.origin.y - offset.y) * plane.width + (r.minX - plane.origin.x - offset.x))
            Blend.walkCoverage(mp, count: r.width,
                               full: { i, n in
                                   if let full { (d + i).update(repeating: full, count: n) } else { Blend.fullSolid(d + i, count: n, color: color) }
                               },
                               partial: { i in
                                   let m = UInt32(mp[i])
                                   if m == 255, let full { d[i] = full } else { Blend.partialLayer(d + i, color, opacity: 255, mask: m) }
                               })
        }
    }

    /// Composites `first` at `firstOpacity`, then `second` at `secondOpacity` (src-over, no
    /// mask), both at their origins moved by `offset`: the bytes of the two `draw` calls. When
    /// the caller has found the two alike (`Canvas.alike`: one shape in two colours, cross-
    /// fading) both go over each pixel in one pass; otherwise one after the other.
    public func drawPair(_ first: Sprite, opacity firstOpacity: Double, _ second: Sprite, opacity secondOpacity: Double,
                         offset: (x: Int, y: Int) = (0, 0), alike: Bool) {
        let ka = Canvas.opacityLevel(firstOpacity), kb = Canvas.opacityLevel(secondOpacity)
        guard alike, ka > 0, kb > 0 else {
            draw(first, offset: offset, opacity: firstOpacity)
            draw(second, offset: offset, opacity: secondOpacity)
            return
        }
        let target = current
        let so = (x: first.origin.x + offset.x, y: first.origin.y + offset.y)
        let r = IntRect(x: so.x, y: so.y, width: first.pixmap.width, height: first.pixmap.height).intersection(drawableBounds)
        guard !r.isEmpty else { return }
        inked(r)
        // Alike sprites keep their pixels in the same layout: the second's pixel is where the
        // first's is, relative to its storage.
        let dst = target.pixmap, a = UnsafePointer(first.storage), b = UnsafePointer(second.storage)
        func segment(_ y: Int, _ x0: Int, _ x1: Int, _ source: UnsafePointer<UInt32>) {
            let lo = max(x0, r.minX), hi = min(x1, r.maxX)
            guard hi > lo else { return }
            let at = source - a + (lo - x0)
            Blend.layerPairSpan(dst.pixels + (y - target.origin.y) * dst.stride + (lo - target.origin.x),
                                a + at, opacity: ka, b + at, opacity: kb, count: hi - lo)
        }
        first.forEachRun(in: r, placedAt: so, segment)
    }

    /// Whether two sprites cover the same rectangle and are visited alike (both without runs, or
    /// with equal runs), so `drawPair` may take them in one pass. Compares every run: check once
    /// per pair of kept sprites, not per frame.
    public static func alike(_ a: Sprite, _ b: Sprite) -> Bool {
        guard a.bounds == b.bounds, a.isPacked == b.isPacked else { return false }
        switch (a.runs, b.runs) {
        case (nil, nil): return true
        case (let x?, let y?): return x.count == y.count && zip(x, y).allSatisfy { $0 == $1 }
        default: return false
        }
    }

    // MARK: Shadows

    /// Puts a drop shadow under the innermost layer's content: the layer's alpha, blurred with a
    /// Gaussian of `sigma` device pixels, offset by (`dx`, `dy`) device pixels (rounded to whole
    /// pixels) and tinted with `color`; the content stays on top. Calling it again casts the next
    /// shadow from the content including the earlier shadows (SwiftUI's stacked `.shadow`).
    /// The layer must have room for the shadow: see `GaussianBlur.extent`.
    public func applyDropShadow(color: Color, sigma: Double, dx: Double, dy: Double) {
        guard let (top, _, ink) = stack.last else { preconditionFailure("applyDropShadow needs an open layer") }
        let content = ink.intersection(top.bounds).offsetBy(dx: -top.origin.x, dy: -top.origin.y)
        let cast = Canvas.castShadow(on: top.pixmap, color: color, sigma: sigma, dx: Int(dx.rounded()), dy: Int(dy.rounded()),
                                     content: content, scratch: &blurScratch)
        inked(cast.union(content).offsetBy(dx: top.origin.x, dy: top.origin.y))
    }

    /// Puts the shadow of `pix`'s content under it (see `applyDropShadow`). `content` holds
    /// every pixel that is not transparent (the whole pixmap when nil): the shadow is blurred
    /// only around it, as far as the blur reaches, on the whole pixmap's block grid, so the
    /// bytes are those of blurring the whole pixmap, where the rest of the shadow is exactly 0.
    /// Returns the rectangle whose pixels it may have changed.
    @discardableResult
    static func castShadow(on pix: Pixmap, color: Color, sigma: Double, dx: Int, dy: Int, content: IntRect? = nil,
                           scratch: inout [Float]) -> IntRect {
        let whole = IntRect(x: 0, y: 0, width: pix.width, height: pix.height)
        let held = (content ?? whole).intersection(whole)
        guard !held.isEmpty else { return .zero }
        // The part of the pixmap the shadow can reach, its top-left on the block grid.
        let f = GaussianBlur.factor(sigma: sigma), reach = GaussianBlur.reach(sigma: sigma)
        var part = held.offsetBy(dx: dx, dy: dy).insetBy(dx: -reach, dy: -reach).intersection(whole)
        guard !part.isEmpty else { return .zero }
        part = IntRect(x: part.x - part.x % f, y: part.y - part.y % f,
                       width: part.width + part.x % f, height: part.height + part.y % f)
        let w = part.width, h = part.height
        let px = part.x, py = part.y
        let shadowColor = color.premultiplied8.packed
        // content over (shadow colour × blurred alpha), per row: the blurred alpha as 8-bit
        // levels (a loop that vectorises), the levels' tints (runs of one level as one repeated
        // value), then the tints behind the content in lanes. A zero level's tint is transparent
        // and opaque content hides any tint: both leave the content as it is.
        let tint = UnsafeMutablePointer<UInt32>.allocate(capacity: 256)
        let levels = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
        let tints = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        defer { tint.deallocate(); levels.deallocate(); tints.deallocate() }
        for k in 0..<256 { tint[k] = Blend.scale(shadowColor, UInt32(k)) }
        // The part's columns whose source (the offset undone) lies in the pixmap.
        let x0 = max(0, dx - px), x1 = min(w, pix.width + dx - px)
        // The blur loads every row before it stores any: the content it reads is unchanged.
        GaussianBlur.blur(width: w, height: h, sigma: sigma, scratch: &scratch, outputRows: 0..<h, origin: (px, py),
                          load: { y, row in
            // Alpha of the content, shifted by the offset.
            let sy = y + py - dy
            guard sy >= 0 && sy < pix.height && x1 > x0 else { return false }
            let src = pix.pixels + sy * pix.stride + px - dx
            for x in x0..<x1 { row[x] = Float(src[x] &>> 24) * (1 / 255) }
            return true
        }, store: { y, row in
            Blend.quantize(row, count: w, into: levels)
            Blend.lookUpSpan(tints, keys: levels, count: w, table: tint)
            Blend.behindSpan(pix.pixels + (y + py) * pix.stride + px, source: tints, count: w)
        })
        return part
    }

    /// Blurs the innermost layer's content (all channels) with a Gaussian of `sigma` device pixels.
    public func applyBlur(sigma: Double) {
        guard let top = stack.last?.sprite else { preconditionFailure("applyBlur needs an open layer") }
        inked(top.bounds)
        Canvas.blurChannels(top.pixmap, sigma: sigma, rows: 0..<top.pixmap.height, scratch: &blurScratch)
    }

    /// Blurs each of the four channels of `pix` as its own float plane, then keeps the
    /// premultiplied invariant (colour ≤ alpha) after the independent rounding.
    ///
    /// The planes are unpacked and packed row by row. A channel whose bytes equal an earlier
    /// channel's everywhere (a white or grey layer: r = g = b = a) takes that channel's result,
    /// and a channel that is zero everywhere stays zero: the blur is deterministic and maps
    /// zeros to zeros, so this is the same result as blurring it, byte for byte.
    ///
    /// Only rows `rows` are written (all of `pix` is read): they hold what blurring the whole
    /// pixmap puts there, and the other rows keep their pixels, for a caller that keeps a part.
    public static func blurChannels(_ pix: Pixmap, sigma: Double, rows: Range<Int>, scratch: inout [Float]) {
        let w = pix.width, h = pix.height
        let rows = rows.clamped(to: 0..<h)
        guard w > 0, h > 0, sigma > 0, !rows.isEmpty else { return }
        // Which channels are zero, and which equal an earlier one (on the input).
        var nonZero: UInt32 = 0
        var differs = [Bool](repeating: false, count: 16)   // [later * 4 + earlier]
        var anyDiff: UInt32 = 0                               // bit (later*4+earlier)
        for y in 0..<h {
            let row = pix.pixels + y * pix.stride
            for x in 0..<w {
                let c = row[x]
                nonZero |= c
                let r = c & 0xFF, g = (c &>> 8) & 0xFF, b = (c &>> 16) & 0xFF, a = c &>> 24
                anyDiff |= (g != r ? 1 << 4 : 0) | (b != r ? 1 << 8 : 0) | (b != g ? 1 << 9 : 0)
                    | (a != r ? 1 << 12 : 0) | (a != g ? 1 << 13 : 0) | (a != b ? 1 << 14 : 0)
            }
        }
        for i in 0..<16 { differs[i] = anyDiff & (1 << UInt32(i)) != 0 }
        for ch in 0..<4 {
            let shift = UInt32(ch * 8)
            let mask: UInt32 = ~(0xFF << shift)
            if (nonZero &>> shift) & 0xFF == 0 { continue }           // all zero: stays zero
            if let earlier = (0..<ch).first(where: { !differs[ch * 4 + $0] }) {
                // Same input as an earlier channel: same output.
                let from = UInt32(earlier * 8)
                for y in rows {
                    let row = pix.pixels + y * pix.stride
                    for x in 0..<w { row[x] = (row[x] & mask) | (((row[x] &>> from) & 0xFF) &<< shift) }
                }
                continue
            }
            // Every row is loaded before any is stored, and a store changes only this channel.
            GaussianBlur.blur(width: w, height: h, sigma: sigma, scratch: &scratch, outputRows: rows, load: { y, out in
                let row = pix.pixels + y * pix.stride
                for x in 0..<w { out[x] = Float((row[x] &>> shift) & 0xFF) }
                return true
            }, store: { y, src in
                let row = pix.pixels + y * pix.stride
                for x in 0..<w {
                    let v = UInt32(clamp(Double(src[x]), 0, 255) + 0.5)
                    row[x] = (row[x] & mask) | (v &<< shift)
                }
            })
        }
        // Keep premultiplied invariants (colour ≤ alpha) after independent rounding.
        for y in rows {
            let row = pix.pixels + y * pix.stride
            for x in 0..<w {
                var c = PremultipliedRGBA8(packed: row[x])
                c.r = min(c.r, c.a); c.g = min(c.g, c.a); c.b = min(c.b, c.a)
                row[x] = c.packed
            }
        }
    }
}
