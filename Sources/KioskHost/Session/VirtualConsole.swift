import CConsole
#if canImport(Glibc)
import Glibc
#endif

/// The Linux virtual terminal under a kiosk that drives the display itself (KMS/DRM, no display
/// server). The kernel's text console (fbcon) keeps drawing its blinking cursor and kernel
/// messages into the screen it shares with us unless its VT is in KD_GRAPHICS mode, which is
/// what display servers set too. `enterGraphics` sets it; `restore` puts back the mode found,
/// on every way out: the host's normal return (SIGTERM and SIGINT end there), `exit` (atexit),
/// and a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS: a handler that
/// restores, then hands the signal to whatever handled it before — the Swift runtime's
/// backtracer, or the default action). Only SIGKILL leaves the console dark; then
/// `chvt`/`kbd_mode`… or the next start and stop bring it back.
///
/// The VT is standard input when that is one (a systemd unit with `TTYPath=` and
/// `StandardInput=tty`), else the controlling terminal, else /dev/tty0 (the foreground VT; open
/// to root). KDSETMODE needs the VT to be the controlling terminal or CAP_SYS_TTY_CONFIG.
public enum VirtualConsole {
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// What `enterGraphics` did.
    public enum Outcome: Equatable, Sendable {
        /// The VT at `path` is in graphics mode until `restore`.
        case graphics(path: String)
        /// No virtual terminal to switch (none on this machine, or not reachable): nothing to do.
        case noConsole
        /// There is one but it could not be switched: `reason` says why (one line to log).
        case failed(reason: String)
    }

    /// State the signal handler reads: allocated once, before any handler is installed, so the
    /// handler touches no lazily initialised Swift global.
    struct State {
        var fd: Int32 = -1
        var mode: Int32 = 0
        var installed = false
        var previous: (sigaction, sigaction, sigaction, sigaction, sigaction, sigaction, sigaction)
            = (sigaction(), sigaction(), sigaction(), sigaction(), sigaction(), sigaction(), sigaction())
    }
    nonisolated(unsafe) static let state: UnsafeMutablePointer<State> = {
        let p = UnsafeMutablePointer<State>.allocate(capacity: 1)
        p.initialize(to: State())
        return p
    }()

    /// Switches the VT to graphics mode (see the type's note for which VT), remembering its mode
    /// for `restore`, and installs the exit and crash paths that restore it.
    public static func enterGraphics() -> Outcome {
        let s = state
        if s.pointee.fd >= 0 { return .graphics(path: "(already)") }
        var reasons: [String] = []
        var sawConsole = false
        for candidate in candidates() {
            guard let fd = candidate.open() else {
                if errno != ENOENT && errno != ENXIO && errno != ENODEV {
                    reasons.append("\(candidate.path): \(String(cString: strerror(errno)))")
                    sawConsole = sawConsole || candidate.path == "/dev/tty0"
                }
                continue
            }
            var mode: Int32 = 0
            guard dmk_console_get_mode(fd, &mode) == 0 else { close(fd); continue }   // not a VT
            sawConsole = true
            let set = dmk_console_set_mode(fd, 1)
            guard set == 0 else {
                reasons.append("KDSETMODE on \(candidate.path): \(String(cString: strerror(-set)))")
                close(fd)
                continue
            }
            s.pointee.fd = fd
            s.pointee.mode = mode
            installExitPaths()
            return .graphics(path: candidate.path)
        }
        return sawConsole ? .failed(reason: reasons.joined(separator: "; ")) : .noConsole
    }

    /// Puts back the mode `enterGraphics` found. Async-signal-safe (one ioctl); idempotent.
    public static func restore() {
        let s = state
        let fd = s.pointee.fd
        guard fd >= 0 else { return }
        _ = dmk_console_set_mode(fd, s.pointee.mode == dmk_console_kd_graphics() ? 1 : 0)
    }

    /// `restore`, then forgets the VT (closes its descriptor). Not for signal handlers.
    public static func leave() {
        restore()
        let s = state
        if s.pointee.fd >= 0 { close(s.pointee.fd) }
        s.pointee.fd = -1
    }

    /// The line to log when the console could not be switched, or nil.
    public static func warning(_ outcome: Outcome) -> String? {
        guard case .failed(let reason) = outcome else { return nil }
        return "the console stays in text mode (\(reason)): its cursor and kernel messages may show"
            + " over the page; run the kiosk on its VT (systemd: TTYPath=/dev/tty1, StandardInput=tty) or as root"
    }

    struct Candidate {
        let path: String
        let fd: Int32?
        func open() -> Int32? {
            if let fd {
                let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
                return copy >= 0 ? copy : nil
            }
            let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
            return fd >= 0 ? fd : nil
        }
    }

    static func candidates() -> [Candidate] {
        [Candidate(path: "standard input", fd: 0), Candidate(path: "/dev/tty", fd: nil), Candidate(path: "/dev/tty0", fd: nil)]
    }

    private static func installExitPaths() {
        let s = state
        guard !s.pointee.installed else { return }
        s.pointee.installed = true
        atexit { VirtualConsole.restore() }
        withUnsafeMutableBytes(of: &s.pointee.previous) { raw in
            let previous = raw.bindMemory(to: sigaction.self)
            for (i, sig) in crashSignals.enumerated() {
                var act = sigaction()
                act.__sigaction_handler.sa_sigaction = crashHandler
                act.sa_flags = SA_SIGINFO | SA_ONSTACK
                sigemptyset(&act.sa_mask)
                _ = sigaction(sig, &act, &previous[i])
            }
        }
    }
}

/// Restores the console, puts back the handler that was there before ours and hands it the
/// signal: a handler is called as the kernel would; the default action happens on return (a
/// fault re-executes and is delivered again; a sent or raised signal is raised again, blocked
/// until this handler returns).
private let crashHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { sig, info, context in
    VirtualConsole.restore()
    let s = VirtualConsole.state
    guard let index = VirtualConsole.crashSignals.firstIndex(of: sig) else { return }
    var previous = withUnsafeBytes(of: &s.pointee.previous) { $0.bindMemory(to: sigaction.self)[index] }
    _ = sigaction(sig, &previous, nil)
    if previous.sa_flags & SA_SIGINFO != 0, let handler = previous.__sigaction_handler.sa_sigaction {
        handler(sig, info, context)
        return
    }
    if let handler = previous.__sigaction_handler.sa_handler {
        let raw = unsafeBitCast(handler, to: Int.self)
        if raw == 1 { return }                 // SIG_IGN
        if raw != 0 { handler(sig); return }
    }
    _ = raise(sig)                             // SIG_DFL
}
