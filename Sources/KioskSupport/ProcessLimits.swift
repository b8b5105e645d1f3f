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

    /// Address space `run` needs in all, in bytes, for an output of `pixels` pixels, when
    /// `mappedNow` bytes are mapped at the check (after SDL_Init, before the fonts, the page
    /// and the window: the libraries of the display's driver are then counted as they are):
    /// what is mapped now, plus `addressSpaceGrowthBase`, plus `addressSpacePerPixel` a pixel.
    ///
    /// Measured with one malloc arena (`MallocArenas`, in force under a limit): a full run
    /// (start, 3 × taps on both toggles, drags both ways and the "Use System Setting" button, so
    /// the page cross-fades between themes; `--threads 2`; X11 under Xvfb) mapped at the check
    /// 44,640 kB at every size, and at its peak (VmPeak) 60,468 kB at 1024x768, 70,532 kB at
    /// 1920x1080 and 119,152 kB at 3840x2160; the smallest `ulimit -v` it passed at (4 MiB
    /// steps) was 72,500 kB at 1920x1080 and 121,093 kB at 3840x2160. Growth after the check:
    /// 9.5 MiB plus 8.0 bytes a pixel (the frame and X11's shared-memory image); `--threads 8`
    /// adds 8 MiB (a 1 MiB stack and pools a lane). Under cage (Wayland, shared memory) at
    /// 1280x720 the growth was 13.1 MiB, inside the same fit. The margins: 32 MiB for the fixed
    /// part (3.4 times the 9.5 measured: eight lanes, the buses, libinput), 14 bytes a pixel (KMS/DRM
    /// maps two dumb buffers beside the frame: 12).
    ///
    /// `threads`: the threads the run starts after the check (each maps its stack,
    /// `threadStackReservation`): checked before any of them starts, a limit that lets the
    /// display start but leaves them no stack is refused in one line up front (a thread that
    /// cannot start is otherwise a lost feature, or a crash in a library that assumed it).
    public static func addressSpaceForRun(pixels: Int, mappedNow: Int, threads: Int = 0) -> Int {
        mappedNow + addressSpaceGrowthBase + addressSpacePerPixel * max(0, pixels) + threadStackReservation * max(0, threads)
    }

    /// Address space one thread's stack takes: `ThreadStacks.bytes` and glibc's guard page.
    public static let threadStackReservation = ThreadStacks.bytes + 4096

    /// What `run` maps after the check whatever the page's size: fonts (FreeType maps the
    /// faces) and fontconfig's caches, helper threads' stacks, the malloc heap, sprite caches.
    public static let addressSpaceGrowthBase = 32 << 20

    /// Bytes per output pixel mapped after the check: the frame, the presenter's buffers (XShm,
    /// DRM dumb buffers, Wayland shared memory).
    public static let addressSpacePerPixel = 14

    /// One line when an address-space limit (`ulimit -v`, `LimitAS=`) is set below `need`
    /// bytes, which `what` (e.g. "a 1920x1080 page") needs; nil when there is none or it is enough.
    public static func addressSpaceShortfall(need: Int, for what: String) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return addressSpaceShortfall(need: need, limit: UInt64(limit.rlim_cur), for: what)
    }

    /// The same for a given soft limit in bytes (pure).
    public static func addressSpaceShortfall(need: Int, limit: UInt64, for what: String) -> String? {
        if limit >= UInt64(max(0, need)) { return nil }
        let mib = (need + (1 << 20) - 1) >> 20
        return "the address-space limit is \(limit >> 20) MiB (ulimit -v, LimitAS=): the kiosk needs at least "
            + "\(mib) MiB for \(what); raise it (ulimit -v \(mib * 1024), or LimitAS=\(mib)M in the unit)"
    }
}
