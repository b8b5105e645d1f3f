/// A colour stop of a gradient: position 0…1 along the gradient line, straight-alpha colour.
public struct GradientStop: Equatable, Sendable {
    public var location: Double
    public var color: Color
    public init(_ location: Double, _ color: Color) { self.location = location; self.color = color }
}

/// A linear gradient between two points (user space), padded beyond its ends.
///
/// Interpolation rule (Skia's default, which SwiftUI's matches closely): between two stops the
/// straight (unpremultiplied) components are interpolated linearly, then the result is
/// premultiplied. A fade to transparent white therefore stays white instead of turning grey.
public struct LinearGradient: Equatable, Sendable {
    public var start: Point
    public var end: Point
    public var stops: [GradientStop]

    public init(start: Point, end: Point, stops: [GradientStop]) {
        precondition(!stops.isEmpty, "a gradient needs at least one stop")
        self.start = start
        self.end = end
        self.stops = stops.sorted { $0.location < $1.location }
    }

    /// Stops evenly spaced from 0 to 1 (SwiftUI `Gradient(colors:)`).
    public init(start: Point, end: Point, colors: [Color]) {
        let n = colors.count
        self.init(start: start, end: end,
                  stops: colors.enumerated().map { GradientStop(n == 1 ? 0 : Double($0.offset) / Double(n - 1), $0.element) })
    }

    /// The straight colour at parameter t (clamped to 0…1).
    public func color(at t: Double) -> Color {
        let t = clamp(t, 0, 1)
        if t <= stops[0].location { return stops[0].color }
        for i in 1..<stops.count where t <= stops[i].location {
            let a = stops[i - 1], b = stops[i]
            let span = b.location - a.location
            return span > 0 ? a.color.mix(b.color, (t - a.location) / span) : b.color
        }
        return stops[stops.count - 1].color
    }
}

/// What fills a shape.
public enum Paint: Equatable, Sendable {
    case solid(Color)
    case linearGradient(LinearGradient)
}
