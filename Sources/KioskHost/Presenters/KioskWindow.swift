import Log
import CSDL2
import KioskEngine
import KioskSupport
#if canImport(Glibc)
import Glibc
#endif

/// Window setup: the SDL window, its presenter (window surface, Wayland shared memory, texture,
/// or our own KMS/DRM one) and what the display reports (refresh rate, DPI, the viewport); with
/// our DRM presenter, the `Seat` that owns the display. No frames, no events.
final class KioskWindow {
    let window: OpaquePointer
    let presenter: FramePresenter
    let options: HostOptions
    /// The DRM card our own presenter drives (nil: SDL's display).
    let drm: DrmDevice?
    /// Our own presenter on `drm` (the same object as `presenter`), kept typed for the seat.
    private let drmPresenter: DrmPresenter?
    /// Who owns the display `drm` shows (nil: SDL's display).
    private let seat: Seat?
    private(set) var displayDPI: Double?
    private(set) var refreshRate: Double

    /// Opens the window hidden, so that its first visible content is the first real frame.
    /// Full-screen mode starts as a borderless window covering the display and switches to
    /// full-screen-desktop right after the first present (`enterFullScreen`): SDL's X11 backend
    /// blocks ~100 ms per full-screen change waiting for the window manager, which would
    /// otherwise delay the first frame (measured under Xvfb + matchbox: 430 ms → 230 ms → ~130 ms).
    /// Nil when no window or presenter can be made (one message already printed).
    ///
    /// With `drm` (a DRM card opened for our own presenter; SDL runs its invisible `evdev`
    /// driver) the window is only SDL's event target, the size of the display's mode (touch and
    /// pointer positions are relative to it), and the presenter is `DrmPresenter`.
    init?(options: HostOptions, drm: DrmDevice? = nil) {
        self.options = options
        self.drm = drm
        guard let window = Self.createWindow(options, drm: drm) else { return nil }
        StartupTrace.mark("window")
        let drmPresenter = drm.flatMap { DrmPresenter(card: $0, flipOrder: $0.flipOrder) }
        let chosen: FramePresenter? = drm == nil ? Self.sdlPresenter(window) : drmPresenter
        guard let made = chosen else {
            SDL_DestroyWindow(window)
            return nil
        }
        StartupTrace.mark("presenter")
        self.window = window
        presenter = made
        self.drmPresenter = drmPresenter
        seat = drm.map(Self.seat)
        if !options.windowed { SDL_ShowCursor(SDL_DISABLE) }
        refreshRate = 60
        readDisplay()
        SDL_PumpEvents()
    }

    /// The window, hidden: with `drm` at the mode's size, windowed at the asked size, else
    /// borderless over the first display (full-screen-desktop when its bounds are unknown).
    private static func createWindow(_ options: HostOptions, drm: DrmDevice?) -> OpaquePointer? {
        var flags = SDL_WINDOW_ALLOW_HIGHDPI.rawValue | SDL_WINDOW_HIDDEN.rawValue
        var x = Int32(bitPattern: CSDL2_WINDOWPOS_CENTERED), y = x
        var width = Int32(clamping: options.size?.width ?? 1024)
        var height = Int32(clamping: options.size?.height ?? 640)
        if let drm {
            (x, y, width, height) = (0, 0, Int32(drm.width), Int32(drm.height))
        } else if options.windowed {
            flags |= SDL_WINDOW_RESIZABLE.rawValue
        } else {
            flags |= SDL_WINDOW_BORDERLESS.rawValue
            var bounds = SDL_Rect()
            if SDL_GetDisplayBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 {
                (x, y, width, height) = (bounds.x, bounds.y, bounds.w, bounds.h)
            } else {
                flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue
            }
        }
        guard let window = SDL_CreateWindow(options.titleBase, x, y, width, height, flags) else {
            Log.error(Diagnostics.noDisplayMessage(step: "SDL_CreateWindow"))
            return nil
        }
        return window
    }

    /// The presenter on SDL's display: DARKMODE_KIOSK_PRESENT, else the first that works for
    /// this driver; nil with one message printed.
    private static func sdlPresenter(_ window: OpaquePointer) -> FramePresenter? {
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        let choice = PresenterKind.order(request: getenv("DARKMODE_KIOSK_PRESENT").map { String(cString: $0) }, driver: driver)
        if let warning = choice.warning { Log.warning(warning) }
        for kind in choice.kinds {
            let made: FramePresenter?
            switch kind {
            case .surface: made = SurfacePresenter(window: window)
            case .shm: made = ShmPresenter(window: window)
            case .texture: made = TexturePresenter(window: window)
            case .drm: made = nil  // opened before SDL (`DrmRules.route`), not here
            }
            if let made { return made }
        }
        Log.error(Diagnostics.noDisplayMessage(step: choice.kinds.map(\.step).joined(separator: ", ")))
        return nil
    }

    /// The seat of a card: logind's session when the card came from it; opened directly, the
    /// VT's own switch signals when the console's VT takes `VT_PROCESS` mode, else none.
    private static func seat(for drm: DrmDevice) -> Seat {
        switch drm.access {
        case .logind(let seat):
            return seat
        case .direct:
            let tty = VirtualConsole.state.pointee.fd
            return (tty >= 0 ? VTSeat(tty: tty) : nil) ?? PlainSeat()
        }
    }

    /// The viewport the window is expected to get, from the display alone (before the window
    /// exists): windowed, the asked size; full-screen, the first display's bounds. Assumes one
    /// output pixel per window unit; nil when the display says nothing.
    static func predictedViewport(_ options: HostOptions, drm: DrmDevice? = nil) -> Viewport? {
        var w = options.size?.width ?? 1024, h = options.size?.height ?? 640
        if let drm {
            let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: drm.width, windowWidth: drm.width, displayDPI: drm.dpi)
            return Viewport(outputWidth: drm.width, outputHeight: drm.height, windowWidth: drm.width, windowHeight: drm.height,
                            rotation: options.rotation, scale: scale)
        }
        if !options.windowed {
            var bounds = SDL_Rect()
            guard SDL_GetDisplayBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 else { return nil }
            (w, h) = (Int(bounds.w), Int(bounds.h))
        }
        guard w > 0, h > 0 else { return nil }
        var ddpi: Float = 0
        let dpi = SDL_GetDisplayDPI(0, &ddpi, nil, nil) == 0 ? Double(ddpi) : nil
        let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: w, windowWidth: w, displayDPI: dpi)
        return Viewport(outputWidth: w, outputHeight: h, windowWidth: w, windowHeight: h, rotation: options.rotation, scale: scale)
    }

    /// Hands what the seat says (a VT switch away or back, from the kernel or from logind) to
    /// our DRM presenter; true when the display came back (the whole page must be sent).
    func serviceSeat() -> Bool {
        guard let seat, let drmPresenter else { return false }
        var resumed = false
        seat.service { event in
            if drmPresenter.handle(event) { resumed = true }
        }
        return resumed
    }

    /// Descriptors whose input means the seat has something to say (for the idle wait).
    var seatDescriptors: [Int32] { seat?.pollDescriptor.map { [$0] } ?? [] }

    /// The presenter first (the card gives the CRTC back to the console), then the seat (logind
    /// control given back, the VT to `VT_AUTO`), then the window.
    deinit {
        presenter.close()
        seat?.close()
        SDL_DestroyWindow(window)
    }

    /// Re-reads the refresh rate and DPI of the display the window is on (after a display event).
    func readDisplay() {
        if let drm {
            refreshRate = drm.refreshRate
            displayDPI = drm.dpi
            return
        }
        let displayIndex = max(0, SDL_GetWindowDisplayIndex(window))
        var mode = SDL_DisplayMode()
        refreshRate = SDL_GetCurrentDisplayMode(displayIndex, &mode) == 0 ? Double(mode.refresh_rate) : 60
        var ddpi: Float = 0
        displayDPI = SDL_GetDisplayDPI(displayIndex, &ddpi, nil, nil) == 0 ? Double(ddpi) : nil
    }

    /// The viewport as SDL reports it now (output and window size, scale policy applied).
    func measureViewport() -> Viewport {
        var ww: Int32 = 0, wh: Int32 = 0
        let (ow, oh) = presenter.outputSize()
        SDL_GetWindowSize(window, &ww, &wh)
        let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: Int(ow), windowWidth: Int(ww),
                                        displayDPI: displayDPI)
        return Viewport(outputWidth: max(1, Int(ow)), outputHeight: max(1, Int(oh)),
                        windowWidth: max(1, Int(ww)), windowHeight: max(1, Int(wh)),
                        rotation: options.rotation, scale: scale)
    }

    func show() { SDL_ShowWindow(window) }

    /// Full-screen-desktop (after the first present; see `init`). No-op when windowed.
    func enterFullScreen() {
        // SDL's evdev driver would make the window its own display's size; the mode is ours.
        if !options.windowed, drm == nil { SDL_SetWindowFullscreen(window, SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue) }
    }

    private var title = ""

    /// Sets "<titleBase> — <summary>" when it changed.
    func setTitle(summary: String) {
        let t = "\(options.titleBase) — \(summary)"
        guard t != title else { return }
        title = t
        SDL_SetWindowTitle(window, t)
    }
}
