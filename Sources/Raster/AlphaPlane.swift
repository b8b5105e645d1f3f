/// An 8-bit coverage plane: `width × height` bytes, row by row (stride = width), placed in
/// device space at `origin`. A kept mask as a plane reads a quarter of the bytes of the same
/// mask kept as a pixmap's alpha, and needs no per-row extraction when it is applied.
public final class AlphaPlane {
    public let width: Int
    public let height: Int
    public let origin: (x: Int, y: Int)
    public let bytes: UnsafeMutablePointer<UInt8>

    /// The alpha channel of a sprite's pixels, at the sprite's origin.
    public init(alphaOf sprite: Sprite) {
        let p = sprite.pixmap
        width = p.width
        height = p.height
        origin = sprite.origin
        bytes = .allocate(capacity: max(1, width * height))
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
