import Raster

/// More than one core for a frame. The engine reads no clock and starts no thread: a host
/// that has helper threads (`Threads.HelperLanes`) hands the app this description of them.
///
/// `run(count, work, finished)` must call `work(item, lane)` once for every item in
/// 0..<count — lane 0 on the calling thread, lanes 1..<`lanes` on helpers, any item on any
/// lane — and `finished(item)` on the calling thread after that item's work, all before it
/// returns.
public struct FrameWorkers {
    /// Lanes that draw at once, the caller's included.
    public var lanes: Int
    public var run: (_ count: Int, _ work: (_ item: Int, _ lane: Int) -> Void, _ finished: (_ item: Int) -> Void) -> Void

    public init(lanes: Int, run: @escaping (Int, (Int, Int) -> Void, (Int) -> Void) -> Void) {
        self.lanes = max(1, lanes)
        self.run = run
    }
}
