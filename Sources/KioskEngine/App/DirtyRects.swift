import Raster

/// How a frame's changed rectangles become what is drawn: neighbours joined, overlaps merged
/// (`IntRect.disjointUnion`: lanes draw them at once, so they must not overlap), large ones cut
/// into bands.
extension IntRect {
    /// Rectangles this close are drawn as one: every rectangle costs a pass of each piece's
    /// setup (a toggle's layers, masks, sprites), so two small neighbours (twinkling stars)
    /// are cheaper drawn as their union while it adds fewer than this many pixels. Measured on
    /// the drag scenario's typical frame (stars twinkling on both toggles, 1920x1080 at 2x):
    /// p50 0.130 ms with no joining, 0.118 at 1024, 0.111 at 2048, 0.120 at 4096, 0.124 at
    /// 8192 and above (`bench --scenario drag`, rebuilt with each value).
    static let clusterSlack = 2048

    /// `rects` with neighbours merged while their union adds fewer than `clusterSlack` pixels
    /// to the two (empty ones dropped). Not necessarily disjoint: see `disjointUnion`.
    static func clustered(_ rects: [IntRect]) -> [IntRect] {
        var out = rects.filter { !$0.isEmpty }
        var merged = true
        while merged {
            merged = false
            search: for i in out.indices {
                for j in out.indices where j > i {
                    let u = out[i].union(out[j])
                    if u.area <= out[i].area + out[j].area + clusterSlack {
                        out[i] = u
                        out.remove(at: j)
                        merged = true
                        break search
                    }
                }
            }
        }
        return out
    }

    /// This rectangle cut into bands of at most `rows` rows, top to bottom.
    func bands(rows: Int) -> [IntRect] {
        var out: [IntRect] = []
        var y = minY
        while y < maxY {
            out.append(IntRect(x: minX, y: y, width: width, height: min(rows, maxY - y)))
            y += rows
        }
        return out
    }
}
