import CStreamingStore

/// The pixel formats a display controller scans out that the framebuffer presenter writes
/// (DRM dumb buffers): 32-bit XRGB8888, which every KMS driver takes, and 16-bit RGB565, the
/// only one many small SPI and parallel panels (tinydrm / mipi-dbi) take. Our pixels are
/// R, G, B, A bytes (a little-endian 0xAABBGGRR); each row is converted on the way out, with
/// large rectangles streamed past the caches as `StreamingCopy` does (the display reads the
/// buffer, not we).
public enum ScanoutFormat: String, CaseIterable, Sendable {
    /// 0xXXRRGGBB in a little-endian 32-bit word: our red and blue swapped.
    case xrgb8888
    /// 5 bits red, 6 green, 5 blue in a little-endian 16-bit word, red highest; truncated.
    case rgb565

    public var bytesPerPixel: Int { self == .xrgb8888 ? 4 : 2 }

    /// The name DRM and the log use.
    public var name: String { self == .xrgb8888 ? "XRGB8888" : "RGB565" }

    /// Writes `count` pixels from `src` at `dst` in this format; non-temporal stores when
    /// `streamed` (call `StreamingCopy.fence()` before handing the buffer on).
    @inlinable
    public func storeRow(_ dst: UnsafeMutableRawPointer, from src: UnsafePointer<UInt32>, count: Int, streamed: Bool) {
        switch self {
        case .xrgb8888:
            let d = dst.assumingMemoryBound(to: UInt32.self)
            if streamed {
                StreamingCopy.row(d, from: src, count: count, swappingRedBlue: true)
            } else {
                for x in 0..<count {
                    let p = src[x]
                    d[x] = (p & 0xFF00_FF00) | ((p & 0xFF) &<< 16) | ((p &>> 16) & 0xFF)
                }
            }
        case .rgb565:
            darkmode_kiosk_row_565(dst.assumingMemoryBound(to: UInt16.self), src, count, streamed ? 1 : 0)
        }
    }

    /// One pixel in this format (the low `bytesPerPixel` bytes, little-endian): the reference
    /// the row kernels are tested against.
    public func pixel(_ p: UInt32) -> UInt32 {
        switch self {
        case .xrgb8888: return (p & 0xFF00_FF00) | ((p & 0xFF) << 16) | ((p >> 16) & 0xFF)
        case .rgb565:
            let r = p & 0xFF, g = (p >> 8) & 0xFF, b = (p >> 16) & 0xFF
            return ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)
        }
    }
}

extension Pixmap {
    /// Copies page rectangle `rect` (clipped to the page) into a buffer of `format` whose rows are
    /// `pitch` bytes apart, at the same position (no rotation): what the framebuffer presenter
    /// does for an unrotated page, and what `bench` times. A rectangle of at least
    /// `StreamingCopy.minPixels` pixels is streamed and fenced.
    public func presentCopy(_ rect: IntRect, into base: UnsafeMutableRawPointer, pitch: Int, format: ScanoutFormat) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        let streamed = r.area >= StreamingCopy.minPixels
        let bpp = format.bytesPerPixel
        for y in r.minY..<r.maxY {
            format.storeRow(base + y * pitch + r.minX * bpp, from: pixels + y * stride + r.minX, count: r.width, streamed: streamed)
        }
        if streamed { StreamingCopy.fence() }
    }
}
