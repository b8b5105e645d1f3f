#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Corner shape of a rounded rectangle.
public enum CornerStyle: Sendable {
    /// Quarter-circle corners.
    case circular
    /// Apple-style continuous corners (SwiftUI `.continuous`): the curvature ramps up from the
    /// straight edge instead of jumping, so the corner starts further out (about 1.6 r with
    /// 60 % smoothing). Built as cubic ramp – circular arc – cubic ramp, following the published
    /// construction of iOS-like "smooth corners"; where the rectangle is too small for the
    /// ramps, the smoothing shrinks until the corner is circular (as UIKit does for capsules).
    case continuous
}

/// Where a stroke of width w sits relative to a closed shape's outline.
public enum StrokeAlignment: Sendable {
    /// Half inside, half outside (SwiftUI `stroke`).
    case centered
    /// Entirely inside (SwiftUI `strokeBorder`).
    case inside
}

extension Path {
    /// A rectangle, clockwise in y-down coordinates.
    public static func rect(_ r: Rect) -> Path {
        var p = Path()
        p.move(to: Point(r.minX, r.minY))
        p.line(to: Point(r.maxX, r.minY))
        p.line(to: Point(r.maxX, r.maxY))
        p.line(to: Point(r.minX, r.maxY))
        p.close()
        return p
    }

    /// An axis-aligned ellipse inscribed in `r` (four cubic quarter arcs, error < 0.03 % of the radius).
    public static func ellipse(in r: Rect) -> Path {
        var p = Path()
        let cx = r.midX, cy = r.midY, rx = r.width / 2, ry = r.height / 2
        p.move(to: Point(cx + rx, cy))
        p.appendArc(center: Point(cx, cy), rx: rx, ry: ry, from: 0, to: 2 * .pi)
        p.close()
        return p
    }

    public static func circle(center c: Point, radius r: Double) -> Path {
        ellipse(in: Rect(x: c.x - r, y: c.y - r, width: 2 * r, height: 2 * r))
    }

    /// A closed polygon through the given points.
    public static func polygon(_ pts: [Point]) -> Path {
        var p = Path()
        guard let first = pts.first else { return p }
        p.move(to: first)
        for q in pts.dropFirst() { p.line(to: q) }
        p.close()
        return p
    }

    /// A star polygon: `points` outer vertices alternating with inner ones, starting at the top.
    public static func star(center c: Point, points n: Int, outerRadius ro: Double, innerRadius ri: Double) -> Path {
        var pts: [Point] = []
        for i in 0..<(2 * n) {
            let angle = -Double.pi / 2 + Double(i) * .pi / Double(n)
            let r = i % 2 == 0 ? ro : ri
            pts.append(Point(c.x + r * cos(angle), c.y + r * sin(angle)))
        }
        return polygon(pts)
    }

    /// A rounded rectangle; the radius is clamped to half the shorter side.
    public static func roundedRect(_ r: Rect, radius: Double, style: CornerStyle = .circular) -> Path {
        let rad = max(0, min(radius, min(r.width, r.height) / 2))
        guard rad > 0 else { return rect(r) }
        switch style {
        case .circular: return circularRoundedRect(r, rad)
        case .continuous: return continuousRoundedRect(r, rad)
        }
    }

    /// The outline of a stroke of a rounded rectangle as real geometry: an outer and an inner
    /// contour of opposite direction, so both edges are anti-aliased by the same exact-area fill.
    public static func roundedRectStroke(_ r: Rect, radius: Double, lineWidth w: Double,
                                         alignment: StrokeAlignment, style: CornerStyle = .circular) -> Path {
        let outerInset = alignment == .centered ? -w / 2 : 0
        let innerInset = outerInset + w
        let outer = r.insetBy(dx: outerInset, dy: outerInset)
        var path = roundedRect(outer, radius: radius - outerInset, style: style)
        let inner = r.insetBy(dx: innerInset, dy: innerInset)
        if !inner.isEmpty {
            path.append(roundedRect(inner, radius: max(0, radius - innerInset), style: style).reversed())
        }
        return path
    }

    /// The same contours traversed in the opposite direction.
    public func reversed() -> Path {
        // Split into contours of (start point, segments), reverse each.
        var out = Path()
        var contour: [PathElement] = []
        var start = Point.zero
        func flush() {
            guard !contour.isEmpty else { return }
            // Collect end points to walk backwards.
            var points: [Point] = [start]
            for e in contour {
                switch e {
                case .line(let p): points.append(p)
                case .quad(_, let p): points.append(p)
                case .cubic(_, _, let p): points.append(p)
                default: break
                }
            }
            out.move(to: points.last!)
            for i in stride(from: contour.count - 1, through: 0, by: -1) {
                let to = points[i]
                switch contour[i] {
                case .line: out.line(to: to)
                case .quad(let c, _): out.quad(to: to, control: c)
                case .cubic(let c1, let c2, _): out.cubic(to: to, control1: c2, control2: c1)
                default: break
                }
            }
            out.close()
            contour.removeAll()
        }
        for e in elements {
            switch e {
            case .move(let p): flush(); start = p
            case .close: flush()
            default: contour.append(e)
            }
        }
        flush()
        return out
    }

    /// Appends an elliptical arc from angle `a0` to `a1` (radians, y-down: positive is clockwise on
    /// screen) as cubic segments of at most 90°, assuming the current point is the arc's start.
    public mutating func appendArc(center c: Point, rx: Double, ry: Double, from a0: Double, to a1: Double) {
        let total = a1 - a0
        let n = max(1, Int((abs(total) / (.pi / 2) - 1e-9).rounded(.up)))
        let step = total / Double(n)
        let k = 4.0 / 3.0 * tan(step / 4)
        var a = a0
        for _ in 0..<n {
            let b = a + step
            let p0 = Point(c.x + rx * cos(a), c.y + ry * sin(a))
            let p3 = Point(c.x + rx * cos(b), c.y + ry * sin(b))
            let c1 = Point(p0.x - k * rx * sin(a), p0.y + k * ry * cos(a))
            let c2 = Point(p3.x + k * rx * sin(b), p3.y - k * ry * cos(b))
            cubic(to: p3, control1: c1, control2: c2)
            a = b
        }
    }

    private static func circularRoundedRect(_ r: Rect, _ rad: Double) -> Path {
        var p = Path()
        p.move(to: Point(r.minX + rad, r.minY))
        p.line(to: Point(r.maxX - rad, r.minY))
        p.appendArc(center: Point(r.maxX - rad, r.minY + rad), rx: rad, ry: rad, from: -.pi / 2, to: 0)
        p.line(to: Point(r.maxX, r.maxY - rad))
        p.appendArc(center: Point(r.maxX - rad, r.maxY - rad), rx: rad, ry: rad, from: 0, to: .pi / 2)
        p.line(to: Point(r.minX + rad, r.maxY))
        p.appendArc(center: Point(r.minX + rad, r.maxY - rad), rx: rad, ry: rad, from: .pi / 2, to: .pi)
        p.line(to: Point(r.minX, r.minY + rad))
        p.appendArc(center: Point(r.minX + rad, r.minY + rad), rx: rad, ry: rad, from: .pi, to: 1.5 * .pi)
        p.close()
        return p
    }

    /// Smoothing of the continuous corner (0 = circular).
    static let continuousSmoothing = 0.6

    private static func continuousRoundedRect(_ r: Rect, _ rad: Double) -> Path {
        // How far a smoothed corner reaches along each edge is p = (1 + ξ)·r; shrink ξ to fit.
        let room = min(r.width, r.height) / 2
        let xi = max(0, min(continuousSmoothing, room / rad - 1))
        let corner = SmoothCorner(radius: rad, smoothing: xi)
        var p = Path()
        // Corners in order TR, BR, BL, TL, each given as (corner point, unit vector along the
        // incoming edge, unit vector along the outgoing edge), walking clockwise on screen.
        let corners: [(Point, Point, Point)] = [
            (Point(r.maxX, r.minY), Point(1, 0), Point(0, 1)),
            (Point(r.maxX, r.maxY), Point(0, 1), Point(-1, 0)),
            (Point(r.minX, r.maxY), Point(-1, 0), Point(0, -1)),
            (Point(r.minX, r.minY), Point(0, -1), Point(1, 0)),
        ]
        let tl = corners[3]
        p.move(to: tl.0 + tl.2 * corner.extent)
        for (q, u, v) in corners {
            corner.append(to: &p, corner: q, incoming: u, outgoing: v)
        }
        p.close()
        return p
    }
}

/// One smoothed corner in local terms: distances along the incoming edge (u) and towards the
/// outgoing edge (v), measured from the corner point.
private struct SmoothCorner {
    let radius: Double
    let extent: Double            // p: where the corner leaves the straight edge
    let a, b, c, d: Double        // ramp control distances
    let arcAngle: Double          // radians of the middle circular arc

    init(radius r: Double, smoothing xi: Double) {
        radius = r
        extent = (1 + xi) * r
        arcAngle = Double.pi / 2 * (1 - xi)
        let arcChord = sin(arcAngle / 2) * r * 2.0.squareRoot()
        let alpha = (Double.pi / 2 - arcAngle) / 2
        let p3ToP4 = r * tan(alpha / 2)
        let beta = Double.pi / 4 * xi
        c = p3ToP4 * cos(beta)
        d = c * tan(beta)
        b = (extent - arcChord - c - d) / 3
        a = 2 * b
    }

    /// Appends the corner from (corner − u·p) to (corner + v·p).
    func append(to path: inout Path, corner q: Point, incoming u: Point, outgoing v: Point) {
        let p = extent
        func at(_ alongU: Double, _ alongV: Double) -> Point { q + u * (-alongU) + v * alongV }
        path.line(to: at(p, 0))
        // Ramp in: from the edge to the arc start.
        path.cubic(to: at(p - a - b - c, d), control1: at(p - a, 0), control2: at(p - a - b, 0))
        // Middle circular arc, centred r inside the corner on both axes.
        let center = at(radius, radius)
        let start = at(p - a - b - c, d) - center
        let startAngle = atan2(start.y, start.x)
        let sweepSign = u.cross(v) > 0 ? 1.0 : -1.0
        if arcAngle > 1e-9 {
            path.appendArc(center: center, rx: radius, ry: radius, from: startAngle, to: startAngle + sweepSign * arcAngle)
        }
        // Ramp out: mirror image of the ramp in.
        path.cubic(to: at(0, p), control1: at(0, p - a - b), control2: at(0, p - a))
    }
}
