import Log
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard output, written with `write(2)` on file descriptor 1 — no stdio
/// buffer, so nothing is lost at exit and every failure is seen where it happens.
///
/// A failed write (ENOSPC on `/dev/full`, EPIPE from a closed pipe — SIGPIPE is ignored, see
/// `ProcessSetup`, EIO, …) is a runtime failure: one line on stderr, exit status 1, at once.
public enum StandardOutput {
    /// Writes `text` and a newline.
    public static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` exactly; on failure reports it and exits with status 1.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                fail(errno)
            }
            if n == 0 { fail(EIO) }
            offset += n
        }
    }

    private static func fail(_ code: Int32) -> Never {
        Log.error("could not write to standard output: \(FileIO.errorText(code))")
        exit(1)
    }
}

/// What `main` does first, before anything can open a file.
public enum ProcessSetup {
    /// - Opens `/dev/null` on any of file descriptors 0, 1, 2 that is closed, so a file, a
    ///   socket or an X11 connection opened later can never become "stdout" or "stderr" (a
    ///   message written there would corrupt it).
    /// - Ignores SIGPIPE: a write to a closed pipe fails with EPIPE and is reported as an error
    ///   (`StandardOutput`), instead of killing the process silently.
    /// - Makes SIGHUP (a terminal hang-up, a `kill -HUP` meant as "reload") and SIGQUIT a clean
    ///   stop like SIGTERM (instead of death without the preferences flush, or the Swift
    ///   runtime's crash report): the handler notes the signal (`forwardedStop`) and sends
    ///   SIGTERM, which the SDL host turns into SDL_QUIT like any SIGTERM (the loop ends, the
    ///   writer is flushed, exit 0) and which ends the other commands as SIGTERM does.
    /// - Ignores SIGUSR1, SIGUSR2 and SIGALRM (their default action kills; nothing here uses
    ///   them — on KMS/DRM the VT switch takes SIGUSR1/SIGUSR2 over while it runs), and
    ///   SIGXFSZ, so a file-size limit (`ulimit -f`, `LimitFSIZE=`) makes a save fail with
    ///   EFBIG, reported and retried, instead of killing the kiosk.
    /// - Resets SIGTERM to its default and unblocks SIGTERM, SIGQUIT, SIGINT and SIGHUP,
    ///   whatever the parent handed down.
    public static func start() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != fd {
                _ = dup2(null, fd)
                close(null)
            }
        }
        forwarded.pointee = 0
        for s in ignoredSignals { signal(s, SIG_IGN) }
        // A parent may hand down SIGTERM ignored or quit signals blocked (a spawning thread's
        // mask is inherited): a kiosk must always stop on SIGTERM/SIGQUIT/SIGHUP.
        signal(SIGTERM, SIG_DFL)
        for s in forwardedSignals { signal(s, forwardToTerm) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in [SIGTERM, SIGINT] + forwardedSignals { sigaddset(&unblock, s) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Signals that stop the process as SIGTERM does.
    public static let forwardedSignals: [Int32] = [SIGHUP, SIGQUIT]
    /// Signals whose default action (termination) is turned off.
    public static let ignoredSignals: [Int32] = [SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGXFSZ]

    /// The first signal that was turned into SIGTERM (SIGHUP, SIGQUIT); 0 when none came.
    public static var forwardedStop: Int32 { forwarded.pointee }

    /// "SIGHUP", "SIGQUIT", … for the log line.
    public static func signalName(_ s: Int32) -> String {
        switch s {
        case SIGHUP: return "SIGHUP"
        case SIGQUIT: return "SIGQUIT"
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        default: return "signal \(s)"
        }
    }

    /// Written only by the handler (and reset in `start`, before it is installed).
    nonisolated(unsafe) static let forwarded: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()
}

/// Notes the signal, then asks for the stop SIGTERM means (async-signal-safe: a store and kill).
private let forwardToTerm: @convention(c) (Int32) -> Void = { sig in
    let p = ProcessSetup.forwarded
    if p.pointee == 0 { p.pointee = sig }
    _ = kill(getpid(), SIGTERM)
}
