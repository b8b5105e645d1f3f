#if canImport(Glibc)
import Glibc
#endif

/// The X server going away. Xlib reports a broken connection to its I/O error handler and then
/// calls `exit(1)` itself; the default handler prints one line of its own and nothing else
/// happens (no log line of ours, no flush). SDL 2.26 installs none, so the host does, through
/// the libX11 that SDL loaded: our line, the caller's flush (the last commit), STOPPING=1,
/// then exit status 1. (On Wayland, SDL turns a lost compositor into SDL_QUIT instead; see
/// `HostExit.forQuit`.)
enum DisplayLoss {
    /// Runs once when the connection is lost, on the thread that noticed (the loop's).
    nonisolated(unsafe) static var onLost: (() -> Void)?

    /// Installs the handler when the current driver is x11 and libX11 is loaded; false otherwise.
    @discardableResult
    static func watchX11(onLost: @escaping () -> Void) -> Bool {
        guard let lib = dlopen("libX11.so.6", RTLD_NOW | RTLD_NOLOAD) else { return false }
        guard let sym = dlsym(lib, "XSetIOErrorHandler") else { return false }
        Self.onLost = onLost
        typealias Handler = @convention(c) (OpaquePointer?) -> Int32
        typealias Setter = @convention(c) (Handler?) -> Handler?
        let set = unsafeBitCast(sym, to: Setter.self)
        _ = set(xioErrorHandler)
        return true
    }
}

private let xioErrorHandler: @convention(c) (OpaquePointer?) -> Int32 = { _ in
    let hook = DisplayLoss.onLost
    DisplayLoss.onLost = nil
    hook?()
    exit(1)
}
