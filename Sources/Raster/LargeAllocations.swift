#if canImport(Glibc)
import Glibc
#endif

/// A count of the large pixel buffers (pixmaps and alpha planes of at least `minimumBytes`) made
/// on the calling thread, for tests that check the steady state allocates none: after each kind
/// of frame has been drawn once (taps, drags, theme changes), the same frames again must not
/// make one. Counting is per thread, so tests running at the same time do not add to each
/// other's counts; a thread that never called `startCounting` pays one `pthread_getspecific`
/// per large buffer.
public enum LargeAllocations {
    /// 64 KiB: a 128x128 pixmap.
    public static let minimumBytes = 64 << 10

    /// Starts (or restarts at 0) counting on the calling thread.
    public static func startCounting() { pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }

    /// Large buffers made on this thread since `startCounting` (0 when not counting).
    public static var count: Int { max(0, Int(bitPattern: pthread_getspecific(key)) - 1) }

    /// Stops counting on the calling thread.
    public static func stopCounting() { pthread_setspecific(key, nil) }

    /// Called where a buffer of `bytes` is allocated.
    @inline(__always)
    static func note(bytes: Int) {
        guard bytes >= minimumBytes else { return }
        let v = Int(bitPattern: pthread_getspecific(key))
        if v > 0 { pthread_setspecific(key, UnsafeRawPointer(bitPattern: v + 1)) }
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()
}
