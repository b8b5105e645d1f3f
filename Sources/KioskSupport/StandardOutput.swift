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
        StandardError.log("could not write to standard output: \(FileIO.errorText(code))")
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
    /// - Makes SIGQUIT a clean quit like SIGTERM (instead of the Swift runtime's crash report):
    ///   the handler raises SIGTERM, which the SDL host turns into SDL_QUIT like any SIGTERM
    ///   and which ends the other commands as SIGTERM does. SIGTERM is reset to its default
    ///   and SIGTERM, SIGQUIT and SIGINT are unblocked, whatever the parent handed down.
    public static func start() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != fd {
                _ = dup2(null, fd)
                close(null)
            }
        }
        signal(SIGPIPE, SIG_IGN)
        // A parent may hand down SIGTERM ignored or quit signals blocked (a spawning thread's
        // mask is inherited): a kiosk must always stop on SIGTERM/SIGQUIT.
        signal(SIGTERM, SIG_DFL)
        signal(SIGQUIT) { _ in _ = kill(getpid(), SIGTERM) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in [SIGTERM, SIGQUIT, SIGINT] { sigaddset(&unblock, s) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
