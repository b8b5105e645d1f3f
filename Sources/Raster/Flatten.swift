/// A straight edge of a flattened path, in device pixels.
public struct Edge: Equatable, Sendable {
    public var x0, y0, x1, y1: Double
    @inlinable public init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }
}

/// Turns curves into line segments whose distance from the true curve is at most `tolerance`.
///
/// The number of segments for a Bézier curve of degree n comes from Wang's formula,
/// `ceil(sqrt(n(n-1)/8 · M / tolerance))` with M the largest second difference of the
/// control points, which bounds the error of uniform subdivision.
public enum Flattener {
    /// 0.01 px: far inside the 0.1 px requirement, so the area lost to chords stays under 0.03 %
    /// even for large circles (a chord error of e loses about ⅔·e per unit of perimeter).
    public static let defaultTolerance = 0.01

    /// Flattens `path` after mapping it through `transform`; every contour is closed.
    public static func edges(of path: Path, transform: Transform = .identity,
                             tolerance: Double = defaultTolerance, into out: inout [Edge]) {
        var start = Point.zero, cur = Point.zero, open = false
        func lineTo(_ p: Point) {
            if p != cur { out.append(Edge(cur.x, cur.y, p.x, p.y)) }
            cur = p
        }
        func closeContour() {
            if open { lineTo(start) }
            open = false
        }
        for e in path.elements {
            switch e {
            case .move(let p):
                closeContour()
                start = transform.apply(p); cur = start; open = true
            case .line(let p):
                open = true
                lineTo(transform.apply(p))
            case .quad(let c, let p):
                open = true
                let p0 = cur, p1 = transform.apply(c), p2 = transform.apply(p)
                let m = (p0 - p1 * 2 + p2).length
                let n = segmentCount(m * 2 / 8, tolerance)
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    lineTo(p0 * (u * u) + p1 * (2 * u * t) + p2 * (t * t))
                }
            case .cubic(let c1, let c2, let p):
                open = true
                let p0 = cur, p1 = transform.apply(c1), p2 = transform.apply(c2), p3 = transform.apply(p)
                let m = max((p0 - p1 * 2 + p2).length, (p1 - p2 * 2 + p3).length)
                let n = segmentCount(m * 6 / 8, tolerance)
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
                    lineTo(Point(a * p0.x + b * p1.x + c * p2.x + d * p3.x, a * p0.y + b * p1.y + c * p2.y + d * p3.y))
                }
            case .close:
                closeContour()
                cur = start
            }
        }
        closeContour()
    }

    @inline(__always) static func segmentCount(_ scaledM: Double, _ tolerance: Double) -> Int {
        guard scaledM.isFinite, scaledM > 0 else { return 1 }
        return max(1, min(10_000, Int((scaledM / tolerance).squareRoot().rounded(.up))))
    }
}
