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
    private var thread: JoinableThread?

    public init(_ work: @escaping () -> Value) {
        let box = Box(work)
        self.box = box
        thread = JoinableThread.start { box.run() }
        // No thread (resources exhausted): do it here; same result, no overlap.
        if thread == nil { box.run() }
    }

    /// The work's result, waiting for the thread to finish.
    public func value() -> Value {
        thread?.join()
        thread = nil
        return box.result!
    }

    deinit { thread?.join() }
}
