import CSDL2

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
            return "darkmode-kiosk: the display connection ended (SDL video driver \(driver): the compositor or X server went away); exiting with status 1"
        case .failure(let message): return "darkmode-kiosk: \(message); exiting with status 1"
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

/// The SIGTERM/SIGINT recorder (see shim.h): install after SDL_Init, read when SDL_QUIT comes.
enum QuitSignal {
    static func install() { CSDL2_RecordQuitSignals() }
    static func uninstall() { CSDL2_RestoreQuitSignals() }
    static var received: Int32 { CSDL2_QuitSignal() }
}
