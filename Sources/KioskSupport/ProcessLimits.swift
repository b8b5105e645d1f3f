import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The resource limits a command needs, checked before the libraries that would fail on them
/// in their own way (libdbus aborts when it runs out of descriptors; the Swift runtime ends the
/// process with a crash report when an allocation fails). Each check returns one line for the
/// user, or nil when the limit is enough.
public enum ProcessLimits {
    /// Descriptors `run` needs: SDL with its display connection and input devices, D-Bus
    /// connections (session, system, the portal's), the preferences watcher's inotify and timer,
    /// fontconfig's caches, the notify socket and the lanes' wake-ups. Under Xvfb with no bus to
    /// reach it holds 10 (`ls /proc/PID/fd`); every bus, input device and the Wayland connection
    /// add theirs, and libdbus aborted at a limit of 10–12: 64 leaves room for a board's devices.
    public static let openFilesForRun = 64

    /// Raises the soft open-files limit towards the hard one when it is below `minimum` (as
    /// systemd advises programs that need more); one line when even the hard limit is too low.
    public static func ensureOpenFiles(minimum: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur >= rlim_t(minimum) { return nil }
        let soft = limit.rlim_cur
        if limit.rlim_max >= rlim_t(minimum) {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1024)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return nil }
        }
        let hard = limit.rlim_max == rlim_t.max ? "unlimited" : "\(limit.rlim_max)"
        return "the open-files limit is \(soft) (ulimit -n; hard limit \(hard)): the kiosk needs at least \(minimum) open files "
            + "for the display, D-Bus and its files; raise it (ulimit -n \(minimum), or LimitNOFILE= in the unit)"
    }

    /// When an address-space limit (`ulimit -v`, `LimitAS=`) is set: whether `bytes` more can be
    /// mapped now, tried by mapping (and unmapping) that much untouched memory. One line naming
    /// `what` when they cannot.
    public static func addressSpaceProblem(bytes: Int, for what: String) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if p != MAP_FAILED, let p {
            munmap(p, bytes)
            return nil
        }
        let mib = { (v: UInt64) in "\(v / (1024 * 1024)) MiB" }
        return "not enough memory for \(what): it needs about \(mib(UInt64(bytes))) more, and the address-space limit "
            + "(ulimit -v, LimitAS=) is \(mib(UInt64(limit.rlim_cur)))"
    }

    /// Stack `run` needs on its main thread: the frame loop, and fontconfig's parser when the
    /// page is built there (no size known before the window). The same as every helper thread
    /// gets (`ThreadStacks.bytes`, 1 MiB: 8 times the 128 KiB a full run was measured to pass
    /// with); the main thread's stack is the `RLIMIT_STACK` soft limit itself.
    public static let stackForRun = ThreadStacks.bytes

    /// Raises the soft stack limit when it is below `minimum` and the hard limit allows (to
    /// 8 MiB, the usual default, when the hard limit allows that); one line when even the hard
    /// limit is too low. Threads are not affected (`ThreadStacks` sizes them).
    public static func ensureStack(minimum: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur >= rlim_t(minimum) { return nil }
        let soft = limit.rlim_cur
        if limit.rlim_max >= rlim_t(minimum) {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, rlim_t(max(minimum, 8 << 20)))
            if setrlimit(Int32(RLIMIT_STACK.rawValue), &raised) == 0 { return nil }
        }
        let kib = { (v: rlim_t) in v == rlim_t.max ? "unlimited" : "\(v / 1024) KiB" }
        return "the stack limit is \(kib(soft)) (ulimit -s; hard limit \(kib(limit.rlim_max))): the kiosk needs at least "
            + "\(minimum / 1024) KiB of stack; raise it (ulimit -s \(minimum / 1024), or LimitSTACK= in the unit)"
    }
}
