/// A colour stop of a gradient: position 0…1 along the gradient line, straight-alpha colour.
public struct GradientStop: Equatable, Sendable {
    public var location: Double
    public var color: Color
    public init(_ location: Double, _ color: Color) { self.location = location; self.color = color }
}

/// How a gradient blends two stops.
public enum GradientInterpolation: Sendable {
    /// Interpolate the straight (unpremultiplied) components, then premultiply: Skia's default.
    /// A fade from opaque blue to transparent white passes through whitish blue; a fade to
    /// transparent black passes through grey.
    case unpremultiplied
    /// Interpolate premultiplied components: Core Graphics' (and so SwiftUI's) rule. A
    /// transparent stop contributes no colour, only transparency, so a fade from opaque blue to
    /// transparent anything stays blue while it fades out. Measured against the SwiftUI
    /// reference screenshots, this is what the original toggle shows (see `tools/fidelity`).
    case premultiplied
}

/// A linear gradient between two points (user space), padded beyond its ends.
public struct LinearGradient: Equatable, Sendable {
    public var start: Point
    public var end: Point
    public var stops: [GradientStop]
    public var interpolation: GradientInterpolation

    public init(start: Point, end: Point, stops: [GradientStop], interpolation: GradientInterpolation = .unpremultiplied) {
        precondition(!stops.isEmpty, "a gradient needs at least one stop")
        self.start = start
        self.end = end
        self.stops = stops.sorted { $0.location < $1.location }
        self.interpolation = interpolation
    }

    /// Stops evenly spaced from 0 to 1 (SwiftUI `Gradient(colors:)`).
    public init(start: Point, end: Point, colors: [Color], interpolation: GradientInterpolation = .unpremultiplied) {
        let n = colors.count
        self.init(start: start, end: end,
                  stops: colors.enumerated().map { GradientStop(n == 1 ? 0 : Double($0.offset) / Double(n - 1), $0.element) },
                  interpolation: interpolation)
    }

    /// Blends two stop colours by the gradient's rule; the result is straight-alpha.
    func blend(_ a: Color, _ b: Color, _ f: Double) -> Color {
        switch interpolation {
        case .unpremultiplied:
            return a.mix(b, f)
        case .premultiplied:
            let alpha = a.a + (b.a - a.a) * f
            guard alpha > 0 else { return Color(r: 0, g: 0, b: 0, a: 0) }
            func ch(_ x: Double, _ y: Double) -> Double { (x * a.a * (1 - f) + y * b.a * f) / alpha }
            return Color(r: ch(a.r, b.r), g: ch(a.g, b.g), b: ch(a.b, b.b), a: alpha)
        }
    }

    /// The straight colour at parameter t (clamped to 0…1).
    public func color(at t: Double) -> Color {
        let t = clamp(t, 0, 1)
        if t <= stops[0].location { return stops[0].color }
        for i in 1..<stops.count where t <= stops[i].location {
            let a = stops[i - 1], b = stops[i]
            let span = b.location - a.location
            return span > 0 ? blend(a.color, b.color, (t - a.location) / span) : b.color
        }
        return stops[stops.count - 1].color
    }
}

/// What fills a shape.
public enum Paint: Equatable, Sendable {
    case solid(Color)
    case linearGradient(LinearGradient)
}
