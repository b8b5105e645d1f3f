/// One drawing command of a path.
public enum PathElement: Equatable, Sendable {
    case move(Point)
    case line(Point)
    case quad(Point, Point)
    case cubic(Point, Point, Point)
    case close
}

/// How overlapping contours decide what is inside.
public enum FillRule: Sendable {
    case nonZero
    case evenOdd
}

/// A vector path: contours of lines and Bézier curves, in user coordinates.
public struct Path: Equatable, Sendable {
    public private(set) var elements: [PathElement] = []
    private var start = Point.zero
    private var current = Point.zero

    public init() {}

    public var isEmpty: Bool { elements.isEmpty }

    public mutating func move(to p: Point) {
        elements.append(.move(p)); start = p; current = p
    }

    public mutating func line(to p: Point) {
        if elements.isEmpty { move(to: current) }
        elements.append(.line(p)); current = p
    }

    public mutating func quad(to p: Point, control c: Point) {
        if elements.isEmpty { move(to: current) }
        elements.append(.quad(c, p)); current = p
    }

    public mutating func cubic(to p: Point, control1 c1: Point, control2 c2: Point) {
        if elements.isEmpty { move(to: current) }
        elements.append(.cubic(c1, c2, p)); current = p
    }

    public mutating func close() {
        guard !elements.isEmpty else { return }
        elements.append(.close); current = start
    }

    /// Appends all contours of another path.
    public mutating func append(_ other: Path) {
        for e in other.elements {
            switch e {
            case .move(let p): move(to: p)
            case .line(let p): line(to: p)
            case .quad(let c, let p): quad(to: p, control: c)
            case .cubic(let c1, let c2, let p): cubic(to: p, control1: c1, control2: c2)
            case .close: close()
            }
        }
    }

    /// The path with every point mapped through `t`.
    public func applying(_ t: Transform) -> Path {
        var out = Path()
        out.elements.reserveCapacity(elements.count)
        for e in elements {
            switch e {
            case .move(let p): out.move(to: t.apply(p))
            case .line(let p): out.line(to: t.apply(p))
            case .quad(let c, let p): out.quad(to: t.apply(p), control: t.apply(c))
            case .cubic(let c1, let c2, let p): out.cubic(to: t.apply(p), control1: t.apply(c1), control2: t.apply(c2))
            case .close: out.close()
            }
        }
        return out
    }

    /// Bounds of all points including control points (a conservative bound of the shape).
    public var controlBounds: Rect {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ p: Point) {
            minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y)
        }
        for e in elements {
            switch e {
            case .move(let p), .line(let p): add(p)
            case .quad(let c, let p): add(c); add(p)
            case .cubic(let c1, let c2, let p): add(c1); add(c2); add(p)
            case .close: break
            }
        }
        guard minX <= maxX else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
