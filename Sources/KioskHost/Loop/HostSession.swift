import CSDL2
import KioskEngine
import Log
import KioskSupport

/// The host once SDL's video runs: the first page built on its thread while the window opens
/// (`FirstPage`, `KioskWindow`), the device input started (`InputSource`), the frame loop run
/// (`FrameLoop`), and how it ended said to the log and to systemd.
struct HostSession {
    let options: HostOptions
    /// The DRM card our own presenter drives (nil: SDL's display).
    let drm: DrmDevice?
    /// SDL's video driver.
    let driver: String
    let clock: HostClock
    let service: ServiceLink
    let timingObserver: TimingObserver?
    let eventHandler: HostEventHandler?
    let onCommit: (KioskOutput) -> Void

    /// Runs the window and its loop; the process exit status. `makeApp` goes to the first
    /// page's thread, which ends before this returns (the caller's `withoutActuallyEscaping`).
    func run(makeApp: @escaping (PageGeometry) -> KioskApp) -> Int32 {
        // The first page is built and drawn on a second thread while the window (and, on
        // Wayland, the GL stack) loads.
        let firstPage = FirstPage(options: options, drm: drm, clock: clock, make: makeApp)
        guard let window = KioskWindow(options: options, drm: drm) else {
            _ = firstPage?.take()
            service.stopping(status: "no display")
            return 1
        }
        timingObserver?.windowCreatedAt = clock.now()
        // On a bare KMS/DRM display, which presenter runs (ours, or SDL's GL texture).
        if drm != nil || driver.lowercased() == "kmsdrm" {
            Log.info("presenting with \(window.presenter.name) (SDL video driver \(driver))")
        }
        let input = startInput()
        defer { input?.stop() }
        let loop = FrameLoop(window: window, clock: clock, service: service, observers: timingObserver.map { [$0] } ?? [],
                             input: input, eventHandler: eventHandler, onCommit: onCommit)
        describeForTiming(loop, window)
        let prebuilt = firstPage?.take()
        StartupTrace.mark("page taken")
        let exit = loop.run(prebuilt: prebuilt, makeApp: makeApp)
        if let line = exit.logLine { Log.error(line) }
        // SIGHUP and SIGQUIT arrive as SIGTERM (`ProcessSetup`): say which one stopped it.
        if case .signal = exit, ProcessSetup.forwardedStop != 0 {
            Log.info("\(ProcessSetup.signalName(ProcessSetup.forwardedStop)) received: "
                                   + "stopping as for SIGTERM")
        }
        service.stopping(status: exit.status == 0 ? "stopping" : (exit.logLine ?? "failed"))
        return exit.status
    }

    /// The reader of touch screens and pointers (KMS/DRM) the environment (`DARKMODE_KIOSK_INPUT`,
    /// `XDG_SEAT`) and the driver ask for, started; nil: SDL's own input. With our DRM presenter
    /// SDL runs its evdev driver, but the display is KMS/DRM all the same.
    private func startInput() -> InputSource? {
        let env = options.environment
        let choice = InputReaderChoice.resolve(request: env.input, driver: drm != nil ? "kmsdrm" : driver)
        return InputSource.start(choice: choice, seat: env.seat, replacesCalibration: options.calibration != nil)
    }

    /// What the timing lines say of the display and the pacing.
    private func describeForTiming(_ loop: FrameLoop, _ window: KioskWindow) {
        guard let timingObserver else { return }
        let driver = self.driver
        timingObserver.describe = { [unowned loop, unowned window] in
            let v = loop.viewport
            return "video driver \(driver), presenter \(window.presenter.name)"
                + "\(window.presenter.vsync ? " (vsync)" : ""), output \(v.outputWidth)x\(v.outputHeight), "
                + "page \(v.pagePixelWidth)x\(v.pagePixelHeight) px, scale \(v.scale), rotation \(v.rotation.degrees)"
        }
        timingObserver.pacerSummary = { [unowned loop] in loop.pacerSummary }
        timingObserver.latencyLines = { [unowned loop] in loop.latency.reportLines() + loop.presenterTimingLines }
    }
}
