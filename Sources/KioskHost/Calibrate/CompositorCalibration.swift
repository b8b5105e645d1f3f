import CSDL2
import DarkModeToggle
import KioskEngine
import KioskSupport
import Log

/// `darkmode-kiosk calibrate` under a compositor (cage, the kiosk's Wayland unit; any
/// compositor with `WAYLAND_DISPLAY` or `DISPLAY`): the round in a full-screen SDL window made
/// as `run` makes its own (`KioskWindow`: its presenter, `--rotate` turning the picture), fed by
/// SDL's touch (`CalibrationFingers`). Positions are normalised to the window, which under cage
/// is the whole output; the compositor has already applied its libinput matrix (the device's
/// `LIBINPUT_CALIBRATION_MATRIX`), so the fitted matrix maps the touch as the compositor
/// delivers it, and the kiosk applies it on top (`FingerCalibration`), in the same order as on
/// KMS/DRM: before the page's turn.
///
/// `--device NAME` cannot be honoured: the compositor hands every touch screen to its clients as
/// one seat's touch, and SDL names that one after its protocol, not the device ("wayland_touch").
/// It is refused in one line. A mouse or tablet is not calibrated here: the kiosk applies the
/// matrix to touch only under a compositor.
enum CompositorCalibration {
    static func run(rotation: Rotation, deviceName: String?, environment env: HostEnvironment,
                    say: @escaping (String) -> Void) -> Result<CalibrationHost.Outcome, CalibrationHost.Failure> {
        let which = env.hasWaylandDisplay ? "WAYLAND_DISPLAY" : "DISPLAY"
        if let deviceName {
            return .failure(.init(message: "--device \"\(deviceName)\" cannot be honoured under a compositor (\(which) is set): "
                                  + "it gives its clients all its touch screens as one, without their names; leave --device out "
                                  + "(the touch screen touched first is used), or calibrate from a text console with the compositor stopped"))
        }
        let options = HostOptions(windowed: false, rotation: rotation, titleBase: "DarkModeKiosk calibrate", environment: env)
        SDLHost.applyHints(options)
        if WaylandOutputWait.applies(videoDriver: env.videoDriver, hasWaylandDisplay: env.hasWaylandDisplay),
           !WaylandOutputWait.untilOutput() {
            return .failure(.init(message: "calibrate: the compositor went away while waiting for an output"))
        }
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else {
            return .failure(.init(message: "calibrate: cannot open a window under the compositor (\(which) is set): "
                                  + "SDL_Init(video) failed: \(Diagnostics.sdlError)"))
        }
        defer { SDL_Quit() }
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "?"
        guard !["offscreen", "dummy", "evdev"].contains(driver.lowercased()) else {
            return .failure(.init(message: "calibrate: SDL found no display under the compositor (\(which) is set; "
                                  + "it fell back to its invisible \"\(driver)\" driver): set SDL_VIDEODRIVER=wayland or x11"))
        }
        // The window goes before SDL_Quit (the deferred call above runs last).
        return withWindow(options, driver: driver, say: say)
    }

    private static func withWindow(_ options: HostOptions, driver: String,
                                   say: @escaping (String) -> Void) -> Result<CalibrationHost.Outcome, CalibrationHost.Failure> {
        guard let window = KioskWindow(options: options) else {
            return .failure(.init(message: "calibrate: no full-screen window under the compositor (SDL video driver \(driver); the line above says why)"))
        }
        window.show()
        window.enterFullScreen()
        SDL_PumpEvents()
        Log.info("calibrate: presenting with \(window.presenter.name) (SDL video driver \(driver)); touch through the compositor")
        StopSignal.install()
        defer { StopSignal.restore() }
        return Session(window: window, say: say).loop()
    }

    /// The window's round and SDL's events that feed it.
    private final class Session {
        let window: KioskWindow
        let say: (String) -> Void
        var screen: CalibrationScreen
        var fingers = CalibrationFingers(mouseTouchID: CSDL2_MOUSE_TOUCHID)

        init(window: KioskWindow, say: @escaping (String) -> Void) {
            self.window = window
            self.say = say
            screen = CalibrationScreen(presenter: window.presenter, viewport: Self.viewport(window), say: say)
        }

        /// The window's size as the presenter and SDL report it, scale 1 (the picture is drawn in pixels).
        static func viewport(_ window: KioskWindow) -> Viewport {
            var v = window.measureViewport()
            v.scale = 1
            return v
        }

        func loop() -> Result<CalibrationHost.Outcome, CalibrationHost.Failure> {
            screen.show()
            var event = SDL_Event()
            while true {
                let got = SDL_WaitEventTimeout(&event, 250) != 0
                if StopSignal.received { return .failure(.init(message: "calibrate: stopped by a signal; nothing written")) }
                guard got else { continue }
                repeat {
                    if let end = handle(event) { return end }
                } while SDL_PollEvent(&event) != 0
            }
        }

        /// One SDL event; the end of the command when it is one.
        private func handle(_ event: SDL_Event) -> Result<CalibrationHost.Outcome, CalibrationHost.Failure>? {
            let type = event.type
            switch type {
            case SDL_QUIT.rawValue:
                return .failure(.init(message: "calibrate: the window was closed (or a signal came); nothing written"))
            case SDL_WINDOWEVENT.rawValue:
                window(HostAction.forWindowEvent(UInt32(event.window.event)))
            case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
                let f = event.tfinger
                let phase: PointerPhase = type == SDL_FINGERDOWN.rawValue ? .down : type == SDL_FINGERUP.rawValue ? .up : .move
                guard let step = fingers.take(.finger(phase: phase, touchID: f.touchId, fingerID: f.fingerId, x: f.x, y: f.y))
                else { return nil }
                return finger(step, touchID: f.touchId)
            default:
                break
            }
            return nil
        }

        private func window(_ action: HostAction) {
            switch action {
            case .relayout, .displayChanged:
                let next = Self.viewport(window)
                guard next != screen.viewport else { return }
                // The targets' pixels change with the size: the round starts again on the new one.
                if screen.round.index > 0 || screen.round.restarts > 0 {
                    Log.warning("calibrate: the window is now \(next.outputWidth)x\(next.outputHeight) px; the targets start again")
                }
                _ = fingers.lost()
                screen = CalibrationScreen(presenter: window.presenter, viewport: next, say: say)
                screen.show()
            case .fullUpload:
                screen.redraw()
            case .cancelPointers:
                if fingers.lost() != nil { screen.cancel() }
            case .none, .windowClosed:
                break
            }
        }

        private func finger(_ step: CalibrationFingers.Step, touchID: Int64) -> Result<CalibrationHost.Outcome, CalibrationHost.Failure>? {
            switch step {
            case let .press(x, y): screen.press(x: x, y: y)
            case let .move(x, y): screen.move(x: x, y: y)
            case .cancel: screen.cancel()
            case .release:
                guard let result = screen.release() else { return nil }
                return .success(CalibrationHost.Outcome(result: result, deviceName: Self.touchName(touchID), underCompositor: true))
            }
            return nil
        }

        /// SDL's name for the touch device (its index among SDL's devices), "touch" when it has none.
        static func touchName(_ id: Int64) -> String {
            for i in 0..<max(0, SDL_GetNumTouchDevices()) where SDL_GetTouchDevice(i) == id {
                if let name = SDL_GetTouchName(i), name.pointee != 0 { return String(cString: name) }
            }
            return "touch"
        }
    }
}
