import CSDL2
import DarkModeToggle
import KioskEngine
import KioskSupport
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// The SDL2 host: opens the window, builds the app for the real page size, translates input,
/// and presents the app's frames. It knows nothing of config or preference files.
public enum SDLHost {
    /// Runs the kiosk until quit. `makeApp` is called once, when the page's pixel size and
    /// scale are known; later size changes go to `KioskApp.resize`. `onCommit` gets what each
    /// input asks the driver to do (`.preferenceChanged`), e.g. to save it.
    ///
    /// Returns the process exit status: 0 after `SDL_QUIT` (window closed, SIGTERM, SIGINT, or
    /// Escape in windowed mode), 1 when no display can be opened (one message on stderr).
    /// Set `DARKMODE_KIOSK_TIMING=1` for start-up and present timing on stderr.
    public static func run(_ options: HostOptions, makeApp: (PageGeometry) -> KioskApp,
                           onCommit: @escaping (KioskOutput) -> Void = { _ in }) -> Int32 {
        let timing = Diagnostics.environmentFlag("DARKMODE_KIOSK_TIMING")
        let processAge = timing ? Diagnostics.secondsSinceProcessStart() : nil
        applyHints(options)
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else {
            Diagnostics.printError(Diagnostics.noDisplayMessage(step: "SDL_Init(video)"))
            return 1
        }
        defer { SDL_Quit() }
        // SDL falls back to its invisible "offscreen" driver when nothing else works; a kiosk
        // nobody can see is a failure unless that driver was asked for by name.
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        if getenv("SDL_VIDEODRIVER") == nil, ["offscreen", "dummy", "evdev"].contains(driver.lowercased()) {
            Diagnostics.printError(Diagnostics.noDisplayMessage(
                step: "SDL_Init(video)", reason: "no display found (SDL fell back to its invisible \"\(driver)\" driver)"))
            return 1
        }
        let clock = HostClock()
        // Process start on the host clock: the process age at entry, plus the time SDL_Init took.
        let startedAt = clock.now() - (processAge ?? 0) - Double(SDL_GetTicks64()) / 1000
        guard let session = SDLSession(options: options, clock: clock, timing: timing, startedAt: startedAt,
                                       processAgeKnown: processAge != nil) else {
            return 1
        }
        return session.run(makeApp: makeApp, onCommit: onCommit)
    }

    /// Hints set at default priority, so the environment still overrides each of them.
    private static func applyHints(_ options: HostOptions) {
        // A kiosk must stay on screen when another window (an on-screen keyboard, a
        // notification) takes focus; SDL minimises full-screen windows on focus loss by default.
        SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0")
        // Full-screen on Wayland: no client-side decorations (libdecor may be missing anyway).
        if !options.windowed { SDL_SetHint(SDL_HINT_VIDEO_WAYLAND_ALLOW_LIBDECOR, "0") }
        // Window titles hold "—": Xlib converts them through the C library's locale, which is
        // plain ASCII unless set; use the environment's locale, or C.UTF-8 when that is not UTF-8.
        setlocale(LC_CTYPE, "")
        if String(cString: nl_langinfo(nl_item(CODESET))).uppercased().filter({ $0 != "-" }) != "UTF8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        // The window surface should be the display's own framebuffer (XShm on X11), not an
        // OpenGL texture behind SDL's back: that would load a GL stack (software Mesa on a
        // board without GPU: ~60 MB and a full-screen upload per frame) for nothing.
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        // Keep SDL's SIGINT/SIGTERM → SDL_QUIT handlers (the default) and its screensaver
        // inhibition (the default: a kiosk screen must not blank).
    }
}

/// One window and its presenter (window surface or streaming texture) with the app they show.
private final class SDLSession {
    private let options: HostOptions
    private let clock: HostClock
    private let timing: Bool
    private let startedAt: Double
    private let processAgeKnown: Bool
    private let window: OpaquePointer
    private let presenter: FramePresenter
    private var viewport: Viewport
    private var translator: PointerTranslator
    private var pacer: FramePacer
    private var displayDPI: Double?

    private var quit = false
    private var onCommit: (KioskOutput) -> Void = { _ in }
    private var needsPresent = true
    private var needsFullUpload = true
    private var title = ""
    private var lastPresentStart: Double?
    private var firstFramePresented = false
    private var presentDurations: [Double] = []
    private var presentIntervals: [Double] = []
    private let windowCreatedAt: Double
    private let sessionStartedAt: Double

    init?(options: HostOptions, clock: HostClock, timing: Bool, startedAt: Double, processAgeKnown: Bool) {
        self.options = options
        self.clock = clock
        self.timing = timing
        self.startedAt = startedAt
        self.processAgeKnown = processAgeKnown
        sessionStartedAt = clock.now()

        // The window starts hidden so that its first visible content is the first real frame.
        // Full-screen mode starts as a borderless window covering the display and switches to
        // full-screen-desktop right after the first present: SDL's X11 backend blocks ~100 ms
        // per full-screen change waiting for the window manager, which would otherwise delay
        // the first frame (measured under Xvfb + matchbox: 430 ms → 230 ms → ~130 ms).
        var flags = SDL_WINDOW_ALLOW_HIGHDPI.rawValue | SDL_WINDOW_HIDDEN.rawValue
        var x = Int32(bitPattern: CSDL2_WINDOWPOS_CENTERED), y = x
        var width = Int32(clamping: options.size?.width ?? 1024)
        var height = Int32(clamping: options.size?.height ?? 640)
        if options.windowed {
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
            Diagnostics.printError(Diagnostics.noDisplayMessage(step: "SDL_CreateWindow"))
            return nil
        }
        // Present through the window surface unless the texture path was asked for.
        let wantsTexture = getenv("DARKMODE_KIOSK_PRESENT").map { String(cString: $0).lowercased() } == "texture"
        let made: FramePresenter? = wantsTexture ? TexturePresenter(window: window)
            : (SurfacePresenter(window: window) ?? TexturePresenter(window: window))
        guard let made else {
            Diagnostics.printError(Diagnostics.noDisplayMessage(step: wantsTexture ? "SDL_CreateRenderer" : "SDL_GetWindowSurface"))
            SDL_DestroyWindow(window)
            return nil
        }
        presenter = made
        if !options.windowed { SDL_ShowCursor(SDL_DISABLE) }

        self.window = window
        translator = PointerTranslator(touchMouseID: CSDL2_TOUCH_MOUSEID,
                                       mouseSynthesisesTouch: SDL_GetHintBoolean(SDL_HINT_MOUSE_TOUCH_EVENTS, SDL_FALSE) == SDL_TRUE)
        let displayIndex = SDL_GetWindowDisplayIndex(window)
        var mode = SDL_DisplayMode()
        let refresh = SDL_GetCurrentDisplayMode(max(0, displayIndex), &mode) == 0 ? Double(mode.refresh_rate) : 60
        pacer = FramePacer(refreshRate: refresh, vsync: presenter.vsync)
        var ddpi: Float = 0
        displayDPI = SDL_GetDisplayDPI(max(0, displayIndex), &ddpi, nil, nil) == 0 ? Double(ddpi) : nil
        viewport = Viewport(outputWidth: 1, outputHeight: 1, windowWidth: 1, windowHeight: 1,
                            rotation: options.rotation, scale: 1)
        windowCreatedAt = clock.now()
        SDL_PumpEvents()
        viewport = measureViewport()
    }

    deinit {
        presenter.close()
        SDL_DestroyWindow(window)
    }

    /// The viewport as SDL reports it now (output and window size, scale policy applied).
    private func measureViewport() -> Viewport {
        var ww: Int32 = 0, wh: Int32 = 0
        let (ow, oh) = presenter.outputSize()
        SDL_GetWindowSize(window, &ww, &wh)
        let scale = ScalePolicy.resolve(explicit: options.scale, outputWidth: Int(ow), windowWidth: Int(ww),
                                        displayDPI: displayDPI)
        return Viewport(outputWidth: max(1, Int(ow)), outputHeight: max(1, Int(oh)),
                        windowWidth: max(1, Int(ww)), windowHeight: max(1, Int(wh)),
                        rotation: options.rotation, scale: scale)
    }

    /// Prepares the presenter for the page's pixel size (texture or surface).
    private func preparePresenter() -> Bool {
        guard presenter.prepare(viewport) else { return false }
        needsFullUpload = true
        needsPresent = true
        return true
    }

    func run(makeApp: (PageGeometry) -> KioskApp, onCommit: @escaping (KioskOutput) -> Void) -> Int32 {
        self.onCommit = onCommit
        guard preparePresenter() else { return 1 }
        let app = makeApp(viewport.geometry)
        if app.frame.width != viewport.pagePixelWidth || app.frame.height != viewport.pagePixelHeight {
            app.resize(pixelWidth: viewport.pagePixelWidth, pixelHeight: viewport.pagePixelHeight, scale: viewport.scale)
        }
        updateTitle(app)
        // First frame into the presenter while hidden, then show and present it at once.
        _ = app.renderFrame(at: clock.now())
        upload([app.frame.bounds], from: app.frame)
        needsFullUpload = false
        needsPresent = true
        SDL_ShowWindow(window)
        SDL_PumpEvents()
        handleSizeChange(app)
        frame(app)
        if !options.windowed {
            SDL_SetWindowFullscreen(window, SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue)
            handleSizeChange(app)
        }
        var event = SDL_Event()
        while !quit {
            let busy = app.needsFrames || translator.hasActivePointers || needsPresent || needsFullUpload
            if !busy {
                // Idle: block until something happens (no CPU, no timers).
                pacer.reset()
                lastPresentStart = nil
                guard SDL_WaitEvent(&event) == 1 else {
                    Diagnostics.printError("darkmode-kiosk: waiting for events failed: \(Diagnostics.sdlError)")
                    return 1
                }
                handle(event, app)
            } else {
                let wait = pacer.delay(at: clock.now())
                if wait >= 0.001 { SDL_Delay(UInt32(wait * 1000)) }
            }
            while !quit, SDL_PollEvent(&event) == 1 { handle(event, app) }
            if quit { break }
            if app.needsFrames || translator.hasActivePointers || needsPresent || needsFullUpload {
                frame(app)
            }
            updateTitle(app)
        }
        if timing { printPresentStatistics() }
        return 0
    }

    // MARK: Frames

    private func frame(_ app: KioskApp) {
        let start = clock.now()
        pacer.frameBegan(at: start)
        let dirty = app.renderFrame(at: start)
        if presenter.isStale { needsFullUpload = true }
        if needsFullUpload {
            upload([app.frame.bounds], from: app.frame)
            needsFullUpload = false
        } else if !dirty.isEmpty {
            upload(dirty, from: app.frame)
        }
        guard needsPresent || !dirty.isEmpty else { return }
        needsPresent = false
        present()
        let end = clock.now()
        if timing {
            if presentDurations.count < 100_000 { presentDurations.append((end - start) * 1000) }
            if let last = lastPresentStart, presentIntervals.count < 100_000 {
                presentIntervals.append((start - last) * 1000)
            }
        }
        pacer.framePresented(interval: lastPresentStart.map { start - $0 })
        // Frame time: the interval since the previous presented frame of this burst; the
        // first frame after idle reports its own render-and-present time.
        app.recordFrameTime(milliseconds: ((lastPresentStart.map { start - $0 }) ?? (end - start)) * 1000)
        lastPresentStart = start
        if !firstFramePresented {
            firstFramePresented = true
            if timing { printStartupTiming(firstFrameAt: end) }
        }
    }

    /// Uploads the dirty rectangles from the CPU frame; on failure everything is resent.
    private func upload(_ rects: [IntRect], from frame: Pixmap) {
        if !presenter.upload(rects, from: frame, viewport: viewport) { needsFullUpload = true }
    }

    private func present() {
        presenter.present(viewport)
    }

    private func updateTitle(_ app: KioskApp) {
        let t = "\(options.titleBase) — \(app.pageAccessibilitySummary)"
        guard t != title else { return }
        title = t
        SDL_SetWindowTitle(window, t)
    }

    // MARK: Events

    private func handle(_ event: SDL_Event, _ app: KioskApp) {
        let type = event.type
        switch type {
        case SDL_QUIT.rawValue:
            quit = true
        case SDL_WINDOWEVENT.rawValue:
            handleWindow(event.window, app)
        case SDL_RENDER_TARGETS_RESET.rawValue:
            needsFullUpload = true
            needsPresent = true
        case SDL_RENDER_DEVICE_RESET.rawValue:
            if !preparePresenter() { quit = true }
        case SDL_KEYDOWN.rawValue:
            let key = event.key
            guard key.repeat == 0 else { return }
            let name = String(cString: SDL_GetKeyName(key.keysym.sym))
            if options.windowed, key.keysym.sym == SDLK_ESCAPE.rawValue {
                quit = true
                return
            }
            guard !name.isEmpty else { return }
            let shift = key.keysym.mod & UInt16(KMOD_SHIFT.rawValue) != 0
            if let commit = app.handleKey(named: name, shift: shift, at: eventTime(key.timestamp)) {
                onCommit(commit)
            }
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let f = event.tfinger
            let phase: PointerPhase = type == SDL_FINGERDOWN.rawValue ? .down : type == SDL_FINGERUP.rawValue ? .up : .move
            pointer(.finger(phase: phase, touchID: f.touchId, fingerID: f.fingerId, x: f.x, y: f.y), f.timestamp, app)
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            let b = event.button
            pointer(.mouseButton(isDown: type == SDL_MOUSEBUTTONDOWN.rawValue, which: b.which, button: b.button,
                                 x: b.x, y: b.y), b.timestamp, app)
        case SDL_MOUSEMOTION.rawValue:
            let m = event.motion
            pointer(.mouseMotion(which: m.which, leftHeld: m.state & 1 != 0, x: m.x, y: m.y), m.timestamp, app)
        default:
            break
        }
    }

    private func eventTime(_ timestamp: UInt32) -> Double { HostClock.seconds(fromEventTimestamp: timestamp) }

    private func pointer(_ input: RawPointerInput, _ timestamp: UInt32, _ app: KioskApp) {
        if let e = translator.translate(input, timestamp: eventTime(timestamp), viewport: viewport),
           let commit = app.handle(e) {
            onCommit(commit)
        }
    }

    private func handleWindow(_ w: SDL_WindowEvent, _ app: KioskApp) {
        switch UInt32(w.event) {
        case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue:
            // On Wayland the real full-screen size arrives only here.
            handleSizeChange(app)
        case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue, SDL_WINDOWEVENT_RESTORED.rawValue:
            needsPresent = true
        case SDL_WINDOWEVENT_FOCUS_LOST.rawValue, SDL_WINDOWEVENT_HIDDEN.rawValue, SDL_WINDOWEVENT_MINIMIZED.rawValue:
            cancelPointers(app)
        default:
            break
        }
    }

    /// Re-reads the output size; on a change of page size or scale, re-lays out the app and
    /// recreates the texture.
    private func handleSizeChange(_ app: KioskApp) {
        let next = measureViewport()
        guard next != viewport else { return }
        let resized = next.geometry != viewport.geometry
        viewport = next
        if resized {
            cancelPointers(app)
            app.resize(pixelWidth: next.pagePixelWidth, pixelHeight: next.pagePixelHeight, scale: next.scale)
            if !preparePresenter() { quit = true }
        }
        needsPresent = true
    }

    private func cancelPointers(_ app: KioskApp) {
        guard translator.hasActivePointers else { return }
        translator.reset()
        app.cancelPointers(at: clock.now())
    }

    // MARK: Timing report (DARKMODE_KIOSK_TIMING=1)

    private func printStartupTiming(firstFrameAt end: Double) {
        func ms(_ s: Double) -> String { String(Int((s * 1000).rounded())) }
        let origin = processAgeKnown ? "process start" : "SDL_Init"
        Diagnostics.printError(
            "darkmode-kiosk: timing: first frame presented \(ms(end - startedAt)) ms after \(origin) "
                + "(SDL_Init done at \(ms(sessionStartedAt - startedAt)) ms, window+renderer at "
                + "\(ms(windowCreatedAt - startedAt)) ms); video driver \(SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "?"), presenter \(presenter.name)"
                + "\(presenter.vsync ? " (vsync)" : ""), output \(viewport.outputWidth)x\(viewport.outputHeight), "
                + "page \(viewport.pagePixelWidth)x\(viewport.pagePixelHeight) px, scale \(viewport.scale), "
                + "rotation \(viewport.rotation.degrees)")
    }

    private func printPresentStatistics() {
        func median(_ v: [Double]) -> String { KioskSupport.median(v).map { fixed($0, 1) } ?? "-" }
        Diagnostics.printError(
            "darkmode-kiosk: timing: \(presentDurations.count) frames presented; median render+upload+present "
                + "\(median(presentDurations)) ms, median interval between animation frames \(median(presentIntervals)) ms "
                + "(refresh period \(fixed(pacer.period * 1000, 1)) ms; "
                + "\(pacer.presentPaces ? "present waits for vsync" : "present does not wait: self-paced"))")
    }
}
