import KioskEngine
import Raster

/// Where the page is on the screen: the viewport (output pixels, rotation, scale) and the
/// window's position in screen coordinates (`SDL_GetWindowPosition`, window units). Pure: maps
/// page rectangles to screen rectangles for assistive technology, whose coordinates are the
/// screen's.
public struct ScreenPlacement: Equatable, Sendable {
    public var viewport: Viewport
    public var windowX: Int
    public var windowY: Int

    public init(viewport: Viewport, windowX: Int, windowY: Int) {
        self.viewport = viewport
        self.windowX = windowX
        self.windowY = windowY
    }

    /// A rectangle in page points on the screen, in screen pixels (window units): through the
    /// scale, the rotation and the output-per-window-unit ratio, offset by the window's
    /// position; the smallest whole-pixel rectangle that holds it.
    public func screenRect(ofPage r: Rect) -> (x: Int, y: Int, width: Int, height: Int) {
        let s = viewport.scale
        let a = viewport.outputPixel(fromPage: Point(r.minX * s, r.minY * s))
        let b = viewport.outputPixel(fromPage: Point(r.maxX * s, r.maxY * s))
        let (kx, ky) = viewport.outputPerWindowUnit
        let x0 = (min(a.x, b.x) / kx).rounded(.down), x1 = (max(a.x, b.x) / kx).rounded(.up)
        let y0 = (min(a.y, b.y) / ky).rounded(.down), y1 = (max(a.y, b.y) / ky).rounded(.up)
        return (windowX + Int(x0), windowY + Int(y0), Int(x1 - x0), Int(y1 - y0))
    }

    /// The window on the screen.
    public var windowRect: (x: Int, y: Int, width: Int, height: Int) {
        (windowX, windowY, viewport.windowWidth, viewport.windowHeight)
    }
}
