import CThreadDefaults
#if canImport(Glibc)
import Glibc
#endif

/// The stack every thread of the kiosk gets, whatever `RLIMIT_STACK` says.
///
/// glibc sizes a thread's stack from `RLIMIT_STACK` as the process started, unless the thread
/// is created with a size of its own: under `ulimit -s 64` (or `LimitSTACK=64K`) every helper
/// thread had 64 KiB, and fontconfig's expat parser, run on the first-page thread, overflowed
/// it (SIGSEGV, no message). The kiosk's own threads are created with `bytes` (`create`), and
/// `setProcessDefault()` raises the default for threads that libraries start without a size
/// (SDL's, libdbus's, the Swift runtime's) to at least the same.
public enum ThreadStacks {
    /// Stack bytes for every thread: 1 MiB. Measured (docs/reliability.md, round four): a full
    /// run (start with fontconfig's parse, taps, drags, theme changes, at 1920x1080 and
    /// 3840x2160, `--threads 2`) passed with every thread at 128 KiB (`ulimit -S -s 128` on the
    /// old binary, where threads took the limit as their size) and failed at 64 KiB; 1 MiB is
    /// 8 times the smallest size that passed, and an eighth of glibc's usual 8 MiB of address
    /// space per thread.
    public static let bytes = 1 << 20

    /// Raises the default stack of threads created without a size to `bytes` when it is
    /// smaller (it is `RLIMIT_STACK` at start, 8 MiB usually: left as it is then). Returns the
    /// default now in force, 0 when it cannot be read.
    @discardableResult
    public static func setProcessDefault(minimum: Int = bytes) -> Int {
        let now = Int(dmk_default_thread_stack())
        if now > 0, now >= minimum { return now }
        if dmk_set_default_thread_stack(minimum) == 0 { return minimum }
        return now
    }

    /// The default stack size of threads created without a size (bytes; 0 when unknown).
    public static var processDefault: Int { Int(dmk_default_thread_stack()) }

    /// `pthread_create` with a stack of `bytes` (joinable; the caller detaches or joins).
    public static func create(_ thread: inout pthread_t,
                              _ start: @escaping @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                              _ argument: UnsafeMutableRawPointer?) -> Int32 {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setstacksize(&attr, bytes)
        return pthread_create(&thread, &attr, start, argument)
    }
}

/// glibc's malloc gives threads that allocate at the same time arenas of their own, each
/// reserving 64 MiB of address space: harmless without a limit, but under `ulimit -v` /
/// `LimitAS=` they were most of what the kiosk needed (a full run at 1920x1080 passed from
/// about 262 MiB with them, from about 71 MiB with one arena; docs/reliability.md, round four).
public enum MallocArenas {
    /// When an address-space limit is set, one arena for all threads (`M_ARENA_MAX` 1; the
    /// kiosk's threads seldom allocate at once: frames draw into pooled pixmaps). Call before
    /// any thread starts. True when it was set.
    @discardableResult
    public static func useOneUnderAddressSpaceLimit() -> Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return false }
        return dmk_single_malloc_arena() == 1
    }
}
