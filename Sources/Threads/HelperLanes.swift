#if canImport(Glibc)
import Glibc
#endif

/// Helper threads that take a share of a frame's drawing beside the caller's thread.
///
/// `run(count:work:finished:)` hands out items 0..<count one at a time to whichever lane is
/// free — the caller is lane 0, the helpers lanes 1… — so a lane that draws cheap bands takes
/// more of them. Each finished item is reported to the caller's thread (its own at once,
/// the helpers' as the caller gets to them), so a presenter that must stay on one thread can
/// copy bands out while the rest are being drawn. Between frames the helpers sleep on a
/// condition variable: an idle kiosk has no thread that spins or wakes.
public final class HelperLanes: @unchecked Sendable {
    /// Threads besides the caller's that were started.
    public let helpers: Int
    private let core = Core()

    /// Starts `helpers` threads named `name`-1, `name`-2, … (fewer when the system refuses).
    public init(helpers: Int, name: String = "frame-lane") {
        var started = 0
        let core = self.core
        for lane in stride(from: 1, through: helpers, by: 1) {
            if ThreadStart.spawn(name: "\(name)-\(lane)", { core.serve(lane: lane) }) { started += 1 }
        }
        self.helpers = started
    }

    deinit { core.stop() }

    /// Lanes that draw at once, the caller's included.
    public var lanes: Int { helpers + 1 }

    /// The most lanes a frame is split into.
    public static let maxLanes = 8

    /// Processors online (at least 1).
    public static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Lanes for frames on a machine with `processors` cores: two when there is a second core
    /// (the kiosk's one busy frame, the page cross-fade, is memory-bound beyond that), else one.
    public static func defaultLanes(processors: Int = onlineProcessors) -> Int { processors >= 2 ? 2 : 1 }

    /// Runs `work(item, lane)` once for every item in 0..<count and calls `finished(item)` on the
    /// calling thread for each, after its work is done; returns when all are reported. `work`
    /// runs on several threads at once: items must touch disjoint memory. Without helpers (or
    /// with one item) everything runs on the caller's thread in order.
    public func run(count: Int, work: (_ item: Int, _ lane: Int) -> Void, finished: (_ item: Int) -> Void) {
        guard helpers > 0, count > 1 else {
            for i in 0..<count { work(i, 0); finished(i) }
            return
        }
        withoutActuallyEscaping(work) { w in core.run(count: count, work: w, finished: finished) }
    }

    private final class Core: @unchecked Sendable {
        private let condition = Condition()
        // Guarded by `condition`:
        private var work: ((Int, Int) -> Void)?
        private var count = 0, next = 0
        private var generation = 0
        /// Items helpers finished that the caller has not reported yet.
        private var done: [Int] = []
        private var stopped = false

        func run(count: Int, work w: @escaping (Int, Int) -> Void, finished: (Int) -> Void) {
            condition.lock()
            work = w
            self.count = count
            next = 0
            done.removeAll(keepingCapacity: true)
            generation &+= 1
            condition.broadcast()
            var reported = 0
            while true {
                let ready = done
                done.removeAll(keepingCapacity: true)
                let item = next < count ? next : -1
                if item >= 0 { next += 1 }
                if item < 0 && ready.isEmpty {
                    if reported == count { break }
                    condition.wait()        // a helper is still drawing
                    continue
                }
                condition.unlock()
                for i in ready { finished(i) }
                reported += ready.count
                if item >= 0 {
                    w(item, 0)
                    finished(item)
                    reported += 1
                }
                condition.lock()
            }
            // Every item is finished, so no helper is inside `w`; one that wakes late finds no
            // work (it looks under the lock) and sleeps again: the caller does not wait for it.
            work = nil
            condition.unlock()
        }

        func serve(lane: Int) {
            condition.lock()
            // Jobs are numbered from 1: a helper that starts late still joins a job under way.
            var seen = 0
            while true {
                while !stopped && (generation == seen || work == nil) { condition.wait() }
                if stopped { break }
                seen = generation
                // Items of this job only: the closure is read under the lock each time, and a
                // job does not end while one of its items is being drawn.
                while generation == seen, let w = work, next < count {
                    let i = next
                    next += 1
                    condition.unlock()
                    w(i, lane)
                    condition.lock()
                    done.append(i)
                    condition.broadcast()
                }
            }
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
