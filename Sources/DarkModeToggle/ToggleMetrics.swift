import Raster

/// Geometry of the component at a given width in points, from the `scaling` rules of the art
/// spec. All values are in the component's own points (0,0 at its top-left).
public struct ToggleMetrics: Equatable, Sendable {
    /// Artboard sizes and the celestial layer's travel, in artboard units.
    public static let trackArtboard = (width: 173.0, height: 69.0)
    public static let celestialArtboard = (width: 173.0, height: 84.0)
    public static let componentAspect = 80.0 / 130.0
    public static let celestialWidthMultiplier = 1.2
    public static let celestialTranslationLight = -100.0
    public static let celestialTranslationDark = -25.0

    public let width: Double

    public init(width: Double) {
        precondition(width > 0 && width.isFinite, "component width must be positive")
        self.width = width
    }

    public var height: Double { width * Self.componentAspect }
    public var trackScale: Double { width / Self.trackArtboard.width }
    public var trackHeight: Double { Self.trackArtboard.height * trackScale }
    public var trackOriginY: Double { (height - trackHeight) / 2 }
    /// The track's frame in component points.
    public var trackFrame: Rect { Rect(x: 0, y: trackOriginY, width: width, height: trackHeight) }

    public var celestialScale: Double { width * Self.celestialWidthMultiplier / Self.celestialArtboard.width }
    public var celestialHeight: Double { Self.celestialArtboard.height * celestialScale }
    public var celestialOriginY: Double { (height - celestialHeight) / 2 }

    /// Left edge of the celestial artboard for a position progress (0 light … 1 dark).
    public func celestialOriginX(position: Double) -> Double {
        lerp(Self.celestialTranslationLight, Self.celestialTranslationDark, position) * celestialScale
    }

    /// How far (points) the celestial layer moves between the two ends; a drag of this length
    /// changes the progress by 1.
    public var translationTravel: Double {
        (Self.celestialTranslationDark - Self.celestialTranslationLight) * celestialScale
    }

    /// The component's frame in its own points (the whole frame is the hit area).
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }
}
