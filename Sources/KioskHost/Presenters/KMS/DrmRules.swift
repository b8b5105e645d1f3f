import KioskSupport
import Raster

/// The framebuffer presenter's choices, pure (tested without a display): whether to drive the
/// display ourselves, which mode and pixel format, and how frames reach the screen.
public enum DrmRules {
    /// Whether to open a DRM device for our own presenter before SDL starts (then SDL runs its
    /// invisible `evdev` video driver: input and events only, the display is ours). Asked for
    /// by `DARKMODE_KIOSK_PRESENT=drm` (`present`: nil when automatic); automatic when SDL would run its kmsdrm driver: asked for
    /// by `SDL_VIDEODRIVER=kmsdrm`, or nothing named and no X server or Wayland compositor to
    /// talk to while a DRM card exists. `required`: a failure to open ends the start (asked by
    /// name); otherwise it falls back to SDL's own kmsdrm driver and the GL texture presenter.
    public static func route(present: PresenterKind?, videoDriver: String?, hasDisplay: Bool, hasWayland: Bool,
                             hasCard: Bool) -> (tryDRM: Bool, required: Bool) {
        if present == .drm { return (true, true) }
        if present != nil { return (false, false) }
        let driver = (videoDriver ?? "").lowercased().filter { !$0.isWhitespace }
        if driver == "kmsdrm" { return (true, false) }
        if driver.isEmpty, !hasDisplay, !hasWayland, hasCard { return (true, false) }
        return (false, false)
    }

    /// A connector's mode to drive: the one marked preferred, else the largest (most pixels,
    /// then the highest refresh rate). Index into `modes` (width, height, refresh, preferred);
    /// nil for none.
    public static func pickMode(_ modes: [(width: Int, height: Int, refresh: Int, preferred: Bool)]) -> Int? {
        if let i = modes.firstIndex(where: \.preferred) { return i }
        return modes.indices.max { a, b in
            let (x, y) = (modes[a], modes[b])
            return (x.width * x.height, x.refresh) < (y.width * y.height, y.refresh)
        }
    }

    /// The pixel format: `DARKMODE_KIOSK_DRM_FORMAT` (`request`) when the plane takes it, else
    /// XRGB8888 when the plane takes it, else RGB565 when it does. `planeFormats` nil: unknown
    /// (no plane list), XRGB8888 assumed (every KMS driver's legacy default). A request the
    /// plane does not take gives a warning.
    public static func pickFormat(request: ScanoutFormat?, planeFormats: [ScanoutFormat]?) -> (format: ScanoutFormat?, warning: String?) {
        let available = planeFormats ?? [.xrgb8888]
        var warning: String?
        if let request {
            if available.contains(request) { return (request, nil) }
            warning = "DARKMODE_KIOSK_DRM_FORMAT=\(request.rawValue): the display's plane does not take \(request.name); using what it takes"
        }
        for f in [ScanoutFormat.xrgb8888, .rgb565] where available.contains(f) { return (f, warning) }
        return (nil, warning)
    }

    /// How a frame reaches the screen, best first (`DARKMODE_KIOSK_DRM_FLIP` names one).
    public typealias FlipMethod = KioskSupport.FlipMethod

    /// The methods to try in order: `DARKMODE_KIOSK_DRM_FLIP` (`request`) names one to start from (a test
    /// may force the fallbacks), else atomic when the driver granted the atomic capability and
    /// the plane's properties were found. A method that fails moves to the next.
    ///
    /// A display without vblank interrupts (`hasVBlank` false: QEMU's bochs and virtio-gpu,
    /// simpledrm, many SPI panels' drivers) completes a "flip" with a made-up event and scans
    /// out whenever it likes, so flipping buys no tear-free frame there — it only makes the
    /// kernel swap buffers (and, with little video memory, move them) every frame. Such a
    /// display is drawn in place unless a flip is asked for by name.
    public static func flipOrder(request: FlipMethod?, atomicAvailable: Bool, hasVBlank: Bool = true) -> [FlipMethod] {
        let all: [FlipMethod] = atomicAvailable ? [.atomic, .legacy, .dirty] : [.legacy, .dirty]
        if let request, let i = all.firstIndex(of: request) {
            return Array(all[i...])
        }
        return hasVBlank ? all : [.dirty]
    }

    /// Dots per inch from the connector's physical width (nil when it reports none, or nonsense).
    public static func dpi(pixels: Int, millimetres: Int) -> Double? {
        guard millimetres >= 20, pixels > 0 else { return nil }
        let d = Double(pixels) / (Double(millimetres) / 25.4)
        return d >= 50 && d <= 600 ? d : nil
    }
}
