import Raster

/// The page's light and dark colour set (the page's colours, not the toggle's).
public struct PageTheme: Equatable, Sendable {
    public var light: Color
    public var dark: Color

    public init(light: Color, dark: Color) { self.light = light; self.dark = dark }

    /// The 3.0.1 demo page colours from the spec.
    public static let standard = PageTheme(light: Color(r255: 205, g255: 231, b255: 255),
                                           dark: Color(r255: 83, g255: 92, b255: 114))

    public func pageColor(isDark: Bool) -> Color { isDark ? dark : light }

    /// The page colour at `darkness` 0…1 (the cross-fade between the two).
    public func pageColor(darkness: Double) -> Color { light.mix(dark, clamp(darkness, 0, 1)) }
}
