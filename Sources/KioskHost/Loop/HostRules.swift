import KioskSupport
import CSDL2
#if canImport(Glibc)
import Glibc
#endif

/// Why the frame loop ended, and the exit status that follows (0: asked to stop; 1: the
/// display went away or failed — systemd's `Restart=` brings the kiosk back).
public enum HostExit: Equatable, Sendable {
    /// SIGTERM or SIGINT (SDL turns them into SDL_QUIT).
    case signal(Int32)
    /// The window was closed (windowed mode, by the window manager).
    case windowClosed
    /// Escape in windowed mode.
    case escape
    /// SDL_QUIT that no signal or window close explains: the display connection ended (on
    /// Wayland SDL reports a lost compositor this way).
    case displayLost(driver: String)
    /// Something the host cannot recover from (the message says what).
    case failure(String)

    public var status: Int32 {
        switch self {
        case .signal, .windowClosed, .escape: return 0
        case .displayLost, .failure: return 1
        }
    }

    /// The one log line for an abnormal end; nil for a normal one.
    public var logLine: String? {
        switch self {
        case .signal, .windowClosed, .escape: return nil
        case .displayLost(let driver):
            return "the display connection ended (SDL video driver \(driver): the compositor or X server went away); exiting with status 1"
        case .failure(let message): return "\(message); exiting with status 1"
        }
    }

    /// What an SDL_QUIT means, given the signal recorded (0: none) and whether the window
    /// manager closed the window just before.
    public static func forQuit(signal: Int32, windowCloseSeen: Bool, driver: String) -> HostExit {
        if signal != 0 { return .signal(signal) }
        if windowCloseSeen { return .windowClosed }
        return .displayLost(driver: driver)
    }
}

/// What the host does for a window or display event (pure: SDL's event ids in, an action out).
public enum HostAction: Equatable, Sendable {
    case none
    /// Re-read the output size; re-lay out the page if it changed (cancels gestures then).
    case relayout
    /// Re-read the display (refresh rate, DPI), then re-lay out.
    case displayChanged
    /// The screen's content may be gone: send the whole page again.
    case fullUpload
    /// Pointers in progress can no longer finish normally: cancel them.
    case cancelPointers
    /// The window manager closed the window (an SDL_QUIT follows).
    case windowClosed

    public static func forWindowEvent(_ id: UInt32) -> HostAction {
        switch id {
        // On Wayland the real full-screen size arrives only here.
        case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue, SDL_WINDOWEVENT_RESIZED.rawValue: return .relayout
        // Moved onto another display: its size, refresh rate or DPI may differ.
        case SDL_WINDOWEVENT_DISPLAY_CHANGED.rawValue: return .displayChanged
        case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue, SDL_WINDOWEVENT_RESTORED.rawValue:
            return .fullUpload
        case SDL_WINDOWEVENT_FOCUS_LOST.rawValue, SDL_WINDOWEVENT_HIDDEN.rawValue, SDL_WINDOWEVENT_MINIMIZED.rawValue:
            return .cancelPointers
        case SDL_WINDOWEVENT_CLOSE.rawValue: return .windowClosed
        default: return .none
        }
    }

    /// Orientation changes, displays connected or disconnected: the output may have a new
    /// size or refresh rate. (A disconnected display that comes back arrives as "connected".)
    public static func forDisplayEvent(_ id: UInt32) -> HostAction {
        switch id {
        case SDL_DISPLAYEVENT_ORIENTATION.rawValue, SDL_DISPLAYEVENT_CONNECTED.rawValue,
             SDL_DISPLAYEVENT_DISCONNECTED.rawValue:
            return .displayChanged
        default: return .none
        }
    }

    /// True when a gesture must be cancelled because a touch device it uses is gone (SDL 2
    /// has no touch hot-plug events; the host compares the devices SDL lists now).
    public static func touchDeviceLost(activeTouchIDs: Set<Int64>, presentDevices: Set<Int64>) -> Bool {
        !activeTouchIDs.isSubset(of: presentDevices)
    }
}

/// In which order the host tries the presenters (`PresenterKind`, asked for by
/// `DARKMODE_KIOSK_PRESENT` through `HostEnvironment`).
extension PresenterKind {
    /// The SDL (or Wayland) step named when this presenter cannot be made.
    public var step: String {
        switch self {
        case .surface: return "SDL_GetWindowSurface"
        case .shm: return "wl_shm (Wayland shared-memory buffers)"
        case .texture: return "SDL_CreateRenderer"
        case .drm: return "DRM dumb buffers"
        }
    }

    /// The presenters to try, in order, for the request and SDL's video driver. None asked
    /// (automatic): on Wayland shared memory first (SDL 2.26 has no Wayland window framebuffer,
    /// so its window surface would be a GL texture), elsewhere the window surface; the streaming
    /// texture last. A named presenter is the only one tried.
    public static func order(request: PresenterKind?, driver: String) -> [PresenterKind] {
        if let request { return [request] }
        return driver.lowercased() == "wayland" ? [.shm, .surface, .texture] : [.surface, .texture]
    }
}

/// Which signal asked the kiosk to quit. SDL turns SIGTERM/SIGINT into SDL_QUIT, and so does
/// a Wayland compositor going away: this recorder, installed after SDL_Init in front of SDL's
/// handlers (which it then calls), tells the two apart. It is installed only over a real
/// handler, so a signal is never swallowed, and removed before SDL_Quit (which then restores
/// the defaults).
enum QuitSignal {
    typealias Handler = @convention(c) (Int32) -> Void
    struct State {
        var received: Int32 = 0
        var previousTerm: Handler?
        var previousInt: Handler?
        /// An eventfd the handler writes to (the idle wait's, `IdleWait`; also written after each of our events is queued, `IdleWait.eventQueued`), -1: none. SDL turns
        /// the signal into SDL_QUIT only when it next pumps; a signal that lands on another
        /// thread would not end a `poll` of the main thread without it.
        var wake: Int32 = -1
    }
    /// Allocated on first use (in `install`, before any handler exists); the handler only
    /// reads and writes through it.
    nonisolated(unsafe) static let state: UnsafeMutablePointer<State> = {
        let p = UnsafeMutablePointer<State>.allocate(capacity: 1)
        p.initialize(to: State())
        return p
    }()

    static func install() {
        let s = state
        s.pointee.received = 0
        for sig in [SIGTERM, SIGINT] {
            var old = sigaction()
            guard sigaction(sig, nil, &old) == 0, old.sa_flags & SA_SIGINFO == 0 else { continue }
            guard let handler = old.__sigaction_handler.sa_handler else { continue }
            let raw = unsafeBitCast(handler, to: Int.self)
            guard raw != 0, raw != 1, raw != unsafeBitCast(recorder, to: Int.self) else { continue }  // SIG_DFL, SIG_IGN, ours
            if sig == SIGTERM { s.pointee.previousTerm = handler } else { s.pointee.previousInt = handler }
            var act = old
            act.__sigaction_handler.sa_handler = recorder
            sigaction(sig, &act, nil)
        }
    }

    static func uninstall() {
        let s = state
        for sig in [SIGTERM, SIGINT] {
            guard let previous = sig == SIGTERM ? s.pointee.previousTerm : s.pointee.previousInt else { continue }
            var cur = sigaction()
            if sigaction(sig, nil, &cur) == 0, let h = cur.__sigaction_handler.sa_handler,
               unsafeBitCast(h, to: Int.self) == unsafeBitCast(recorder, to: Int.self) {
                cur.__sigaction_handler.sa_handler = previous
                sigaction(sig, &cur, nil)
            }
            if sig == SIGTERM { s.pointee.previousTerm = nil } else { s.pointee.previousInt = nil }
        }
        s.pointee.received = 0
    }

    static var received: Int32 { state.pointee.received }
}

private let recorder: QuitSignal.Handler = { sig in
    let s = QuitSignal.state
    if s.pointee.received == 0 { s.pointee.received = sig }
    let previous = sig == SIGTERM ? s.pointee.previousTerm : s.pointee.previousInt
    previous?(sig)
    if s.pointee.wake >= 0 {
        var one: UInt64 = 1
        _ = write(s.pointee.wake, &one, 8)
    }
}

/// The automatic choice of who reads touch screens and mice (`InputReaderChoice`, asked for by
/// `DARKMODE_KIOSK_INPUT` through `HostEnvironment`): libinput on SDL's kmsdrm driver, where
/// SDL's evdev reader passes absolute pointers through unscaled and knows no calibration; SDL
/// elsewhere (X11 and Wayland deliver input that a display server has already mapped).
extension InputReaderChoice {
    /// The reader for the request (nil: automatic) and SDL's video driver.
    public static func resolve(request: InputReaderChoice?, driver: String) -> InputReaderChoice {
        request ?? (driver.lowercased() == "kmsdrm" ? .libinput : .sdl)
    }
}

/// Which reader takes touch screens and pointers when the choice is not SDL's, and the one line
/// at start that says so. The rule for "udev is there": `/run/udev/control` exists (udevd
/// creates that socket when it starts and removes it when it stops; systemd's libudev, which
/// libinput uses, treats a device as initialised only when udevd has written its database
/// entry under /run/udev/data). Without it libinput finds nothing (its udev backend enumerates
/// nothing initialised, its path backend refuses every node: "udev device never initialized"),
/// so the kiosk reads /dev/input/event* itself.
public enum InputBackend: Equatable, Sendable {
    case libinputUdev
    case evdev

    public static func choose(_ choice: InputReaderChoice, udevRunning: Bool) -> InputBackend? {
        switch choice {
        case .sdl: return nil
        case .evdev: return .evdev
        case .libinput: return udevRunning ? .libinputUdev : .evdev
        }
    }

    /// The line naming the backend (`seat` for libinput's).
    public static func startLine(_ backend: InputBackend, choice: InputReaderChoice, seat: String) -> String {
        switch (backend, choice) {
        case (.libinputUdev, _):
            return "input: libinput with udev (udevd is running: /run/udev/control), seat \(seat)"
        case (.evdev, .evdev):
            return "input: reading /dev/input/event* directly (DARKMODE_KIOSK_INPUT=evdev); devices plugged in later are found by inotify on /dev/input"
        case (.evdev, _):
            return "input: udevd is not running (no /run/udev/control), so libinput would find no devices: reading /dev/input/event* directly; devices plugged in later are found by inotify on /dev/input"
        }
    }
}
