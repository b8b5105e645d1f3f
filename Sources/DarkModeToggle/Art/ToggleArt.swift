import Raster

/// The artwork of the toggle, encoded from the spec (`toggle-art.json`): LightDarkModeAnimated
/// by Kristine Kolodziejski (MIT), as encoded by the SwiftUI DarkModeToggle 3.0.1 package.
/// Coordinates are artboard units: the track artboard is 173 × 69, the celestial one 173 × 84.
public enum ToggleArt {
    // MARK: Palette

    public enum Palette {
        public static let daySky = Color(r255: 162, g255: 209, b255: 253)
        public static let nightSky = Color(r255: 31, g255: 37, b255: 51)
        public static let sun = Color(r255: 255, g255: 193, b255: 135)
        public static let moon = Color(r255: 222, g255: 229, b255: 243)
        public static let star = Color(r255: 222, g255: 229, b255: 243)
        public static let cloud = Color(r255: 255, g255: 255, b255: 255)
    }

    /// A rounded rectangle of the artboard (continuous corners in the original).
    public struct Capsule: Sendable {
        public let rect: Rect
        public let radius: Double
        public var path: Path { Path.roundedRect(rect, radius: radius, style: .continuous) }
        public func stroke(lineWidth: Double, alignment: StrokeAlignment) -> Path {
            Path.roundedRectStroke(rect, radius: radius, lineWidth: lineWidth, alignment: alignment, style: .continuous)
        }
    }

    // MARK: Track

    /// The sky and outer border shape.
    public static let trackOuter = Capsule(rect: Rect(x: 1.35, y: 1.35, width: 170.3, height: 66.3), radius: 33.15)
    /// The scene mask and inner-edge shape.
    public static let trackInner = Capsule(rect: Rect(x: 2, y: 2, width: 169, height: 65), radius: 32.5)
    public static let trackFrame = Rect(x: 0, y: 0, width: 173, height: 69)

    public static let outerBorderWidth = 1.3
    public static let dayOuterBorder = [Color(r255: 108, g255: 184, b255: 255, alpha: 1), Color(r255: 255, g255: 255, b255: 255, alpha: 0)]
    public static let nightOuterBorder = [Color(r255: 0, g255: 0, b255: 0, alpha: 0.65), Color(r255: 255, g255: 255, b255: 255, alpha: 0.04)]
    public static let innerEdgeWidth = 3.2
    public static let dayInnerEdge = [Color(r255: 255, g255: 255, b255: 255, alpha: 0.2), Color(r255: 0, g255: 0, b255: 0, alpha: 0),
                                      Color(r255: 114, g255: 187, b255: 255, alpha: 0.58)]
    public static let nightInnerEdge = [Color(r255: 0, g255: 0, b255: 0, alpha: 0.58), Color(r255: 0, g255: 0, b255: 0, alpha: 0),
                                        Color(r255: 255, g255: 255, b255: 255, alpha: 0.04)]

    // MARK: Day scene

    public struct CloudGroup: Sendable {
        public let opacity: Double
        /// Seconds of one leg of the float animation.
        public let duration: Double
        /// Circle centres.
        public let circles: [Point]
    }

    public static let cloudRadius = 13.65
    public static let cloudGroups: [CloudGroup] = [
        CloudGroup(opacity: 0.95, duration: 3.5, circles: [
            Point(94.2504, 60.8421), Point(113.184, 51.7523), Point(114.229, 67.3172),
            Point(130.307, 54.5105), Point(137.664, 67.0455), Point(151.322, 57.0073)]),
        CloudGroup(opacity: 0.95, duration: 4.5, circles: [
            Point(26.1573, 73.098), Point(45.0905, 64.0083), Point(46.1363, 79.5732),
            Point(62.2139, 66.7665), Point(69.5708, 79.3015), Point(83.2286, 69.2632)]),
        CloudGroup(opacity: 0.6, duration: 2.5, circles: [
            Point(106.091, 43.1957), Point(125.024, 34.106), Point(126.07, 49.6709),
            Point(142.148, 36.8642), Point(149.505, 49.3992), Point(163.162, 39.3609)]),
        CloudGroup(opacity: 0.6, duration: 5.5, circles: [
            Point(48.4171, 64.9256), Point(67.2297, 55.5888), Point(68.4791, 71.1387),
            Point(84.3878, 58.1227), Point(91.9081, 70.5603), Point(105.433, 60.3442)]),
    ]

    // MARK: Night scene

    public struct Star: Sendable {
        public let group: Int
        public let center: Point
        public let radius: Double
        /// Gaussian blur radius (artboard units), if any.
        public let blur: Double
    }

    public static let starInnerRatio = 0.2701
    public static let stars: [Star] = {
        var s: [Star] = []
        func add(_ g: Int, _ x: Double, _ y: Double, _ r: Double, _ blur: Double = 0) {
            s.append(Star(group: g, center: Point(x, y), radius: r, blur: blur))
        }
        add(1, 16.95, 23.45, 1.95); add(2, 40.35, 33.85, 1.95); add(3, 22.15, 57.25, 1.95)
        add(4, 28.65, 36.45, 0.65); add(1, 18.25, 45.55, 0.65); add(2, 32.875, 58.875, 0.975)
        add(0, 15.975, 32.875, 0.975, 0.13); add(3, 10.45, 52.05, 0.65); add(4, 42.95, 49.45, 0.65)
        add(1, 31.25, 15.65, 0.65); add(2, 5.25, 36.45, 0.65); add(1, 50.75, 10.45, 1.95)
        add(3, 80.65, 23.45, 1.95); add(4, 62.45, 53.35, 1.95); add(2, 68.95, 26.05, 0.65)
        add(3, 63.75, 40.35, 0.65); add(1, 70.575, 34.175, 0.975); add(0, 56.275, 22.475, 0.975, 0.13)
        add(1, 50.75, 40.35, 0.65, 0.13); add(1, 83.25, 39.05, 0.65); add(2, 76.75, 13.05, 0.65)
        add(3, 45.55, 26.05, 0.65)
        return s
    }()

    /// The four-point star: 8 vertices alternating outer and inner radius, from the top.
    public static func starPath(_ star: Star) -> Path {
        Path.star(center: star.center, points: 4, outerRadius: star.radius, innerRadius: star.radius * starInnerRatio)
    }

    // MARK: Celestial

    public struct Shadow: Sendable {
        public let color: Color
        /// Blur radius (artboard units); the Gaussian's sigma equals it.
        public let radius: Double
        public let dx: Double
        public let dy: Double
    }

    public struct Body: Sendable {
        public let shape: Capsule
        public let fill: Color
        public let strokeWidth: Double
        public let strokeGradient: [Color]
        public let shadows: [Shadow]
    }

    public static let sun = Body(
        shape: Capsule(rect: Rect(x: 111.5537, y: 20.365, width: 45.4463, height: 43.635), radius: 21.8175),
        fill: Color(r255: 255, g255: 193, b255: 135, alpha: 0.96),
        strokeWidth: 2.6,
        strokeGradient: [Color(r255: 255, g255: 255, b255: 255, alpha: 0.42), Color(r255: 0, g255: 0, b255: 0, alpha: 0),
                         Color(r255: 255, g255: 161, b255: 74, alpha: 0.68)],
        shadows: [Shadow(color: Color(r255: 255, g255: 193, b255: 135, alpha: 0.6), radius: 5.85, dx: 0, dy: 0),
                  Shadow(color: Color(r255: 183, g255: 183, b255: 183, alpha: 0.35), radius: 2.6, dx: -3.9, dy: 6.5)])

    public static let moon = Body(
        shape: Capsule(rect: Rect(x: 111.0674, y: 20.3278, width: 45.4426, height: 43.6315), radius: 21.8158),
        fill: Palette.moon,
        strokeWidth: 2.6,
        strokeGradient: [Color(r255: 255, g255: 255, b255: 255, alpha: 0.72), Color(r255: 0, g255: 0, b255: 0, alpha: 0),
                         Color(r255: 191, g255: 191, b255: 192, alpha: 0.58)],
        shadows: [Shadow(color: Color(r255: 183, g255: 183, b255: 183, alpha: 0.31), radius: 9.75, dx: -3.9, dy: 0)])

    /// The crescent's occlusion, drawn over the moon disc (it casts no shadow).
    public static let moonOcclusionColor = Palette.nightSky.multipliedAlpha(0.79 * 0.9)
    public static let moonOcclusion: Path = {
        var p = Path()
        p.move(to: Point(132.712, 22.837))
        p.cubic(to: Point(112.361, 35.1418), control1: Point(123.768, 20.7837), control2: Point(114.702, 26.2647))
        p.cubic(to: Point(124.675, 55.4324), control1: Point(109.965, 44.2237), control2: Point(115.515, 53.3683))
        p.line(to: Point(125.016, 55.5092))
        p.line(to: Point(125.658, 55.6541))
        p.cubic(to: Point(146.016, 43.0404), control1: Point(134.701, 57.6918), control2: Point(143.815, 52.0444))
        p.cubic(to: Point(133.695, 23.0626), control1: Point(148.211, 34.062), control2: Point(142.702, 25.1306))
        p.line(to: Point(132.712, 22.837))
        p.close()
        return p
    }()
}
