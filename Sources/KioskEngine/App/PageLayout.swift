import DarkModeToggle
import Raster

/// Where things sit on the page: the toggle centred, its origin on a whole device pixel (so
/// input hit-testing and drawing agree exactly, and cached sprites land on the pixel grid).
public struct PageLayout: Equatable, Sendable {
    public let pixelWidth: Int
    public let pixelHeight: Int
    public let scale: Double
    public let toggleWidth: Double

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double, toggleWidth: Double) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.toggleWidth = toggleWidth
    }

    public var metrics: ToggleMetrics { ToggleMetrics(width: toggleWidth) }

    /// Device pixel of the toggle's top-left corner.
    public var toggleOrigin: (x: Int, y: Int) {
        let m = metrics
        return (Int(((Double(pixelWidth) - m.width * scale) / 2).rounded()),
                Int(((Double(pixelHeight) - m.height * scale) / 2).rounded()))
    }

    /// The toggle's frame in page points.
    public var toggleFrame: Rect {
        let o = toggleOrigin, m = metrics
        return Rect(x: Double(o.x) / scale, y: Double(o.y) / scale, width: m.width, height: m.height)
    }

    /// The toggle's frame in device pixels (fractional size).
    public var togglePixelFrame: Rect {
        let o = toggleOrigin, m = metrics
        return Rect(x: Double(o.x), y: Double(o.y), width: m.width * scale, height: m.height * scale)
    }

    public var pageBounds: IntRect { IntRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight) }
}
