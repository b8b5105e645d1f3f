import CLibinput
import CSystemd
import KioskEngine
import KioskSupport
import Log
import Raster
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// `darkmode-kiosk calibrate` on the display: the KMS/DRM card and the presenter `run` uses on a
/// bare console (`DrmDevice`, `DrmPresenter`: full screen, no SDL), the input readers `run` uses
/// (`LibinputReader` with the devices' own matrices set to identity, else `EvdevReader`), and the
/// pure round (`CalibrationRound`, drawn by `CalibrationPicture`, shown by `CalibrationScreen`).
/// Under a compositor (`WAYLAND_DISPLAY` or `DISPLAY` set) the round runs in a full-screen SDL
/// window on the compositor's touch instead (`CompositorCalibration`).
///
/// Touches of one device count: `--device NAME`'s, else the first device touched. A touch
/// screen's first finger is the press (other fingers are ignored); a tablet or absolute pointer
/// presses with its left button at its position. Ctrl-C or SIGTERM ends it, nothing written.
public enum CalibrationHost {
    /// A finished calibration and the device it was taken with.
    public struct Outcome: Sendable {
        public var result: CalibrationResult
        public var deviceName: String
        /// Measured under a compositor (SDL's touch, after the compositor's own matrix), not
        /// from the device itself.
        public var underCompositor: Bool
    }

    /// Why there is no calibration (one line; the command exits 1).
    public struct Failure: Error, Sendable {
        public var message: String
    }

    /// How long `--device NAME` may take to show up before it counts as missing.
    static let deviceWaitSeconds = 5.0

    /// Runs the round until it is done. `say` gets the lines for the person at the screen.
    public static func run(rotation: Rotation, deviceName: String?, environment env: HostEnvironment,
                           say: @escaping (String) -> Void) -> Result<Outcome, Failure> {
        if env.hasWaylandDisplay || env.hasX11Display {
            return CompositorCalibration.run(rotation: rotation, deviceName: deviceName, environment: env, say: say)
        }
        let logind = env.logind ? LogindSeat.connect() : nil
        let card: DrmDevice
        switch DrmDevice.open(logind: logind, env: env) {
        case .success(let d):
            card = d
            if case .direct = d.access { logind?.close() }
        case .failure(let e):
            logind?.close()
            return .failure(Failure(message: "cannot show the targets on KMS/DRM: \(e.message)"))
        }
        guard let presenter = DrmPresenter(card: card, flipOrder: card.flipOrder) else {
            card.close()
            return .failure(Failure(message: "cannot show the targets on KMS/DRM: no scanout buffers on \(card.path)"))
        }
        defer { presenter.close() }
        Log.info("calibrate: presenting on \(card.summary)")
        let wake = WakeDescriptor()
        guard let wake else { return .failure(Failure(message: "calibrate: eventfd failed: \(String(cString: strerror(errno)))")) }
        let reader: DeviceInputReader
        switch startReader(env: env, wake: wake) {
        case .success(let r): reader = r
        case .failure(let f): return .failure(f)
        }
        defer { reader.stop() }
        let session = Session(presenter: presenter, rotation: rotation, width: card.width, height: card.height,
                              deviceName: deviceName, say: say)
        return session.loop(reader: reader, wake: wake)
    }

    /// libinput while udevd runs (devices' LIBINPUT_CALIBRATION_MATRIX set aside: the samples
    /// must be the raw positions), else the evdev reader.
    private static func startReader(env: HostEnvironment, wake: WakeDescriptor) -> Result<DeviceInputReader, Failure> {
        let signal: @Sendable () -> Bool = { wake.signal() }
        if access("/run/udev/control", F_OK) == 0 {
            switch LibinputReader.start(seat: env.seat, replacesCalibration: true, wake: signal) {
            case .success(let r): return .success(r)
            case .failure(let e): Log.warning("input: libinput not used (\(e.reason)); reading /dev/input/event* directly instead")
            }
        }
        switch EvdevReader.start(wake: signal) {
        case .success(let r): return .success(r)
        case .failure(let e): return .failure(Failure(message: "calibrate: no input reader (\(e.reason))"))
        }
    }

    /// The round on the screen and the input that feeds it.
    private final class Session {
        let screen: CalibrationScreen
        let wanted: String?
        var names: [Int64: String] = [:]
        /// The device whose touches count (chosen at its first press without `--device`).
        var chosen: Int64?
        /// The touch slot pressing now, or -1 for a pointer's button.
        var pressSlot: Int64?
        var pointer: [Int64: (x: Double, y: Double)] = [:]

        init(presenter: DrmPresenter, rotation: Rotation, width: Int, height: Int, deviceName: String?, say: @escaping (String) -> Void) {
            let viewport = Viewport(outputWidth: width, outputHeight: height, windowWidth: width, windowHeight: height, rotation: rotation, scale: 1)
            screen = CalibrationScreen(presenter: presenter, viewport: viewport, say: say)
            wanted = deviceName
        }

        func loop(reader: DeviceInputReader, wake: WakeDescriptor) -> Result<Outcome, Failure> {
            StopSignal.install()
            defer { StopSignal.restore() }
            screen.show()
            let started = MonotonicClock.seconds()
            var warnedMissing = false
            while true {
                wake.wait(milliseconds: 250)
                if StopSignal.received { return .failure(Failure(message: "calibrate: stopped by a signal; nothing written")) }
                for item in reader.take() {
                    if let outcome = handle(item.input) { return .success(outcome) }
                }
                if let wanted, chosen == nil, !warnedMissing, MonotonicClock.seconds() - started > CalibrationHost.deviceWaitSeconds {
                    guard names.values.contains(wanted) else {
                        let found = Set(names.values).sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                        return .failure(Failure(message: "--device: no touch screen or pointer named \"\(wanted)\" "
                                                + "(found: \(found.isEmpty ? "none" : found))"))
                    }
                    warnedMissing = true
                }
            }
        }

        private func accepts(_ device: Int64) -> Bool {
            if let chosen { return device == chosen }
            if let wanted { return names[device] == wanted }
            return true
        }

        private func choose(_ device: Int64) {
            guard chosen == nil else { return }
            chosen = device
            Log.info("calibrate: using \"\(names[device] ?? "?")\"")
        }

        /// One input; the outcome when the round is done.
        private func handle(_ input: DeviceInput) -> Outcome? {
            switch input {
            case let .deviceAdded(device, name):
                names[device] = name
            case let .touch(phase, device, slot, x, y):
                guard accepts(device) else { return nil }
                if phase == .down, pressSlot == nil {
                    choose(device)
                    pressSlot = slot
                    screen.press(x: x, y: y)
                } else if slot == pressSlot {
                    screen.move(x: x, y: y)
                }
            case let .touchEnd(cancelled, device, slot):
                guard device == chosen, slot == pressSlot else { return nil }
                pressSlot = nil
                if cancelled { screen.cancel() } else { return released() }
            case let .absoluteMotion(device, x, y):
                pointer[device] = (x, y)
                if device == chosen, pressSlot == -1 { screen.move(x: x, y: y) }
            case let .button(device, code, isDown):
                guard code == 0x110, accepts(device), let p = pointer[device] else { return nil }
                if isDown, pressSlot == nil {
                    choose(device)
                    pressSlot = -1
                    screen.press(x: p.x, y: p.y)
                } else if !isDown, device == chosen, pressSlot == -1 {
                    pressSlot = nil
                    return released()
                }
            case let .deviceRemoved(device), let .syncLost(device):
                if device == chosen, pressSlot != nil {
                    pressSlot = nil
                    screen.cancel()
                }
            case .relativeMotion:
                break
            }
            return nil
        }

        private func released() -> Outcome? {
            guard let result = screen.release() else { return nil }
            return Outcome(result: result, deviceName: chosen.flatMap { names[$0] } ?? "?", underCompositor: false)
        }
    }
}

/// SIGINT and SIGTERM while the targets show: noted, so the display and the devices are given
/// back before the exit.
enum StopSignal {
    nonisolated(unsafe) static let flag: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()
    static var received: Bool { flag.pointee != 0 }
    static func install() {
        signal(SIGINT, noteStop)
        signal(SIGTERM, noteStop)
    }
    static func restore() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

private let noteStop: @convention(c) (Int32) -> Void = { _ in StopSignal.flag.pointee = 1 }
