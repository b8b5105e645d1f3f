/// Premultiplied RGBA8 pixels.
///
/// Byte order in memory is R, G, B, A (`SDL_PIXELFORMAT_RGBA32`, which SDL maps to
/// `ABGR8888` on little-endian machines), so a frame uploads to an SDL texture with no swizzle.
/// Read as a little-endian `UInt32` a pixel is `a << 24 | b << 16 | g << 8 | r`.
///
/// A pixmap owns its memory; it is a class so that layers can be pooled and handed around
/// without copy-on-write surprises in pixel loops. `stride` is in pixels.
public final class Pixmap {
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var stride: Int
    public private(set) var pixels: UnsafeMutablePointer<UInt32>
    private var capacity: Int

    /// A transparent pixmap of the given size.
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "pixmap size must not be negative")
        self.width = width
        self.height = height
        self.stride = width
        self.capacity = max(1, width * height)
        self.pixels = .allocate(capacity: capacity)
        LargeAllocations.note(bytes: capacity * 4)
        pixels.initialize(repeating: 0, count: capacity)
    }

    deinit { pixels.deallocate() }

    /// Changes the size, reusing the memory when it is large enough; contents become
    /// transparent, or are left as they are with `cleared: false` (for a caller that writes
    /// every pixel).
    public func reset(width: Int, height: Int, cleared: Bool = true) {
        precondition(width >= 0 && height >= 0, "pixmap size must not be negative")
        let needed = max(1, width * height)
        if needed > capacity {
            pixels.deallocate()
            capacity = needed
            pixels = .allocate(capacity: capacity)
            LargeAllocations.note(bytes: capacity * 4)
        }
        self.width = width
        self.height = height
        self.stride = width
        if cleared { pixels.update(repeating: 0, count: needed) }
    }

    /// How many pixels the current allocation can hold without growing.
    public var capacityPixels: Int { capacity }

    public var bounds: IntRect { IntRect(x: 0, y: 0, width: width, height: height) }
    public var byteCount: Int { width * height * 4 }

    @inlinable public subscript(x: Int, y: Int) -> UInt32 {
        get { precondition(x >= 0 && x < width && y >= 0 && y < height); return pixels[y * stride + x] }
        set { precondition(x >= 0 && x < width && y >= 0 && y < height); pixels[y * stride + x] = newValue }
    }

    /// The premultiplied colour at (x, y).
    public func color(x: Int, y: Int) -> PremultipliedRGBA8 { PremultipliedRGBA8(packed: self[x, y]) }

    /// Fills a rectangle (clipped to the pixmap) with one packed premultiplied colour, replacing what is there.
    public func fill(_ rect: IntRect, with packed: UInt32) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        for y in r.minY..<r.maxY {
            (pixels + y * stride + r.minX).update(repeating: packed, count: r.width)
        }
    }

    /// Fills a rectangle (clipped to the pixmap) with one packed premultiplied colour and
    /// composites `sprite` over it (src-over, opacity 1), touching each row once: the same
    /// bytes as `fill` followed by `Canvas.draw(sprite)` clipped to the rectangle.
    public func fill(_ rect: IntRect, with packed: UInt32, under sprite: Sprite) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        let s = sprite.bounds.intersection(r)
        let src = sprite.pixmap
        for y in r.minY..<r.maxY {
            let row = pixels + y * stride
            guard !s.isEmpty, y >= s.minY, y < s.maxY else {
                (row + r.minX).update(repeating: packed, count: r.width)
                continue
            }
            if s.minX > r.minX { (row + r.minX).update(repeating: packed, count: s.minX - r.minX) }
            Blend.overColorSpan(row + s.minX,
                                source: src.pixels + (y - sprite.origin.y) * src.stride + (s.minX - sprite.origin.x),
                                count: s.width, color: packed)
            if r.maxX > s.maxX { (row + s.maxX).update(repeating: packed, count: r.maxX - s.maxX) }
        }
    }

    /// Clears everything to transparent.
    public func clear() { fill(bounds, with: 0) }

    /// A view of a sub-rectangle (clipped to the pixmap). The view borrows this pixmap's memory.
    public func view(_ rect: IntRect) -> PixmapView {
        let r = rect.intersection(bounds)
        return PixmapView(base: pixels + r.minY * stride + r.minX, width: r.width, height: r.height, stride: stride,
                          origin: (r.minX, r.minY))
    }

    public var fullView: PixmapView { view(bounds) }

    /// Copies `rect` (clipped) from another pixmap of the same size into this one, verbatim.
    public func copy(_ rect: IntRect, from src: Pixmap) {
        let r = rect.intersection(bounds).intersection(src.bounds)
        guard !r.isEmpty else { return }
        for y in r.minY..<r.maxY {
            (pixels + y * stride + r.minX).update(from: src.pixels + y * src.stride + r.minX, count: r.width)
        }
    }

    /// Straight-alpha RGBA8 bytes, row-major without padding (for PNG encoding).
    public func straightRGBABytes() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        var i = 0
        for y in 0..<height {
            for x in 0..<width {
                let c = PremultipliedRGBA8(packed: pixels[y * stride + x]).unpremultiplied
                out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b; out[i + 3] = c.a
                i += 4
            }
        }
        return out
    }

    /// Builds a pixmap from straight-alpha RGBA8 bytes (row-major, no padding).
    public convenience init(width: Int, height: Int, straightRGBA bytes: [UInt8]) {
        precondition(bytes.count == width * height * 4, "byte count does not match the size")
        self.init(width: width, height: height)
        var i = 0
        for p in 0..<(width * height) {
            pixels[p] = StraightRGBA8(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2], a: bytes[i + 3]).premultiplied.packed
            i += 4
        }
    }

    /// An independent copy.
    public func clone() -> Pixmap {
        let p = Pixmap(width: width, height: height)
        p.copy(bounds, from: self)
        return p
    }
}

/// A borrowed rectangular window into a pixmap's memory (stride in pixels).
public struct PixmapView {
    public let base: UnsafeMutablePointer<UInt32>
    public let width: Int
    public let height: Int
    public let stride: Int
    /// Where the view's top-left pixel sits in the pixmap it was taken from.
    public let origin: (x: Int, y: Int)

    @inlinable public func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { base + y * stride }
}
