import Raster
import KioskEngine

/// Where the page sits on the display: output (drawable) pixels, window units, rotation and
/// scale. Pure geometry, no SDL: presentation rectangle and the inverse input mapping.
///
/// The page is laid out in its own (rotated) size, rendered unrotated into a texture of that
/// size, and presented centred on the output, turned clockwise by `rotation`. Input arrives in
/// window units (mouse) or normalised window coordinates (touch); both are mapped to output
/// pixels, then back through the rotation into page pixels, then divided by `scale`.
public struct Viewport: Sendable, Equatable {
    /// Drawable size in pixels (`SDL_GetRendererOutputSize`).
    public var outputWidth: Int
    public var outputHeight: Int
    /// Window size in window units (`SDL_GetWindowSize`); differs from the output on HiDPI.
    public var windowWidth: Int
    public var windowHeight: Int
    public var rotation: Rotation
    /// Pixels per point.
    public var scale: Double

    public init(outputWidth: Int, outputHeight: Int, windowWidth: Int, windowHeight: Int,
                rotation: Rotation, scale: Double) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.windowWidth = windowWidth
        self.windowHeight = windowHeight
        self.rotation = rotation
        self.scale = scale
    }

    /// Page size in pixels: the output size, with width and height swapped for 90° and 270°.
    public var pagePixelWidth: Int { rotation.swapsAxes ? outputHeight : outputWidth }
    public var pagePixelHeight: Int { rotation.swapsAxes ? outputWidth : outputHeight }

    /// The page size in pixels (what the app is built for, with `scale`).
    public var pageSize: PixelSize { PixelSize(width: pagePixelWidth, height: pagePixelHeight) }

    /// The page size with its scale: what the app is built for.
    public var geometry: PageGeometry { PageGeometry(size: pageSize, scale: scale) }

    /// The destination rectangle (output pixels, before rotation) for `SDL_RenderCopyExF`: the
    /// page-sized rectangle centred on the output, so that turning it about its centre by
    /// `rotation` covers the output exactly.
    public var presentationRect: (x: Double, y: Double, width: Double, height: Double) {
        let w = Double(pagePixelWidth), h = Double(pagePixelHeight)
        return ((Double(outputWidth) - w) / 2, (Double(outputHeight) - h) / 2, w, h)
    }

    /// Output pixels per window unit along each axis (1 unless HiDPI).
    public var outputPerWindowUnit: (x: Double, y: Double) {
        (windowWidth > 0 ? Double(outputWidth) / Double(windowWidth) : 1,
         windowHeight > 0 ? Double(outputHeight) / Double(windowHeight) : 1)
    }

    /// A continuous position in output pixels mapped to page pixels (inverse rotation about
    /// the centres; exact for quarter turns).
    public func pagePixel(fromOutput p: Point) -> Point {
        let ow = Double(outputWidth), oh = Double(outputHeight)
        switch rotation {
        case .none: return p
        case .clockwise90: return Point(p.y, ow - p.x)
        case .upsideDown: return Point(ow - p.x, oh - p.y)
        case .clockwise270: return Point(oh - p.y, p.x)
        }
    }

    /// Inverse of `pagePixel(fromOutput:)`: where a page pixel position appears on the output.
    public func outputPixel(fromPage p: Point) -> Point {
        let ow = Double(outputWidth), oh = Double(outputHeight)
        switch rotation {
        case .none: return p
        case .clockwise90: return Point(ow - p.y, p.x)
        case .upsideDown: return Point(ow - p.x, oh - p.y)
        case .clockwise270: return Point(p.y, oh - p.x)
        }
    }

    /// A mouse position (integer window units, as SDL reports it) in page points. The pixel's
    /// centre is used, so a click on output pixel (x, y) maps to that pixel's centre.
    public func pagePoint(fromWindowX x: Int, y: Int) -> Point {
        let (sx, sy) = outputPerWindowUnit
        let output = Point((Double(x) + 0.5) * sx, (Double(y) + 0.5) * sy)
        return pagePoint(fromOutput: output)
    }

    /// A normalised touch position (0…1 across the window) in page points.
    public func pagePoint(fromNormalizedX x: Double, y: Double) -> Point {
        pagePoint(fromOutput: Point(x * Double(outputWidth), y * Double(outputHeight)))
    }

    /// Output pixels to page points.
    public func pagePoint(fromOutput p: Point) -> Point {
        let page = pagePixel(fromOutput: p)
        return Point(page.x / scale, page.y / scale)
    }
}

/// How the host picks pixels per point when none is given.
public enum ScalePolicy {
    /// The explicit scale when given (must be finite and > 0); otherwise the larger of the
    /// drawable-vs-window ratio (HiDPI compositors) and the display DPI over 96, rounded to
    /// quarter steps and clamped to 1…4. A DPI outside 50…600 (X servers often invent one) is
    /// ignored.
    public static func resolve(explicit: Double?, outputWidth: Int, windowWidth: Int, displayDPI: Double?) -> Double {
        if let s = explicit, s.isFinite, s > 0 { return s }
        var scale = 1.0
        if windowWidth > 0, outputWidth > windowWidth {
            scale = Double(outputWidth) / Double(windowWidth)
        }
        if let dpi = displayDPI, dpi.isFinite, dpi >= 50, dpi <= 600 {
            scale = max(scale, (dpi / 96 * 4).rounded() / 4)
        }
        return min(max(scale, 1), 4)
    }
}
