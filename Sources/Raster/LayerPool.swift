/// Reusable pixmaps for off-screen layers and scratch planes, so that steady-state frames do
/// not allocate: a released pixmap keeps its memory and is handed out again. Also the scan
/// converter (and its buffers) that every canvas drawing with this pool fills paths with, so
/// that a canvas made for one piece does not start with buffers of its own. A pool, and every
/// canvas drawing with it, is used by one thread at a time.
public final class LayerPool {
    private var free: [Pixmap] = []
    public private(set) var allocations = 0
    /// The canvases' shared rasterizer: its buffers grow to the largest fill and stay.
    let rasterizer = Rasterizer()

    public init() {}

    /// A transparent pixmap of the given size, reusing pooled memory when possible; with
    /// `cleared: false`, pooled memory keeps whatever it held (for a caller that writes every
    /// pixel).
    public func take(width: Int, height: Int, cleared: Bool = true) -> Pixmap {
        let needed = width * height
        // Prefer the smallest pooled pixmap that is big enough; else grow the largest.
        var best: Int? = nil
        for (i, p) in free.enumerated() where p.capacityPixels >= needed {
            if best == nil || p.capacityPixels < free[best!].capacityPixels { best = i }
        }
        if let i = best ?? free.indices.max(by: { free[$0].capacityPixels < free[$1].capacityPixels }) {
            let p = free.remove(at: i)
            if p.capacityPixels < needed { allocations += 1 }
            p.reset(width: width, height: height, cleared: cleared)
            return p
        }
        allocations += 1
        return Pixmap(width: width, height: height)
    }

    /// Returns a pixmap to the pool.
    public func give(_ p: Pixmap) { free.append(p) }
}
