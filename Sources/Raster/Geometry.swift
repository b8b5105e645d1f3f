/// A point or vector in a 2-D coordinate space (points or pixels, depending on context).
public struct Point: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    @inlinable public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    public static let zero = Point(0, 0)

    @inlinable public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }
    @inlinable public static prefix func - (a: Point) -> Point { Point(-a.x, -a.y) }

    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
    @inlinable public func dot(_ o: Point) -> Double { x * o.x + y * o.y }
    @inlinable public func cross(_ o: Point) -> Double { x * o.y - y * o.x }

    /// Linear interpolation towards `other` (t = 0 gives self).
    @inlinable public func lerp(to other: Point, _ t: Double) -> Point {
        Point(x + (other.x - x) * t, y + (other.y - y) * t)
    }

    public var description: String { "(\(x), \(y))" }
}

/// An axis-aligned rectangle with a floating-point origin and size.
public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    @inlinable public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    @inlinable public var minX: Double { x }
    @inlinable public var minY: Double { y }
    @inlinable public var maxX: Double { x + width }
    @inlinable public var maxY: Double { y + height }
    @inlinable public var midX: Double { x + width / 2 }
    @inlinable public var midY: Double { y + height / 2 }
    @inlinable public var center: Point { Point(midX, midY) }
    @inlinable public var isEmpty: Bool { !(width > 0 && height > 0) }

    @inlinable public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    @inlinable public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width, height: height)
    }

    @inlinable public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    /// The smallest integer rectangle that contains this one.
    @inlinable public var roundedOut: IntRect {
        let x0 = Int((minX).rounded(.down)), y0 = Int((minY).rounded(.down))
        let x1 = Int((maxX).rounded(.up)), y1 = Int((maxY).rounded(.up))
        return IntRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The whole pixels entirely inside (empty when none is).
    @inlinable public var roundedIn: IntRect {
        let x0 = Int(minX.rounded(.up)), y0 = Int(minY.rounded(.up))
        let x1 = Int(maxX.rounded(.down)), y1 = Int(maxY.rounded(.down))
        return IntRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    public func union(_ o: Rect) -> Rect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(minX, o.minX), y0 = min(minY, o.minY)
        return Rect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    public var description: String { "Rect(\(x), \(y), \(width)×\(height))" }
}

/// An axis-aligned rectangle on the pixel grid.
public struct IntRect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    @inlinable public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public static let zero = IntRect(x: 0, y: 0, width: 0, height: 0)

    @inlinable public var minX: Int { x }
    @inlinable public var minY: Int { y }
    @inlinable public var maxX: Int { x + width }
    @inlinable public var maxY: Int { y + height }
    @inlinable public var isEmpty: Bool { width <= 0 || height <= 0 }
    @inlinable public var area: Int { isEmpty ? 0 : width * height }
    @inlinable public var rect: Rect { Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }

    /// The overlap of two rectangles (empty, with zero size, when they do not overlap).
    @inlinable public func intersection(_ o: IntRect) -> IntRect {
        let x0 = max(minX, o.minX), y0 = max(minY, o.minY)
        let x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        if x1 <= x0 || y1 <= y0 { return IntRect(x: x0, y: y0, width: 0, height: 0) }
        return IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle holding both (an empty operand is ignored).
    @inlinable public func union(_ o: IntRect) -> IntRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(minX, o.minX), y0 = min(minY, o.minY)
        return IntRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    @inlinable public func insetBy(dx: Int, dy: Int) -> IntRect {
        IntRect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    @inlinable public func offsetBy(dx: Int, dy: Int) -> IntRect {
        IntRect(x: x + dx, y: y + dy, width: width, height: height)
    }

    /// What is left of this rectangle outside `o`: up to four disjoint strips (above, below,
    /// left, right).
    public func subtracting(_ o: IntRect) -> [IntRect] {
        let c = intersection(o)
        if c.isEmpty { return isEmpty ? [] : [self] }
        var out: [IntRect] = []
        if c.minY > minY { out.append(IntRect(x: minX, y: minY, width: width, height: c.minY - minY)) }
        if c.maxY < maxY { out.append(IntRect(x: minX, y: c.maxY, width: width, height: maxY - c.maxY)) }
        if c.minX > minX { out.append(IntRect(x: minX, y: c.minY, width: c.minX - minX, height: c.height)) }
        if c.maxX < maxX { out.append(IntRect(x: c.maxX, y: c.minY, width: maxX - c.maxX, height: c.height)) }
        return out
    }

    /// What is left of this rectangle outside every rectangle of `holes`: disjoint rectangles
    /// (each hole cuts the pieces left by the ones before it into up to four strips).
    public func subtracting(_ holes: [IntRect]) -> [IntRect] {
        holes.reduce(isEmpty ? [] : [self]) { pieces, hole in pieces.flatMap { $0.subtracting(hole) } }
    }

    /// `rects` made pairwise disjoint by merging every two that overlap into their union
    /// (repeatedly: a union can reach a third rectangle), empty ones dropped.
    public static func disjointUnion(_ rects: [IntRect]) -> [IntRect] {
        var out: [IntRect] = []
        for r in rects where !r.isEmpty {
            var merged = r
            var i = 0
            while i < out.count {
                if !out[i].intersection(merged).isEmpty {
                    merged = merged.union(out.remove(at: i))
                    i = 0
                } else {
                    i += 1
                }
            }
            out.append(merged)
        }
        return out
    }

    @inlinable public func contains(_ o: IntRect) -> Bool {
        o.isEmpty || (o.minX >= minX && o.minY >= minY && o.maxX <= maxX && o.maxY <= maxY)
    }

    public var description: String { "IntRect(\(x), \(y), \(width)×\(height))" }
}

/// An affine transform `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty` (Core Graphics layout).
public struct Transform: Equatable, Sendable {
    public var a, b, c, d, tx, ty: Double

    @inlinable public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    @inlinable public static func translation(_ dx: Double, _ dy: Double) -> Transform {
        Transform(a: 1, b: 0, c: 0, d: 1, tx: dx, ty: dy)
    }

    @inlinable public static func scale(_ sx: Double, _ sy: Double) -> Transform {
        Transform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    public static func rotation(_ radians: Double) -> Transform {
        let cs = _cos(radians), sn = _sin(radians)
        return Transform(a: cs, b: sn, c: -sn, d: cs, tx: 0, ty: 0)
    }

    /// `self` followed by `other` (apply self first, then other).
    @inlinable public func concatenating(_ o: Transform) -> Transform {
        Transform(a: a * o.a + b * o.c, b: a * o.b + b * o.d,
                  c: c * o.a + d * o.c, d: c * o.b + d * o.d,
                  tx: tx * o.a + ty * o.c + o.tx, ty: tx * o.b + ty * o.d + o.ty)
    }

    @inlinable public func apply(_ p: Point) -> Point {
        Point(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
    }

    public var inverted: Transform? {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return Transform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }

    /// The largest factor by which this transform stretches a length (for flattening tolerance).
    public var maxScale: Double {
        let sx = (a * a + b * b).squareRoot(), sy = (c * c + d * d).squareRoot()
        return max(sx, sy)
    }
}
