import Log
import CSDL2
import Raster
import KioskEngine
import KioskSupport

/// Gets the app's CPU frame onto the screen. Four presenters (which one runs: `PresenterKind`,
/// `DrmRules.route`; docs/kiosk-operation.md "Presenters"):
/// - `SurfacePresenter` (default on X11): SDL's window surface. Only the dirty rectangles are
///   copied (rotated and converted to the surface's pixel format on the way) and only they are
///   sent to the display with `SDL_UpdateWindowSurfaceRects`. No GPU, no texture, no
///   full-window present per frame: the cheapest path on a CPU-only kiosk board.
/// - `ShmPresenter` (default on Wayland): `wl_shm` buffers attached to SDL's own `wl_surface`,
///   each copying only what it missed, no GL.
/// - `TexturePresenter` (`DARKMODE_KIOSK_PRESENT=texture`, and SDL's own kmsdrm driver): an SDL
///   renderer with a streaming texture; dirty rectangles are uploaded, and each present redraws
///   the whole window (GPU work on boards with a GPU, but a full-screen copy per frame in
///   software).
/// - `DrmPresenter` (KMS/ folder; a bare KMS/DRM display): dirty rectangles into our own dumb
///   buffers, flipped on vblank or drawn in place, no GL and no SDL video.
protocol FramePresenter: AnyObject {
    var name: String { get }
    /// True when presenting waits for the display's refresh.
    var vsync: Bool { get }
    /// The drawable size in pixels.
    func outputSize() -> (width: Int, height: Int)
    /// Prepares for a (new) page size. False on failure (message already printed).
    func prepare(_ viewport: Viewport) -> Bool
    /// Copies page rectangles of `frame` towards the screen. False if everything must be resent.
    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool
    /// Shows what was uploaded. False when what was uploaded before is gone (the whole page
    /// must be sent again: the caller's one "needs full upload" flag).
    func present(_ viewport: Viewport) -> Bool
    /// Releases SDL objects tied to the window; called before the window is destroyed.
    func close()
    /// Where to draw the pointer's cursor from the next present on (output pixels, its hot
    /// spot), nil: none. The presenters that run on KMS/DRM draw one: the DRM framebuffer
    /// presenter (into its buffers, `CursorOverlay`) and the GL texture presenter.
    func setCursor(_ outputPixel: Point?)
    /// How a presented frame's time on screen is known (`LatencyLedger`): for most presenters
    /// the return of `present` (`presented`).
    var screenStamp: LatencyLedger.ScreenStamp { get }
    /// Completes the flip in flight, if the presenter queues flips: its vblank time
    /// (CLOCK_MONOTONIC seconds), nil when none was in flight or its time is unknown.
    func finishFlip() -> Double?
    /// How many presents there have been: the serial of the last one (1, 2, …), which a later
    /// screen time names.
    var presentSerial: Int { get }
    /// Whether screen times come later (`lateScreenTimes`) for the presents from now on.
    var learnsScreenTimesLater: Bool { get }
    /// Screen times known only after their present returned: the compositor's presentation
    /// feedback (`wp_presentation`), a frame or two later; CLOCK_MONOTONIC seconds, by present
    /// serial, each returned once. Empty for presenters that know none.
    func lateScreenTimes() -> [LateScreenTime]
    /// What the presenter has to add to the timing lines at exit (`DARKMODE_KIOSK_TIMING=1`).
    var timingLines: [String] { get }
}

extension FramePresenter {
    func setCursor(_ outputPixel: Point?) {}
    var screenStamp: LatencyLedger.ScreenStamp { .presented }
    func finishFlip() -> Double? { nil }
    var presentSerial: Int { 0 }
    var learnsScreenTimesLater: Bool { false }
    func lateScreenTimes() -> [LateScreenTime] { [] }
    var timingLines: [String] { [] }
}

/// When a present (`serial`) reached the screen, learnt after the present returned.
struct LateScreenTime: Equatable {
    var serial: Int
    /// CLOCK_MONOTONIC seconds.
    var shownAt: Double
}

/// Maps page pixels to output pixels for a rotation (integer pixel centres).
struct RotationMap {
    let rotation: Rotation
    let outputWidth: Int
    let outputHeight: Int

    /// The output rectangle covering page rectangle `r`.
    func outputRect(_ r: IntRect) -> IntRect {
        let ow = outputWidth, oh = outputHeight
        switch rotation {
        case .none: return r
        case .clockwise90: return IntRect(x: ow - r.maxY, y: r.minX, width: r.height, height: r.width)
        case .upsideDown: return IntRect(x: ow - r.maxX, y: oh - r.maxY, width: r.width, height: r.height)
        case .clockwise270: return IntRect(x: r.minY, y: oh - r.maxX, width: r.height, height: r.width)
        }
    }

    /// The page pixel shown at output pixel (ox, oy).
    @inline(__always) func pagePixel(_ ox: Int, _ oy: Int) -> (x: Int, y: Int) {
        switch rotation {
        case .none: return (ox, oy)
        case .clockwise90: return (oy, outputWidth - 1 - ox)
        case .upsideDown: return (outputWidth - 1 - ox, outputHeight - 1 - oy)
        case .clockwise270: return (outputHeight - 1 - oy, ox)
        }
    }
}

/// The page pixels of an output rectangle, one output row at a time: straight from the frame
/// when the page is not rotated, else gathered through the rotation into a one-row staging
/// buffer. Rows are in the page's byte order (R, G, B, A).
struct OutputRows {
    private var staging: [UInt32] = []

    /// Calls `body(y, row)` for each row `y` (0-based within `o`) of output rectangle `o`
    /// (inside the output; `map` turns it into page pixels of `frame`); `row` holds `o.width`
    /// pixels and is valid only during the call.
    mutating func forEach(_ o: IntRect, map: RotationMap, frame: Pixmap,
                          _ body: (Int, UnsafeMutablePointer<UInt32>) -> Void) {
        if map.rotation == .none {
            for y in 0..<o.height { body(y, frame.pixels + (o.minY + y) * frame.stride + o.minX) }
            return
        }
        if staging.count < o.width { staging = [UInt32](repeating: 0, count: o.width) }
        staging.withUnsafeMutableBufferPointer { buf in
            let line = buf.baseAddress!
            for y in 0..<o.height {
                for x in 0..<o.width {
                    let p = map.pagePixel(o.minX + x, o.minY + y)
                    line[x] = frame.pixels[p.y * frame.stride + p.x]
                }
                body(y, line)
            }
        }
    }
}

final class SurfacePresenter: FramePresenter {
    private let window: OpaquePointer
    private var surface: UnsafeMutablePointer<SDL_Surface>?
    private var pending: [SDL_Rect] = []
    private var rows = OutputRows()
    /// With the surface's pixel format and who copies into it (what `DARKMODE_KIOSK_TIMING`
    /// prints).
    var name: String {
        guard let format = surface?.pointee.format.pointee.format else { return "window surface" }
        let how = Self.streamedLayout(format) == nil ? "converted by SDL" : "large rectangles streamed"
        return "window surface (" + String(cString: SDL_GetPixelFormatName(format)) + ", " + how + ")"
    }
    let vsync = false

    init?(window: OpaquePointer) {
        self.window = window
        guard let s = SDL_GetWindowSurface(window) else { return nil }
        surface = s
    }

    func outputSize() -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        return (Int(w), Int(h))
    }

    func prepare(_ viewport: Viewport) -> Bool {
        // The surface is invalid after a resize: ask again.
        surface = SDL_GetWindowSurface(window)
        pending.removeAll()
        if surface == nil {
            Log.error("cannot get the window surface: \(Diagnostics.sdlError)")
            return false
        }
        return true
    }

    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        // SDL drops the window surface whenever the window changes (full-screen switch,
        // resize) and says so when it is next updated; a new surface starts empty, so the
        // whole page goes into it.
        var rects = rects
        if surface == nil {
            surface = SDL_GetWindowSurface(window)
            pending.removeAll()
            rects = [frame.bounds]
        }
        guard let surface else { return false }
        let s = surface.pointee
        let ow = Int(s.w), oh = Int(s.h)
        let map = RotationMap(rotation: viewport.rotation, outputWidth: ow, outputHeight: oh)
        let format = s.format.pointee.format
        // Our R, G, B, A bytes as they are, or with red and blue swapped, for the two layouts
        // that take no more (X11's usual XRGB8888); nil: SDL converts.
        let swapsRedBlue = Self.streamedLayout(format)
        var streamed = false
        for page in rects {
            let r = page.intersection(frame.bounds)
            guard !r.isEmpty else { continue }
            let o = map.outputRect(r).intersection(IntRect(x: 0, y: 0, width: ow, height: oh))
            guard !o.isEmpty else { continue }
            // Row by row, in our byte order (R, G, B, A); SDL converts each row into the
            // surface's pixel format.
            let bpp = Int(s.format.pointee.BytesPerPixel), pitch = Int(s.pitch)
            if let swapsRedBlue, o.area >= StreamingCopy.minPixels, pitch % 4 == 0 {
                // A large rectangle streams past the caches (`StreamingCopy`): the display
                // server reads the surface, not we.
                let base = s.pixels!.assumingMemoryBound(to: UInt32.self)
                rows.forEach(o, map: map, frame: frame) { y, src in
                    StreamingCopy.row(base + (o.minY + y) * (pitch / 4) + o.minX, from: src, count: o.width,
                                      swappingRedBlue: swapsRedBlue)
                }
                streamed = true
            } else if let swapsRedBlue, pitch % 4 == 0 {
                // A small rectangle (a drifting cloud, a twinkling star) with ordinary stores,
                // its lines staying cached: no SDL_ConvertPixels per row, which sets up a blit
                // each call.
                let base = s.pixels!.assumingMemoryBound(to: UInt32.self)
                rows.forEach(o, map: map, frame: frame) { y, src in
                    let dst = base + (o.minY + y) * (pitch / 4) + o.minX
                    if swapsRedBlue {
                        ScanoutFormat.xrgb8888.storeRow(UnsafeMutableRawPointer(dst), from: src, count: o.width, streamed: false)
                    } else {
                        dst.update(from: src, count: o.width)
                    }
                }
            } else {
                rows.forEach(o, map: map, frame: frame) { y, src in
                    let dst = s.pixels! + (o.minY + y) * pitch + o.minX * bpp
                    _ = SDL_ConvertPixels(Int32(o.width), 1, CSDL2_PIXELFORMAT_RGBA32, src, Int32(o.width * 4),
                                          format, dst, s.pitch)
                }
            }
            pending.append(SDL_Rect(x: Int32(o.x), y: Int32(o.y), w: Int32(o.width), h: Int32(o.height)))
        }
        if streamed { StreamingCopy.fence() }
        return true
    }

    /// Whether a surface of pixel format `format` takes our pixels (R, G, B, A bytes) as they
    /// are (false) or with red and blue swapped (true), with nothing else to convert: the two
    /// 32-bit layouts whose bytes are ours or ours with red and blue exchanged, on a
    /// little-endian machine. nil for any other format (SDL converts those). An X byte (RGB888,
    /// BGR888) gets our alpha, which the display ignores.
    static func streamedLayout(_ format: UInt32) -> Bool? {
        guard UInt32(1).littleEndian == 1 else { return nil }
        switch format {
        case CSDL2_PIXELFORMAT_RGBA32, SDL_PIXELFORMAT_XBGR8888.rawValue: return false
        case SDL_PIXELFORMAT_ARGB8888.rawValue, SDL_PIXELFORMAT_XRGB8888.rawValue: return true
        default: return nil
        }
    }

    func present(_ viewport: Viewport) -> Bool {
        let status: Int32
        if pending.isEmpty {
            status = SDL_UpdateWindowSurface(window)
        } else {
            status = pending.withUnsafeBufferPointer { SDL_UpdateWindowSurfaceRects(window, $0.baseAddress, Int32($0.count)) }
        }
        pending.removeAll(keepingCapacity: true)
        // SDL refuses the update when the window changed under the surface: ask for the new
        // surface at the next upload, which the caller makes a whole-page one.
        if status != 0 { surface = nil }
        return status == 0
    }

    /// The window owns its surface.
    func close() { surface = nil }
}

final class TexturePresenter: FramePresenter {
    private let window: OpaquePointer
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var hasPresented = false
    private var cursor: Point?
    private var cursorTexture: OpaquePointer?
    let name: String
    let vsync: Bool

    init?(window: OpaquePointer) {
        self.window = window
        var vsyncAsked = true
        var r = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue)
        if r == nil {
            vsyncAsked = false
            r = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        }
        guard let r else { return nil }
        renderer = r
        var info = SDL_RendererInfo()
        SDL_GetRendererInfo(r, &info)
        name = "renderer " + (info.name.map { String(cString: $0) } ?? "?")
        vsync = vsyncAsked && (info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue) != 0
    }

    deinit { close() }

    /// Destroys the texture and the renderer (before the window: the renderer points at it).
    func close() {
        if let cursorTexture { SDL_DestroyTexture(cursorTexture) }
        cursorTexture = nil
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        texture = nil
        renderer = nil
    }

    func outputSize() -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        if renderer == nil || SDL_GetRendererOutputSize(renderer, &w, &h) != 0 { SDL_GL_GetDrawableSize(window, &w, &h) }
        return (Int(w), Int(h))
    }

    func prepare(_ viewport: Viewport) -> Bool {
        guard let renderer else { return false }
        if let texture { SDL_DestroyTexture(texture) }
        texture = SDL_CreateTexture(renderer, CSDL2_PIXELFORMAT_RGBA32, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                    Int32(viewport.pagePixelWidth), Int32(viewport.pagePixelHeight))
        guard let texture else {
            Log.error("cannot create a \(viewport.pagePixelWidth)x\(viewport.pagePixelHeight) texture: \(Diagnostics.sdlError)")
            return false
        }
        // The page is opaque: copy, do not blend.
        SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_NONE)
        return true
    }

    func upload(_ rects: [IntRect], from frame: Pixmap, viewport: Viewport) -> Bool {
        guard let texture else { return false }
        let clipped = rects.map { $0.intersection(frame.bounds) }.filter { !$0.isEmpty }
        // Many tiny rectangles cost more in calls than in bytes: merge past a handful.
        let batch = clipped.count > 16 ? [clipped.dropFirst().reduce(clipped[0]) { $0.union($1) }] : clipped
        let pitch = Int32(frame.stride * 4)
        for r in batch {
            var rect = SDL_Rect(x: Int32(r.x), y: Int32(r.y), w: Int32(r.width), h: Int32(r.height))
            let first = UnsafeRawPointer(frame.pixels + r.y * frame.stride + r.x)
            if SDL_UpdateTexture(texture, &rect, first, pitch) != 0 { return false }
        }
        return true
    }

    func present(_ viewport: Viewport) -> Bool {
        guard let texture, let renderer else { return false }
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if viewport.rotation == .none {
            SDL_RenderCopy(renderer, texture, nil, nil)
        } else {
            let r = viewport.presentationRect
            var dst = SDL_FRect(x: Float(r.x), y: Float(r.y), w: Float(r.width), h: Float(r.height))
            SDL_RenderCopyExF(renderer, texture, nil, &dst, Double(viewport.rotation.degrees), nil, SDL_FLIP_NONE)
        }
        if let cursor { drawCursor(at: cursor, renderer, viewport) }
        if !hasPresented, vsync {
            // The first present does not wait for vsync: on Wayland SDL's GL swap waits for the
            // compositor's frame callback, which a window that has shown nothing yet never gets
            // (a 166 ms timeout on the headless cage test). Later presents pace the animation.
            SDL_RenderSetVSync(renderer, 0)
            SDL_RenderPresent(renderer)
            SDL_RenderSetVSync(renderer, 1)
        } else {
            SDL_RenderPresent(renderer)
        }
        hasPresented = true
        // Textures survive window changes (device resets are reported as events).
        return true
    }

    func setCursor(_ outputPixel: Point?) { cursor = outputPixel }

    /// The arrow at its hot spot, scaled like the page and turned with it (it points to the
    /// page's top-left as the viewer sees it).
    private func drawCursor(at p: Point, _ renderer: OpaquePointer, _ viewport: Viewport) {
        if cursorTexture == nil {
            let w = Int32(CursorSprite.width), h = Int32(CursorSprite.height)
            cursorTexture = SDL_CreateTexture(renderer, CSDL2_PIXELFORMAT_RGBA32, Int32(SDL_TEXTUREACCESS_STATIC.rawValue), w, h)
            guard let cursorTexture else { return }
            SDL_SetTextureBlendMode(cursorTexture, SDL_BLENDMODE_BLEND)
            let pixels = CursorSprite.rgba
            pixels.withUnsafeBytes { _ = SDL_UpdateTexture(cursorTexture, nil, $0.baseAddress, w * 4) }
        }
        guard let cursorTexture else { return }
        let s = Float(max(1, viewport.scale.rounded()))
        var dst = SDL_FRect(x: Float(p.x), y: Float(p.y), w: Float(CursorSprite.width) * s, h: Float(CursorSprite.height) * s)
        var hotSpot = SDL_FPoint(x: 0, y: 0)
        SDL_RenderCopyExF(renderer, cursorTexture, nil, &dst, Double(viewport.rotation.degrees), &hotSpot, SDL_FLIP_NONE)
    }
}
