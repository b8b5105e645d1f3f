import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Work started on its own thread now and collected later: `value()` waits for it (once, from
/// one thread). Start-up uses it to load fonts while SDL opens the display. The work must not
/// touch anything the starting thread uses until `value()` returns.
public final class BackgroundTask<Value>: @unchecked Sendable {
    /// What the thread reads and writes; the starting thread reads `result` only after the join.
    private final class Box: @unchecked Sendable {
        let work: () -> Value
        var result: Value?
        init(_ work: @escaping () -> Value) { self.work = work }
        func run() { result = work() }
    }

    private let box: Box
    private var thread: pthread_t?

    public init(_ work: @escaping () -> Value) {
        box = Box(work)
        thread = Self.start(box)
        // No thread (resources exhausted): do it here; same result, no overlap.
        if thread == nil { box.run() }
    }

    private static func start(_ box: Box) -> pthread_t? {
        startThread(ThreadBody { box.run() })
    }

    /// The work's result, waiting for the thread to finish.
    public func value() -> Value {
        if let t = thread {
            pthread_join(t, nil)
            thread = nil
        }
        return box.result!
    }

    deinit { if let t = thread { pthread_join(t, nil) } }
}

/// A thread's body, non-generic so the C entry point needs no generic context.
private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Starts a joinable pthread running `body`; nil when no thread could be made.
private func startThread(_ body: ThreadBody) -> pthread_t? {
    let raw = Unmanaged.passRetained(body).toOpaque()
    var t = pthread_t()
    let rc = ThreadStacks.create(&t, { p in
        Unmanaged<ThreadBody>.fromOpaque(p!).takeRetainedValue().run()
        return nil
    }, raw)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(raw).release()
        return nil
    }
    return t
}
