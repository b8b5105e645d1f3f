import KioskEngine
import Raster

/// Where the pointer's arrow (`CursorSprite`) lands on the output, for presenters that draw
/// it into their own buffers (the DRM framebuffer presenter). Pure geometry, no DRM.
///
/// The arrow looks as the GL texture presenter draws it: scaled by the page's scale rounded to
/// a whole number (at least 1), and turned with the page (clockwise by `rotation`) about its
/// hot spot, so it points to the page's top-left as the viewer sees it. The hot spot (the
/// sprite's top-left pixel) is the output pixel the pointer is on, for every rotation; a
/// turned sprite is rotated by whole pixels about that pixel.
struct CursorPlacement: Equatable {
    /// The output pixel under the pointer (the arrow's tip).
    let hotX: Int
    let hotY: Int
    /// Output pixels per sprite pixel.
    let scale: Int
    let rotation: Rotation

    init(hotX: Int, hotY: Int, scale: Int, rotation: Rotation) {
        self.hotX = hotX
        self.hotY = hotY
        self.scale = max(1, scale)
        self.rotation = rotation
    }

    /// The arrow for a pointer at output position `hotSpot` (continuous output pixels, as
    /// `Viewport.outputPixel(fromPage:)` gives it) on a page of `viewport`'s scale and rotation.
    init(hotSpot: Point, viewport: Viewport) {
        let s = viewport.scale.isFinite ? Int(max(1, viewport.scale.rounded())) : 1
        self.init(hotX: Int(hotSpot.x.rounded(.down)), hotY: Int(hotSpot.y.rounded(.down)), scale: s, rotation: viewport.rotation)
    }

    /// The sprite's size in output pixels before it is turned.
    private var spanX: Int { CursorSprite.width * scale }
    private var spanY: Int { CursorSprite.height * scale }

    /// Every output pixel the arrow may cover (not clipped to the output).
    var rect: IntRect {
        let w = spanX, h = spanY
        switch rotation {
        case .none: return IntRect(x: hotX, y: hotY, width: w, height: h)
        case .clockwise90: return IntRect(x: hotX - h + 1, y: hotY, width: h, height: w)
        case .upsideDown: return IntRect(x: hotX - w + 1, y: hotY - h + 1, width: w, height: h)
        case .clockwise270: return IntRect(x: hotX, y: hotY - w + 1, width: h, height: w)
        }
    }

    /// The output pixel showing sprite offset (dx, dy) (output pixels from the hot spot,
    /// before turning: 0..<width*scale, 0..<height*scale).
    func outputPixel(dx: Int, dy: Int) -> (x: Int, y: Int) {
        switch rotation {
        case .none: return (hotX + dx, hotY + dy)
        case .clockwise90: return (hotX - dy, hotY + dx)
        case .upsideDown: return (hotX - dx, hotY - dy)
        case .clockwise270: return (hotX + dy, hotY - dx)
        }
    }

    /// The sprite pixel (column, row) shown at output pixel (ox, oy); nil outside the sprite.
    @inline(__always) func spritePixel(_ ox: Int, _ oy: Int) -> (x: Int, y: Int)? {
        let rx = ox - hotX, ry = oy - hotY
        let dx: Int, dy: Int
        switch rotation {
        case .none: (dx, dy) = (rx, ry)
        case .clockwise90: (dx, dy) = (ry, -rx)
        case .upsideDown: (dx, dy) = (-rx, -ry)
        case .clockwise270: (dx, dy) = (-ry, rx)
        }
        guard dx >= 0, dy >= 0, dx < spanX, dy < spanY else { return nil }
        return (dx / scale, dy / scale)
    }

    /// What every buffer must redraw when the arrow goes from `old` to `new` (either nil:
    /// none): the page back under the old arrow, the arrow at the new place. Clipped to
    /// `bounds`; empty when nothing changed on screen.
    static func damage(from old: CursorPlacement?, to new: CursorPlacement?, bounds: IntRect) -> [IntRect] {
        guard old != new else { return [] }
        return [old?.rect, new?.rect].compactMap { $0?.intersection(bounds) }.filter { !$0.isEmpty }
    }
}

/// Draws the arrow into a mapped buffer of a scanout format (XRGB8888 or RGB565), over the
/// page already there. The sprite is opaque or transparent pixel by pixel (no partial alpha),
/// so drawing a pixel twice gives the same bytes: clips may overlap.
enum CursorOverlay {
    /// The sprite's pixels in our byte order (0xAABBGGRR), row by row; alpha 0: transparent.
    static let pixels: [UInt32] = {
        let bytes = CursorSprite.rgba
        var words: [UInt32] = []
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let r = UInt32(bytes[i]), g = UInt32(bytes[i + 1]) << 8
            let b = UInt32(bytes[i + 2]) << 16, a = UInt32(bytes[i + 3]) << 24
            words.append(r | g | b | a)
        }
        return words
    }()

    /// Draws the arrow (if any) into each of `rects`, the rectangles a buffer has just copied
    /// from the page: where the page came back, the arrow goes back over it.
    static func draw(_ placement: CursorPlacement?, over rects: [IntRect], bounds: IntRect,
                     into base: UnsafeMutableRawPointer, pitch: Int, format: ScanoutFormat) {
        guard let placement else { return }
        for r in rects { draw(placement, clip: r, bounds: bounds, into: base, pitch: pitch, format: format) }
    }

    /// Draws `placement`'s arrow where it meets `clip` (output pixels) into the buffer at
    /// `base` (`pitch` bytes a row, `bounds` its size) in `format`.
    static func draw(_ placement: CursorPlacement, clip: IntRect, bounds: IntRect,
                     into base: UnsafeMutableRawPointer, pitch: Int, format: ScanoutFormat) {
        let area = placement.rect.intersection(clip).intersection(bounds)
        guard !area.isEmpty else { return }
        let bpp = format.bytesPerPixel, w = CursorSprite.width
        pixels.withUnsafeBufferPointer { sprite in
            for oy in area.minY..<area.maxY {
                let row = base + oy * pitch
                for ox in area.minX..<area.maxX {
                    guard let s = placement.spritePixel(ox, oy) else { continue }
                    let p = sprite[s.y * w + s.x]
                    guard p >> 24 != 0 else { continue }
                    let v = format.pixel(p)
                    if bpp == 4 {
                        (row + ox * 4).storeBytes(of: v, as: UInt32.self)
                    } else {
                        (row + ox * 2).storeBytes(of: UInt16(truncatingIfNeeded: v), as: UInt16.self)
                    }
                }
            }
        }
    }
}
