import Raster

/// A glyph's coverage at one size and sub-pixel phase, as our rasterizer computed it.
public final class GlyphBitmap {
    /// Offset of the bitmap's top-left from the (integer) pen position, in pixels.
    public let left: Int, top: Int
    public let width: Int, height: Int
    public let coverage: [UInt8]

    init(left: Int, top: Int, width: Int, height: Int, coverage: [UInt8]) {
        self.left = left; self.top = top; self.width = width; self.height = height; self.coverage = coverage
    }

    /// Sum of coverage (255 = one fully covered pixel).
    public var coverageSum: Int { coverage.reduce(0) { $0 + Int($1) } }
}

/// Draws shaped lines with glyph coverage computed by Raster's exact-area rasterizer and cached
/// per (face, glyph, pixel size, quarter-pixel x phase). Drawing a line that has been drawn before
/// costs one coverage blit per glyph (the solid-colour span kernel, premultiplied src-over).
///
/// Positions are in device pixels: x is rounded to a quarter pixel, the baseline y to a whole
/// pixel. The renderer belongs to one `FontSet` (face indices are that set's).
public final class GlyphRenderer {
    public static let phases = 4

    struct Key: Hashable {
        var face: Int32
        var glyph: UInt32
        var size64: Int32
        var phase: UInt8
    }

    public let fonts: FontSet
    /// When the cache holds more coverage bytes than this it is emptied before the next glyph is
    /// added (the page's labels need well under 100 KB; a size change then cannot grow it forever).
    public var maxCachedBytes = 4 << 20
    private var cache: [Key: GlyphBitmap] = [:]
    private var bytes = 0
    private let rasterizer = Rasterizer()
    /// Cache statistics since creation.
    public private(set) var hits = 0, misses = 0

    public init(fonts: FontSet) { self.fonts = fonts }

    public var cachedGlyphCount: Int { cache.count }
    /// Bytes of coverage held by the cache.
    public var cachedBytes: Int { bytes }

    public func removeAll() { cache.removeAll(); bytes = 0 }

    /// Splits a device x into the integer pixel and the quarter-pixel phase (0…3).
    @inline(__always)
    static func quantize(_ x: Double) -> (pixel: Int, phase: Int) {
        let q = Int((x * Double(phases)).rounded())
        let pixel = q >= 0 ? q / phases : -((-q + phases - 1) / phases)
        return (pixel, q - pixel * phases)
    }

    /// The transform from a glyph's outline (font units, y down) to device pixels relative to the
    /// integer pen position.
    static func glyphTransform(face: FontFace, pixelSize: Double, phase: Int) -> Transform {
        let k = pixelSize / face.unitsPerEm
        return Transform(a: k, b: 0, c: 0, d: k, tx: Double(phase) / Double(phases), ty: 0)
    }

    /// The cached coverage of a glyph (rasterizing it on first use).
    public func bitmap(face: Int, glyph: UInt32, pixelSize: Double, phase: Int) -> GlyphBitmap {
        let key = Key(face: Int32(face), glyph: glyph, size64: Int32((pixelSize * 64).rounded()), phase: UInt8(phase))
        if let b = cache[key] { hits += 1; return b }
        misses += 1
        let f = fonts.faces[face]
        let path = f.outline(glyph: glyph)
        let t = Self.glyphTransform(face: f, pixelSize: pixelSize, phase: phase)
        let box = path.applying(t).controlBounds.roundedOut
        var cov = [UInt8](repeating: 0, count: max(0, box.width * box.height))
        if !path.isEmpty && !box.isEmpty {
            cov.withUnsafeMutableBufferPointer { buf in
                rasterizer.fill(path, transform: t, clip: box) { y, x, n, c in
                    (buf.baseAddress! + (y - box.y) * box.width + (x - box.x)).update(from: c, count: n)
                }
            }
        }
        let b = GlyphBitmap(left: box.x, top: box.y, width: max(0, box.width), height: max(0, box.height), coverage: cov)
        if bytes + cov.count > maxCachedBytes { removeAll() }
        cache[key] = b
        bytes += cov.count
        return b
    }

    /// Draws `line` with its baseline's left end at `origin` (device pixels), in `color`
    /// (straight alpha; blended premultiplied src-over). Glyphs no face covers (.notdef) are
    /// skipped: the line's warnings report them.
    public func draw(_ line: ShapedLine, on canvas: Canvas, baselineOrigin origin: Point, color: Color) {
        let by = Int(origin.y.rounded())
        for g in line.glyphs where g.glyph != 0 {
            let (px, phase) = Self.quantize(origin.x + g.x)
            let b = bitmap(face: g.face, glyph: g.glyph, pixelSize: line.pixelSize, phase: phase)
            guard b.width > 0 && b.height > 0 else { continue }
            let gy = by + Int(g.y.rounded())
            b.coverage.withUnsafeBufferPointer { buf in
                canvas.fill(coverage: buf.baseAddress!, width: b.width, height: b.height, stride: b.width,
                            atDevice: px + b.left, gy + b.top, color)
            }
        }
    }

    /// Draws `line` with its baseline's left end at `point` in the canvas's user space. The
    /// canvas transform must be a translation and scale (the page is drawn unrotated), and the line
    /// shaped at the device size (points × that scale).
    public func draw(_ line: ShapedLine, on canvas: Canvas, at point: Point, color: Color) {
        precondition(canvas.transform.b == 0 && canvas.transform.c == 0,
                     "GlyphRenderer draws with axis-aligned transforms only")
        draw(line, on: canvas, baselineOrigin: canvas.transform.apply(point), color: color)
    }

    /// The same picture without the cache: every glyph's outline is filled through the canvas
    /// at the same quantized position (a reference for tests, and for transforms the cache
    /// cannot serve).
    public func drawUncached(_ line: ShapedLine, on canvas: Canvas, baselineOrigin origin: Point, color: Color) {
        let saved = canvas.transform
        defer { canvas.transform = saved }
        let by = Int(origin.y.rounded())
        for g in line.glyphs where g.glyph != 0 {
            let (px, phase) = Self.quantize(origin.x + g.x)
            let f = fonts.faces[g.face]
            let t = Self.glyphTransform(face: f, pixelSize: line.pixelSize, phase: phase)
            canvas.transform = t.concatenatingTranslation(Double(px), Double(by + Int(g.y.rounded())))
            canvas.fill(f.outline(glyph: g.glyph), .solid(color))
        }
    }
}

extension Transform {
    /// This transform followed by a translation.
    func concatenatingTranslation(_ dx: Double, _ dy: Double) -> Transform {
        Transform(a: a, b: b, c: c, d: d, tx: tx + dx, ty: ty + dy)
    }
}
