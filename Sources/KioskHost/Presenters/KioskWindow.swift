import CSDL2
import KioskEngine
import Log
import KioskSupport
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The SDL window: made hidden, shown, full-screen, titled, measured (the viewport). It holds
/// its presenter (`PresenterFactory`: window surface, Wayland shared memory, texture, or our own
/// KMS/DRM one), what the display reports (`DisplayProbe`: refresh rate, DPI) and, with our DRM
/// presenter, the owner of the display (`DisplayOwner`: the `Seat` and its pauses and resumes).
/// No frames, no events.
final class KioskWindow {
    let window: OpaquePointer
    let presenter: FramePresenter
    let options: HostOptions
    /// The DRM card our own presenter drives (nil: SDL's display).
    let drm: DrmDevice?
    /// Who owns the display `drm` shows, and the dispatch of its pauses and resumes to our
    /// presenter (nil: SDL's display).
    let owner: DisplayOwner?
    /// Our DRM presenter (nil: SDL's display), and the kernel's hot-plug events it follows.
    let drmPresenter: DrmPresenter?
    let displayWatch: DisplayWatch?
    /// Lines whose cause can repeat without end (hot-plug, display lost and found, sleep and
    /// wake): a few a minute per cause, then a summary; the frame loop flushes them.
    let lines: RepeatingLines
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
        lines = RepeatingLines(interval: options.environment.logWindowSeconds, now: { MonotonicClock.seconds() },
                               info: { Log.info($0) }, warning: { Log.warning($0) })
        guard let window = Self.createWindow(options, drm: drm) else { return nil }
        StartupTrace.mark("window")
        guard let made = PresenterFactory.make(window: window, drm: drm, env: options.environment) else {
            SDL_DestroyWindow(window)
            return nil
        }
        StartupTrace.mark("presenter")
        self.window = window
        presenter = made.presenter
        if let drm, let ours = made.drm {
            owner = DisplayOwner(seat: DisplayOwner.seat(for: drm), presenter: ours)
            drmPresenter = ours
            ours.lines = lines
            displayWatch = DisplayWatch(lines: lines)
        } else {
            owner = nil
            drmPresenter = nil
            displayWatch = nil
        }
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
            Log.error(Diagnostics.noDisplayMessage(step: "SDL_CreateWindow", videoDriver: options.environment.videoDriver))
            return nil
        }
        return window
    }

    /// The presenter first (the card gives the CRTC back to the console), then the seat (logind
    /// control given back, the VT to `VT_AUTO`), then the window.
    deinit {
        presenter.close()
        owner?.close()
        SDL_DestroyWindow(window)
    }

    /// Re-reads the refresh rate and DPI of the display the window is on (after a display event).
    func readDisplay() {
        (refreshRate, displayDPI) = DisplayProbe.read(window: window, drm: drm)
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

    /// No display is connected to our card just now: nothing is drawn, the page waits.
    var waitingForDisplay: Bool { drm.map { !$0.hasDisplay } ?? false }

    /// The connectors read again after the kernel's hot-plug event (`DisplayWatch`): with a
    /// display found, the window (SDL's event target, whose size touch positions are relative
    /// to) takes the mode's size and the display's refresh rate and DPI are read again. Nil
    /// without our DRM presenter; `ok` false when the buffers for a new mode cannot be made.
    func followDisplay() -> (change: DisplayRules.Change, ok: Bool)? {
        guard let drm, let drmPresenter else { return nil }
        let result = drmPresenter.displayChanged()
        if case .found = result.change {
            SDL_SetWindowSize(window, Int32(drm.width), Int32(drm.height))
            readDisplay()
        }
        return result
    }

    /// Full-screen-desktop (after the first present; see `init`). No-op when windowed.
    func enterFullScreen() {
        // SDL's evdev driver would make the window its own display's size; the mode is ours.
        if !options.windowed, drm == nil { SDL_SetWindowFullscreen(window, SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue) }
    }

    private var title = ""
    /// The summary the title was last made from.
    private var titleSummary: String?

    /// Sets "<titleBase> — <summary>" when it changed.
    func setTitle(summary: String) {
        // Asked on every pass of the loop: the summary alone is compared first (the app keeps it).
        guard summary != titleSummary else { return }
        titleSummary = summary
        let t = "\(options.titleBase) — \(summary)"
        guard t != title else { return }
        title = t
        SDL_SetWindowTitle(window, t)
    }
}
