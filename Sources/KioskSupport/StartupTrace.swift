#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Threads

/// Start-up stage timestamps for `DARKMODE_KIOSK_TIMING=1`: `mark(_:)` records a stage's
/// CLOCK_MONOTONIC time (from any thread); the SDL host prints them, in milliseconds after
/// process start, once the first frame is on screen. Off (every call a single flag test) unless
/// `enable()` was called; at most `capacity` marks are kept.
public enum StartupTrace {
    public struct Mark: Sendable, Equatable {
        public var stage: String
        /// CLOCK_MONOTONIC seconds.
        public var time: Double
        /// CPU seconds the marking thread had used by then (CLOCK_THREAD_CPUTIME_ID): the
        /// difference between two marks of one thread is that stage's own work, whatever the
        /// machine's load.
        public var threadCPU: Double
    }

    public static let capacity = 64
    private final class Store: @unchecked Sendable {
        var lock = pthread_mutex_t()
        var marks: [Mark] = []
        var enabled = false
        init() { pthread_mutex_init(&lock, nil) }
    }
    private static let store = Store()

    /// Starts recording (clears earlier marks).
    public static func enable() {
        pthread_mutex_lock(&store.lock)
        store.enabled = true
        store.marks.removeAll()
        pthread_mutex_unlock(&store.lock)
    }

    public static var isEnabled: Bool {
        pthread_mutex_lock(&store.lock)
        defer { pthread_mutex_unlock(&store.lock) }
        return store.enabled
    }

    /// Records `stage` now (no-op when not enabled or full).
    public static func mark(_ stage: String) {
        pthread_mutex_lock(&store.lock)
        defer { pthread_mutex_unlock(&store.lock) }
        guard store.enabled, store.marks.count < capacity else { return }
        store.marks.append(Mark(stage: stage, time: MonotonicClock.seconds(), threadCPU: Clock.threadCPU()))
    }

    /// The marks so far, in recording order.
    public static var marks: [Mark] {
        pthread_mutex_lock(&store.lock)
        defer { pthread_mutex_unlock(&store.lock) }
        return store.marks
    }

    /// CLOCK_MONOTONIC seconds at which this process started (from /proc/self/stat's start
    /// time in clock ticks: ~10 ms resolution), or nil when unavailable.
    public static func processStart() -> Double? {
        guard let f = fopen("/proc/self/stat", "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // Fields after the command name (which may hold spaces) start after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Field 22 (starttime, ticks since boot) is the 20th after the name: state is field 3.
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard hz > 0 else { return nil }
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let age = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9 - ticks / hz
        return MonotonicClock.seconds() - age
    }

    /// "main 12/9, text 40/30, …": per mark, whole milliseconds after `origin` (CLOCK_MONOTONIC
    /// seconds) / the marking thread's CPU milliseconds so far.
    public static func summary(_ marks: [Mark], since origin: Double) -> String {
        func ms(_ s: Double) -> Int { Int((s * 1000).rounded()) }
        return marks.map { "\($0.stage) \(ms($0.time - origin))/\(ms($0.threadCPU))" }.joined(separator: ", ")
    }
}
