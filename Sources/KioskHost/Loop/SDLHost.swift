import CSDL2
import KioskEngine
import Log
import KioskSupport
import SystemdNotify
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The SDL2 host: opens the window (`KioskWindow`), runs the frame loop (`FrameLoop`, which
/// sends frames through `ScreenUpdater`), and tells systemd how it goes (`ServiceLink`). It
/// knows nothing of config or preference files.
public enum SDLHost {
    /// Runs the kiosk until quit. `makeApp` is called once, when the page's pixel size and
    /// scale are known; later size changes go to `KioskApp.resize`. `onCommit` gets what each
    /// input asks the driver to do (`.preferenceChanged`), e.g. to hand it to a background
    /// writer: it runs on the frame path and must not do file I/O. `eventHandler` gets the host's custom events.
    ///
    /// Returns the process exit status: 0 after SIGTERM, SIGINT, the window closed, or Escape
    /// in windowed mode; 1 when no display can be opened, or the display connection ends
    /// (compositor or X server gone), with one line on stderr. `STOPPING=1` is sent before
    /// returning; the caller flushes its writer after. When the X server goes away Xlib ends
    /// the process itself: then the host logs its line, calls `beforeExit` (flush there too),
    /// sends STOPPING=1 and exits with status 1. `options.environment.timing`
    /// (`DARKMODE_KIOSK_TIMING=1`): start-up and present timing on stderr.
    /// Threads the host itself may start during a run: the first page's, and the input
    /// reader's (libinput or evdev, KMS/DRM). For `HostOptions.threads`.
    public static let ownThreads = 2

    /// `HostOptions.threads` for a run whose caller starts `callerThreads` threads of its own
    /// and renders on `lanes` lanes (the calling thread and `lanes - 1` helpers).
    public static func threadsForRun(callerThreads: Int, lanes: Int) -> Int {
        max(0, callerThreads) + max(0, lanes - 1) + ownThreads
    }

    /// The address-space check `run` makes first (`ulimit -v`, `LimitAS=`), for the caller to
    /// make before it starts its own threads (counted in `options.threads`): one line, nil
    /// when the limit is enough or there is none. `run` repeats it (the same answer).
    public static func addressSpaceProblemBeforeStart(_ options: HostOptions) -> String? {
        FrameLoop.startAddressSpaceProblem(options)
    }

    public static func run(_ options: HostOptions, makeApp: (PageGeometry) -> KioskApp,
                           onCommit: @escaping (KioskOutput) -> Void = { _ in },
                           eventHandler: HostEventHandler? = nil,
                           beforeExit: @escaping () -> Void = {}) -> Int32 {
        let env = options.environment
        let timing = env.timing
        if timing, !StartupTrace.isEnabled { StartupTrace.enable() }
        StartupTrace.mark("host")
        let processAge = timing ? Diagnostics.secondsSinceProcessStart() : nil
        // Under an address-space limit too low even to start, one line before SDL and the
        // display connection map what they need (Xlib aborts when an allocation fails there):
        // for the page when its size is known without SDL (a window of a given size), else for
        // the start alone; the check after SDL's start (below) then has the display's size.
        if let problem = FrameLoop.startAddressSpaceProblem(options) {
            let exit = HostExit.failure(problem)
            if let line = exit.logLine { Log.error(line) }
            ServiceLink().stopping(status: exit.logLine ?? "failed")
            return exit.status
        }
        guard let drmStart = startVideo(options) else { return 1 }
        let drm = drmStart.device
        // Runs last, after SDL_Quit has put back the console's own display mode: the text
        // console comes back (a no-op unless `VirtualConsole.enterGraphics` switched it).
        defer { VirtualConsole.leave() }
        QuitSignal.install()
        defer {
            QuitSignal.uninstall()
            SDL_Quit()
        }
        guard let driver = visibleDriver(drm: drm, asked: env.videoDriver) else { return 1 }
        let clock = HostClock()
        // Process start on the host clock: the process age at entry, plus the time SDL_Init took.
        let startedAt = clock.now() - (processAge ?? 0) - Double(SDL_GetTicks64()) / 1000
        let timingObserver = timing ? TimingObserver(startedAt: startedAt, processAgeKnown: processAge != nil,
                                                     sessionStartedAt: clock.now()) : nil
        let service = ServiceLink()
        if driver == "x11" { watchX11(service: service, beforeExit: beforeExit) }
        // Under an address-space limit too low for the page, one line before fonts load
        // (fontconfig crashed when an allocation failed there) or a frame is drawn.
        if let predicted = DisplayProbe.predictedViewport(options, drm: drm), let problem = FrameLoop.addressSpaceProblem(predicted, threads: options.threads) {
            let exit = HostExit.failure(problem)
            if let line = exit.logLine { Log.error(line) }
            service.stopping(status: exit.logLine ?? "failed")
            return exit.status
        }
        let session = HostSession(options: options, drm: drm, driver: driver, clock: clock, service: service,
                                  timingObserver: timingObserver, eventHandler: eventHandler, onCommit: onCommit)
        return withoutActuallyEscaping(makeApp) { session.run(makeApp: $0) }
    }

    /// Everything before SDL's display: KMS/DRM asked for by name must be usable, our own DRM
    /// presenter gets its card (`DrmStart`, before SDL, which must then not open the card), the
    /// hints are set and SDL's video starts. Nil when the kiosk cannot go on (one line printed).
    private static func startVideo(_ options: HostOptions) -> (device: DrmDevice?, fatal: Bool)? {
        // KMS/DRM asked for by name: no card, or none this user may open, is one clear line.
        let env = options.environment
        if env.videoDriver?.lowercased() == "kmsdrm",
           let problem = DeviceAccess.drmProblem(card: DeviceAccess.probeCard()) {
            Log.error(problem)
            return nil
        }
        let drmStart = DrmStart.begin(env, connector: options.connector)
        if drmStart.fatal { return nil }
        applyHints(options)
        // Under a Wayland compositor that has no output yet (cage with the display off), wait
        // for one instead of letting SDL fail (`WaylandOutputWait`).
        if drmStart.device == nil, WaylandOutputWait.applies(videoDriver: env.videoDriver, hasWaylandDisplay: env.hasWaylandDisplay),
           !WaylandOutputWait.untilOutput() {
            return nil
        }
        // SDL_Init may start helpers (dbus-launch → a session dbus-daemon when no session bus
        // is set); one inheriting NOTIFY_SOCKET tells systemd READY=1 for us (seen in the e2e
        // test). Hide it while SDL starts; the notifier reads it afresh for each message.
        let notifySocket = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
        if notifySocket != nil { unsetenv("NOTIFY_SOCKET") }
        let initialised = SDL_Init(SDL_INIT_VIDEO) == 0
        if let notifySocket { setenv("NOTIFY_SOCKET", notifySocket, 1) }
        StartupTrace.mark("SDL_Init")
        guard initialised else {
            Log.error(Diagnostics.noDisplayMessage(step: "SDL_Init(video)", videoDriver: env.videoDriver))
            return nil
        }
        return drmStart
    }

    /// SDL's video driver, when it shows something: SDL falls back to its invisible "offscreen"
    /// driver when nothing else works, and a kiosk nobody can see is a failure unless that
    /// driver was asked for by name (nil, one line printed). Straight on KMS/DRM the text
    /// console shares the screen: its VT goes to graphics mode (no cursor, no kernel messages
    /// over the page) until the kiosk ends, crash included. `asked`: `SDL_VIDEODRIVER`.
    private static func visibleDriver(drm: DrmDevice?, asked: String?) -> String? {
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        if drm == nil, asked == nil, ["offscreen", "dummy", "evdev"].contains(driver.lowercased()) {
            Log.error(Diagnostics.noDisplayMessage(
                step: "SDL_Init(video)", videoDriver: asked, reason: "no display found (SDL fell back to its invisible \"\(driver)\" driver)"))
            return nil
        }
        if driver.lowercased() == "kmsdrm" || drm != nil, let line = VirtualConsole.warning(VirtualConsole.enterGraphics()) {
            Log.warning(line)
        }
        return driver
    }

    /// When the X server goes away Xlib ends the process itself: the line, `beforeExit`, then
    /// STOPPING=1 first.
    private static func watchX11(service: ServiceLink, beforeExit: @escaping () -> Void) {
        let notifier = service.notifier
        DisplayLoss.watchX11 {
            let exit = HostExit.displayLost(driver: "x11")
            if let line = exit.logLine { Log.error(line) }
            beforeExit()
            notifier.stopping(status: exit.logLine ?? "display lost")
        }
    }

    /// Hints set at default priority, so the environment still overrides each of them.
    static func applyHints(_ options: HostOptions) {
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
        // Threads SDL starts get the kiosk's stack size, not the one RLIMIT_STACK gave.
        SDL_SetHint(SDL_HINT_THREAD_STACK_SIZE, "\(ThreadStacks.bytes)")
        // Keep SDL's SIGINT/SIGTERM → SDL_QUIT handlers (the default; `QuitSignal` records
        // which signal came) and its screensaver inhibition (a kiosk screen must not blank).
    }
}
