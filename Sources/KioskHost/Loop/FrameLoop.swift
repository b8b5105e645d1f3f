import CSDL2
import DarkModeToggle
import Log
import KioskEngine
import KioskSupport
import Raster
#if canImport(Glibc)
import Glibc
#endif
import Threads

/// The frame loop: waits for events (or the next frame's deadline, or the next watchdog
/// ping), dispatches them, renders and presents frames, and ends with a `HostExit`.
final class FrameLoop {
    private let window: KioskWindow
    private let screen: ScreenUpdater
    private let clock: HostClock
    private var translator: PointerTranslator
    private var pacer: FramePacer
    /// When a frame begins on a vblank display: as late as its vblank allows, one in flight.
    private var scheduler: FrameScheduler
    /// Input-to-screen latency of taps, drags and fleet commands (`DARKMODE_KIOSK_TIMING=1` reports it at exit).
    private(set) var latency = LatencyLedger()
    /// A frame was presented whose time on screen is not recorded yet (`settlePresented`).
    private var presentedAt: Double?
    /// Frames counted with the present's return whose latency samples a later screen time
    /// (`FramePresenter.lateScreenTimes`) will restamp: the ledger's samples by present serial.
    private var awaitingScreenTime: [Int: Range<Int>] = [:]
    /// The last frame begun drew nothing (its inputs wait for the next).
    private var lastFrameDrewNothing = false
    private var service: ServiceLink
    private let observers: [FrameObserver]
    private let customEvents: HostEventPoster?
    private let eventHandler: HostEventHandler?
    private let onCommit: (KioskOutput) -> Void
    private let driver: String
    /// Touch screens, tablets and mice through libinput or the evdev reader (KMS/DRM), when
    /// the host started one.
    private let input: InputSource?
    private var mapper: DeviceInputMapper
    /// Config `input.calibration` for SDL's own fingers (under a compositor; full screen only).
    private let fingerCalibration: FingerCalibration
    /// The cursor the presenter draws now (output pixels), nil: none.
    private var shownCursor: Point?
    /// The screen's sleep (config `display.sleep`), nil when off.
    private var sleeper: ScreenSleeper?
    /// Seconds until the sleep policy wants another look (nil: only input changes it).
    private var sleepWake: Double?

    private var exit: HostExit?
    private var windowCloseSeen = false
    private var lastPresentStart: Double?
    private var firstFramePresented = false
    /// When the current loop pass woke up (after its wait): the frame's work includes the
    /// events handled before it (commits among them).
    private var wokeAt = 0.0
    /// What the host does, for the event handler (`hostShown`).
    private var facts: HostFacts
    /// When `facts.presenter` was last read from the presenter.
    private var presenterNamedAt: Double?

    init(window: KioskWindow, clock: HostClock, service: ServiceLink, observers: [FrameObserver], input: InputSource?,
         eventHandler: HostEventHandler?, onCommit: @escaping (KioskOutput) -> Void) {
        self.window = window
        self.input = input
        self.clock = clock
        self.service = service
        self.observers = observers
        self.eventHandler = eventHandler
        self.onCommit = onCommit
        screen = ScreenUpdater(presenter: window.presenter, viewport: window.measureViewport())
        translator = PointerTranslator(touchMouseID: CSDL2_TOUCH_MOUSEID,
                                       mouseSynthesisesTouch: SDL_GetHintBoolean(SDL_HINT_MOUSE_TOUCH_EVENTS, SDL_FALSE) == SDL_TRUE)
        pacer = FramePacer(refreshRate: window.refreshRate, vsync: window.presenter.vsync)
        scheduler = FrameScheduler(period: pacer.period)
        customEvents = eventHandler == nil ? nil : HostEventPoster.register()
        driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "?"
        mapper = DeviceInputMapper(calibration: window.options.calibration)
        // A window (development) is not the output the matrix was measured on.
        fingerCalibration = FingerCalibration(matrix: window.options.windowed ? nil : window.options.calibration,
                                              mouseTouchID: CSDL2_MOUSE_TOUCHID)
        if input == nil, let matrix = fingerCalibration.matrix {
            Log.info("input: input.calibration \(matrix.text) applied to SDL's touch, before the turn"
                     + (["wayland", "x11"].contains(driver.lowercased()) ? " (on top of the compositor's own calibration)" : ""))
        }
        sleeper = ScreenSleeper(settings: window.options.sleep, screen: screen, now: clock.now(),
                                commanded: eventHandler?.controlsDisplay == true, lines: window.lines)
        let v = screen.viewport
        facts = HostFacts(presenter: window.presenter.name, videoDriver: driver, card: window.drm?.access.owner,
                          input: input?.kind ?? .sdl, outputWidth: v.outputWidth, outputHeight: v.outputHeight,
                          rotation: v.rotation.degrees)
    }

    var viewport: Viewport { screen.viewport }
    var pacerSummary: String {
        "refresh period \(fixed(pacer.period * 1000, 1)) ms; "
            + (pacer.presentPaces ? "present waits for vsync" : "present does not wait: self-paced")
    }

    /// Runs until quit; returns why it ended. The app is `prebuilt` (re-laid out if the window
    /// came out another size), or made by `makeApp` for the page geometry.
    func run(prebuilt: KioskApp?, makeApp: (PageGeometry) -> KioskApp) -> HostExit {
        if let problem = Self.addressSpaceProblem(screen.viewport, threads: window.options.threads) { return .failure(problem) }
        guard screen.setViewport(screen.viewport, prepare: true) else {
            return .failure("cannot prepare the presenter for a \(screen.viewport.pagePixelWidth)x\(screen.viewport.pagePixelHeight) page")
        }
        let app = prebuilt ?? makeApp(viewport.geometry)
        if app.frame.width != viewport.pagePixelWidth || app.frame.height != viewport.pagePixelHeight
            || app.options.scale != viewport.scale {
            app.resize(pixelWidth: viewport.pagePixelWidth, pixelHeight: viewport.pagePixelHeight, scale: viewport.scale)
        }
        if let eventHandler, let customEvents { eventHandler.start(app: app, poster: customEvents, now: clock.now()) }
        defer { eventHandler?.stop() }
        showFirstFrame(app)
        // The sleep's first bound on the idle wait (later ones come at the end of each pass).
        if let sleeper { sleepWake = sleeper.update(now: clock.now(), pointersDown: false) }
        var event = SDL_Event()
        while exit == nil { pass(app, &event) }
        window.lines.flushAll(at: MonotonicClock.seconds())
        for o in observers { o.loopEnded() }
        return exit ?? .failure("the frame loop ended without a reason")
    }

    /// The first frame is rendered while the window is hidden, then shown and presented at
    /// once; full-screen follows.
    private func showFirstFrame(_ app: KioskApp) {
        window.setTitle(summary: app.pageAccessibilitySummary)
        _ = app.renderFrame(at: clock.now())
        StartupTrace.mark("rendered")
        window.show()
        SDL_PumpEvents()
        relayout(app)
        StartupTrace.mark("shown")
        wokeAt = clock.now()
        frame(app)
        window.enterFullScreen()
        relayout(app)
        pageShown(app)
    }

    /// One pass of the loop: wait (idle: for an event; busy: for the frame's time), handle the
    /// events, the seat and the watchdog, draw a frame when one is due, tell the rest.
    private func pass(_ app: KioskApp, _ event: inout SDL_Event) {
        settlePresented()
        var drain = true
        if wantsFrame(app) {
            drain = waitForFrameTime(app, &event)
        } else if !waitIdle(app, &event) {
            return
        }
        if drain { while exit == nil, SDL_PollEvent(&event) == 1 { handle(event, app) } }
        if window.owner?.service() == true { screen.contentLost() }
        followDisplay(app)
        service.pingIfDue(now: clock.now())
        if exit != nil { return }
        if translator.hasActivePointers { cancelIfTouchDeviceLost(app) }
        if let sleeper { sleepWake = sleeper.update(now: clock.now(), pointersDown: translator.hasActivePointers) }
        if wantsFrame(app) { frame(app) }
        if sleeper?.isAsleep != true { screen.presentCursorIfPending(app.frame) }
        window.setTitle(summary: app.pageAccessibilitySummary)
        if let eventHandler {
            let v = viewport
            facts.display = window.waitingForDisplay ? .none : sleeper?.isAsleep == true ? .asleep : .on
            // The presenter's name can change (a DRM flip method falling back to the next): read
            // again at most once a second, not built every pass.
            let now = clock.now()
            if presenterNamedAt.map({ now - $0 >= 1 }) ?? true {
                facts.presenter = window.presenter.name
                presenterNamedAt = now
            }
            (facts.outputWidth, facts.outputHeight, facts.rotation) = (v.outputWidth, v.outputHeight, v.rotation.degrees)
            eventHandler.hostShown(facts)
        }
        pageShown(app)
        handlerWake = eventHandler?.passEnded()
        window.lines.flush(at: MonotonicClock.seconds())
        service.status(status(app))
    }

    /// Busy: waits until the next frame's start — on a vblank display (a flip's time known) as
    /// late as its vblank allows (`FrameScheduler`), else the pacer's deadline. An event cuts
    /// the wait short (handled at once). False when SDL's own wait ran out with its queue empty:
    /// it had just pumped the display's events, so polling again finds nothing (one pump and a
    /// read from the display connection less per frame); true when the rest may be waiting.
    @discardableResult
    private func waitForFrameTime(_ app: KioskApp, _ event: inout SDL_Event) -> Bool {
        let now = clock.now()
        let scheduled = window.presenter.vsync && scheduler.lastVblank != nil
        var wait = scheduled ? scheduler.start(now: now, inputWaiting: latency.hasPending, skipping: pacer.skipped) - now
            : pacer.delay(at: now)
        if lastFrameDrewNothing && latency.hasPending {
            // An input not shown yet (a press that has not moved a pixel): look again soon.
            wait = scheduled ? max(wait, FrameScheduler.retry) : min(wait, FrameScheduler.retry)
        }
        guard wait >= 0.001 else {
            wokeAt = clock.now()
            return true
        }
        let got = waitForEvent(&event, timeout: Int32(wait * 1000))
        wokeAt = clock.now()
        if got == 1 { handle(event, app) }
        // `IdleWait` (DRM) returns early for other reasons; only SDL's wait is known to have pumped.
        return got == 1 || idleWait != nil
    }

    /// After a frame: while only the ambient loops move, the grid frames the pacer may leave
    /// out (`KioskApp.ambientFramesToSkip`: no cloud moves more than ¼ px, no star steps more
    /// than 1/64 between two frames shown); 0 while anything else moves or a finger is down.
    private func planAmbientFrames(_ app: KioskApp) {
        let skip = translator.hasActivePointers || latency.hasPending || screen.needsFullUpload ? 0
            : app.ambientFramesToSkip(period: pacer.period)
        pacer.skip(frames: skip)
    }

    /// Something moves, a finger or button is down, or the screen is stale: a frame is due —
    /// unless the screen sleeps or no display is connected (input is still handled; the page
    /// is sent whole when one comes).
    private func wantsFrame(_ app: KioskApp) -> Bool {
        if sleeper?.isAsleep == true || window.waitingForDisplay { return false }
        return app.needsFrames || translator.hasActivePointers || screen.needsFullUpload
    }

    /// After the kernel's hot-plug events settle (`DisplayWatch`): the connectors read again;
    /// a display found (again, or another, or another mode) gets the page laid out for its
    /// size, its refresh rate, and the whole page sent.
    private func followDisplay(_ app: KioskApp) {
        guard let watch = window.displayWatch, watch.service(), let (change, ok) = window.followDisplay() else { return }
        if !ok {
            exit = .failure("cannot make the display buffers for the new mode")
            return
        }
        switch change {
        case .unchanged: return
        case .lost: cancelPointers(app)
        case .found:
            perform(.displayChanged, app)
            screen.contentLost()
        }
    }

    /// Idle: blocks until something happens, or until the watchdog or the event handler wants
    /// the loop (no CPU, no timers; without either the wait has no end). False when the wait
    /// failed, which ends the loop.
    private func waitIdle(_ app: KioskApp, _ event: inout SDL_Event) -> Bool {
        pacer.reset()
        lastPresentStart = nil
        let summaryDue = window.lines.deadline.map { max(0, $0 - MonotonicClock.seconds()) }
        let timeout = Self.earlier(Self.earlier(Self.earlier(Self.earlier(service.idleTimeout(now: clock.now()), handlerWake),
                                                             sleepWake), window.displayWatch?.secondsToRescan()), summaryDue)
        if waitForEvent(&event, timeout: timeout) == 1 {
            wokeAt = clock.now()
            handle(event, app)
        } else if timeout < 0, idleWait == nil {
            // (`IdleWait` returns early for a VT switch request, handled by the pass.)
            exit = .failure("waiting for events failed: \(Diagnostics.sdlError)")
            return false
        }
        return true
    }

    /// Seconds until the event handler wants `passEnded` again (nil: no need).
    private var handlerWake: Double?

    /// systemd's STATUS: the page's summary, the handler's note (an unsaved choice) and, with
    /// sleep on, whether the screen sleeps.
    private func status(_ app: KioskApp) -> String {
        let summary = window.waitingForDisplay ? "waiting for a display to be connected; " + app.statusSummary : app.statusSummary
        let notes = [eventHandler?.statusNote, sleeper?.statusNote].compactMap { $0 }
        return ([summary] + notes).joined(separator: "; ")
    }

    /// The idle wait's timeout (ms, -1 forever) shortened to `seconds` when that is sooner.
    static func earlier(_ timeout: Int32, _ seconds: Double?) -> Int32 {
        guard let seconds else { return timeout }
        let ms = Int32(min(Double(Int32.max / 2), max(0, (seconds * 1000).rounded(.up))))
        return timeout < 0 ? ms : min(timeout, ms)
    }

    /// Tells the event handler where the page is now (window position, viewport).
    private func pageShown(_ app: KioskApp) {
        guard let eventHandler else { return }
        var x: Int32 = 0, y: Int32 = 0
        SDL_GetWindowPosition(window.window, &x, &y)
        eventHandler.pageShown(app: app, placement: ScreenPlacement(viewport: viewport, windowX: Int(x), windowY: Int(y)))
    }

    /// With our DRM presenter (SDL's evdev driver, which cannot block): `IdleWait`.
    /// The display's hot-plug socket wakes it too; with our own input reader (libinput, evdev)
    /// SDL has no devices to look at, so it sleeps without a timeout of its own.
    private lazy var idleWait: IdleWait? = window.drm == nil ? nil
        : IdleWait(extra: (window.owner?.pollDescriptors ?? []) + (window.displayWatch.map { [$0.descriptor] } ?? []),
                   sdlInput: input == nil, readerDescriptors: { [input] in input?.heldDescriptors ?? [] })

    /// `SDL_WaitEventTimeout`, or `IdleWait` when SDL's driver would poll instead of waiting.
    /// `timeout` in ms, -1 for none; 1 with an event, else 0.
    private func waitForEvent(_ event: inout SDL_Event, timeout: Int32) -> Int32 {
        guard let idleWait else { return SDL_WaitEventTimeout(&event, timeout) }
        return idleWait.wait(&event, timeout: timeout, lookForDevices: sleeper?.isAsleep != true)
    }

    // MARK: Frames

    private func frame(_ app: KioskApp) {
        settlePresented()
        let start = clock.now()
        pacer.frameBegan(at: start)
        latency.frameBegan()
        lastFrameDrewNothing = false
        guard screen.render(app, at: start) else {
            latency.frameDropped()
            lastFrameDrewNothing = true
            planAmbientFrames(app)
            return
        }
        planAmbientFrames(app)
        let end = clock.now()
        presentedAt = end
        scheduler.rendered(seconds: end - start)
        if window.presenter.vsync, window.presenter.screenStamp == .presented, pacer.presentPaces {
            // A vsync'd present returned: a vblank just passed.
            scheduler.vblank(at: end)
        }
        let interval = lastPresentStart.map { start - $0 }
        pacer.framePresented(interval: interval)
        // Frame time: the interval since the previous presented frame of this burst; the
        // first frame after idle reports its own render-and-present time.
        if app.options.showFPS {
            app.fps.record(interval: interval.map { $0 * 1000 }, work: (end - start) * 1000)
            app.fps.recordLatency(latency.recent(now: end))
        }
        lastPresentStart = start
        let isFirst = !firstFramePresented
        firstFramePresented = true
        for o in observers {
            o.framePresented(start: start, end: end, interval: interval, isFirst: isFirst, workStart: min(wokeAt, start))
        }
        if isFirst { service.ready(status: status(app)) }
        facts.framesPresented += 1
        eventHandler?.framePresented()
    }

    /// The presenter's own timing lines (`FramePresenter.timingLines`).
    var presenterTimingLines: [String] { window.presenter.timingLines }

    /// Records when the last presented frame reached the screen: the flip in flight is
    /// completed first (at most one frame in flight), its event's vblank time is the frame's;
    /// other presenters' frames are stamped with the present's return, and given the screen
    /// time their presenter learns later where it does (`restampLateFrames`).
    private func settlePresented() {
        guard let returned = presentedAt else { return }
        presentedAt = nil
        let presenter = window.presenter
        if let flip = presenter.finishFlip() {
            let at = clock.now() - max(0, MonotonicClock.seconds() - flip)
            scheduler.vblank(at: at)
            latency.framePresented(at: at, stamp: .flip)
        } else {
            latency.framePresented(at: returned, stamp: presenter.screenStamp == .flip ? .presented : presenter.screenStamp)
            if !latency.lastFrameSamples.isEmpty, presenter.learnsScreenTimesLater {
                awaitingScreenTime[presenter.presentSerial] = latency.lastFrameSamples
            }
        }
        restampLateFrames()
    }

    /// Gives frames the screen times their presenter learnt since (a compositor's presentation
    /// feedback). Frames still waiting after 64 more presents are left with the present's return.
    private func restampLateFrames() {
        let presenter = window.presenter
        for late in presenter.lateScreenTimes() {
            guard let samples = awaitingScreenTime.removeValue(forKey: late.serial) else { continue }
            latency.restamp(samples, shownAt: clock.now() - max(0, MonotonicClock.seconds() - late.shownAt), stamp: .compositor)
        }
        if awaitingScreenTime.count > 8 {
            awaitingScreenTime = awaitingScreenTime.filter { $0.key > presenter.presentSerial - 64 }
        }
    }

    /// A tap (a press) or a drag (a move) of a pointer that holds a control after it (a toggle
    /// pressed or dragged, the button pressed), for the latency ledger. A finger on the page's
    /// background changes nothing on screen: counted, it waited for the next frame that drew
    /// something and was charged to it (a panel held down beside a tap gave "drags" of 9–16 s in
    /// Tests/vm's hostile_devices).
    private func noteInput(_ e: PointerEvent, stamp: LatencyLedger.InputStamp, _ app: KioskApp) {
        // A cancelled gesture (its device gone) shows nothing more of its press or moves.
        if e.phase == .cancel { latency.withdraw(LatencyLedger.Kind.pointer); return }
        guard app.holdsControl(pointer: e.id) else { return }
        switch e.phase {
        case .down: latency.input(.tap, at: e.timestamp, stamp: stamp)
        case .move: latency.input(.drag, at: e.timestamp, stamp: stamp)
        default: break
        }
    }

    // MARK: Events

    private func handle(_ event: SDL_Event, _ app: KioskApp) {
        let type = event.type
        switch type {
        case SDL_QUIT.rawValue:
            exit = HostExit.forQuit(signal: QuitSignal.received, windowCloseSeen: windowCloseSeen, driver: driver)
        case SDL_WINDOWEVENT.rawValue:
            perform(HostAction.forWindowEvent(UInt32(event.window.event)), app)
        case SDL_DISPLAYEVENT.rawValue:
            perform(HostAction.forDisplayEvent(UInt32(event.display.event)), app)
        case SDL_RENDER_TARGETS_RESET.rawValue:
            screen.contentLost()
        case SDL_RENDER_DEVICE_RESET.rawValue:
            if !screen.setViewport(window.measureViewport(), prepare: true) {
                exit = .failure("the render device was reset and the presenter cannot be prepared again")
            }
        case SDL_KEYDOWN.rawValue:
            let key = event.key
            guard key.repeat == 0 else { return }
            if window.options.windowed, key.keysym.sym == SDLK_ESCAPE.rawValue {
                exit = .escape
                return
            }
            let name = String(cString: SDL_GetKeyName(key.keysym.sym))
            guard !name.isEmpty else { return }
            let shift = key.keysym.mod & UInt16(KMOD_SHIFT.rawValue) != 0
            if let sleeper, !sleeper.admitKey(now: clock.now()) { return }
            latency.input(.tap, at: eventTime(key.timestamp), stamp: .received)
            if let commit = app.handleKey(named: name, shift: shift, at: eventTime(key.timestamp)) {
                onCommit(commit)
            }
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let f = event.tfinger
            let phase: PointerPhase = type == SDL_FINGERDOWN.rawValue ? .down : type == SDL_FINGERUP.rawValue ? .up : .move
            let raw = RawPointerInput.finger(phase: phase, touchID: f.touchId, fingerID: f.fingerId, x: f.x, y: f.y)
            pointer(fingerCalibration.apply(raw), f.timestamp, app)
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            let b = event.button
            pointer(.mouseButton(isDown: type == SDL_MOUSEBUTTONDOWN.rawValue, which: b.which, button: b.button,
                                 x: b.x, y: b.y), b.timestamp, app)
        case SDL_MOUSEMOTION.rawValue:
            let m = event.motion
            pointer(.mouseMotion(which: m.which, leftHeld: m.state & 1 != 0, x: m.x, y: m.y), m.timestamp, app)
        case let t where input?.eventType == t:
            drainInput(app)
        case let t where customEvents.map({ $0.eventType == t }) == true:
            eventHandler?.handle(app: app, now: clock.now())
            if let arrived = eventHandler?.takeCommandArrival() {
                // From the client thread's clock (CLOCK_MONOTONIC) to the host clock.
                let now = clock.now()
                latency.input(.command, at: now - max(0, MonotonicClock.seconds() - arrived), stamp: .received)
            }
            if let request = eventHandler?.takeDisplayRequest() { sleeper?.command(request, now: clock.now()) }
        default:
            break
        }
    }

    private func perform(_ action: HostAction, _ app: KioskApp) {
        switch action {
        case .none: break
        case .relayout: relayout(app)
        case .displayChanged:
            window.readDisplay()
            pacer = FramePacer(refreshRate: window.refreshRate, vsync: window.presenter.vsync)
            scheduler = FrameScheduler(period: pacer.period)
            relayout(app)
        case .fullUpload: screen.contentLost()
        case .cancelPointers: cancelPointers(app)
        case .windowClosed: windowCloseSeen = true
        }
    }

    private func eventTime(_ timestamp: UInt32) -> Double { HostClock.seconds(fromEventTimestamp: timestamp) }

    private func pointer(_ input: RawPointerInput, _ timestamp: UInt32, _ app: KioskApp) {
        guard let e = translator.translate(input, timestamp: eventTime(timestamp), viewport: viewport) else { return }
        if let sleeper, !sleeper.admit(e, now: clock.now()) { return }
        deliver(e, stamp: .received, app)
    }

    /// A pointer event to the app, and to the latency ledger when it holds a control after it.
    private func deliver(_ e: PointerEvent, stamp: LatencyLedger.InputStamp, _ app: KioskApp) {
        let commit = app.handle(e)
        noteInput(e, stamp: stamp, app)
        if let commit { onCommit(commit) }
    }

    /// SDL 2 reports no touch hot-plug: a finger whose device SDL no longer lists ends its gesture.
    private func cancelIfTouchDeviceLost(_ app: KioskApp) {
        let active = translator.activeTouchIDs
        guard !active.isEmpty else { return }
        var present: Set<Int64> = mapper.activeTouchDevices.union([CSDL2_MOUSE_TOUCHID])
        for i in 0..<max(0, SDL_GetNumTouchDevices()) { present.insert(SDL_GetTouchDevice(i)) }
        if HostAction.touchDeviceLost(activeTouchIDs: active, presentDevices: present) {
            Log.warning("a touch device went away mid-gesture; the gesture is cancelled")
            cancelPointers(app)
        }
    }

    /// Re-reads the output size; on a change of page size or scale, cancels gestures, re-lays
    /// out the app and prepares the presenter again.
    private func relayout(_ app: KioskApp) {
        let next = window.measureViewport()
        guard next != viewport else { return }
        let resized = next.geometry != viewport.geometry
        // A larger output: under an address-space limit, one clear line and exit 1 rather than
        // an allocation failure in the resize or a frame after it.
        if next.outputWidth * next.outputHeight > viewport.outputWidth * viewport.outputHeight,
           let problem = Self.addressSpaceProblem(next, threads: window.options.threads) {
            exit = .failure(problem)
            return
        }
        if resized {
            cancelPointers(app)
            app.resize(pixelWidth: next.pagePixelWidth, pixelHeight: next.pagePixelHeight, scale: next.scale)
        }
        if !screen.setViewport(next, prepare: resized) {
            exit = .failure("cannot prepare the presenter for a \(next.pagePixelWidth)x\(next.pagePixelHeight) page")
        }
    }

    /// The line for an address-space limit (`ulimit -v`, `LimitAS=`) too low for an output of
    /// this size and the run's `threads` (`ProcessLimits.addressSpaceForRun`, from what was
    /// mapped at the first check, made before any of the run's threads started); nil without
    /// a limit or when it is enough. Main thread only.
    static func addressSpaceProblem(_ v: Viewport, threads: Int) -> String? {
        addressSpaceProblem(pixels: v.outputWidth * v.outputHeight, threads: threads,
                            for: "a \(v.outputWidth)x\(v.outputHeight) output and \(threads) threads")
    }

    /// The same before SDL starts (and before the caller starts its threads): for a window of
    /// a given size its output, else the start alone (no pixels: a floor; the check after
    /// SDL's start adds the display's); the run's threads' stacks counted either way.
    static func startAddressSpaceProblem(_ options: HostOptions) -> String? {
        if options.windowed, let s = options.size {
            return addressSpaceProblem(pixels: s.width * s.height, threads: options.threads,
                                       for: "a \(s.width)x\(s.height) output and \(options.threads) threads")
        }
        return addressSpaceProblem(pixels: 0, threads: options.threads, for: "its start and \(options.threads) threads")
    }

    private static func addressSpaceProblem(pixels: Int, threads: Int, for what: String) -> String? {
        let mapped = mappedAtFirstCheck ?? (ProcessMemory.virtualKB() ?? 0) * 1024
        mappedAtFirstCheck = mapped
        return ProcessLimits.addressSpaceShortfall(
            need: ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped, threads: threads), for: what)
    }
    nonisolated(unsafe) private static var mappedAtFirstCheck: Int?

    // MARK: Device input

    /// Hands the reader's queued input to the app, each at the time it happened on the host clock.
    private func drainInput(_ app: KioskApp) {
        guard let input else { return }
        let now = clock.now(), monotonic = MonotonicClock.seconds()
        for stamped in input.take() {
            switch stamped.input {
            case let .deviceAdded(device, name): facts.inputDevices.added(id: device, name: name)
            case let .deviceRemoved(device): facts.inputDevices.removed(id: device)
            default: break
            }
            let time = now - max(0, monotonic - stamped.time)
            for raw in mapper.map(stamped.input, viewport: viewport) {
                guard let e = translator.translate(raw, timestamp: time, viewport: viewport) else { continue }
                if let sleeper, !sleeper.admit(e, now: clock.now()) { continue }
                deliver(e, stamp: .kernel, app)
            }
        }
        let cursor = mapper.visibleCursor(viewport: viewport)
        if cursor != shownCursor {
            shownCursor = cursor
            screen.setCursor(cursor)
        }
    }

    private func cancelPointers(_ app: KioskApp) {
        guard translator.hasActivePointers else { return }
        translator.reset()
        app.cancelPointers(at: clock.now())
        latency.withdraw(LatencyLedger.Kind.pointer)
    }
}
