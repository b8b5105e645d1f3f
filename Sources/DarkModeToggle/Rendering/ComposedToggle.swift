import Raster

/// One control's fully composed toggle: every layer of a `ToggleFrame` (skies, scenes, borders,
/// shadows, sun and moon) flattened into one premultiplied sprite, kept between frames.
///
/// A page draws a control as "fill the page colour, then composite this sprite" (one pass per
/// row with `Pixmap.fill(_:with:under:)`), so a frame where only the page colour moves (the
/// cross-fade) costs one fill and one composite per control, and a frame where the toggle moved
/// re-composes only `dirtyBounds` of the change inside the sprite.
///
/// The sprite's pixels do not depend on the page colour, so every path (cached, incremental,
/// from scratch) gives the same page bytes as long as all of them go through the sprite.
///
/// Memory: one pixmap of `extent` (the renderer's `bounds`, ~1.3 MB for a 260 pt toggle at
/// scale 2). The style's sprite pieces live in the renderer, so two controls of the same style,
/// width and scale can share one renderer (its cache is origin-independent) and keep one
/// `ComposedToggle` each.
public final class ComposedToggle {
    public let renderer: any ToggleStyleRenderer
    /// Where the sprite sits relative to the control's origin (device pixels).
    public let extent: IntRect
    private let sprite: Sprite
    private let canvas: Canvas
    /// The frame the sprite shows, nil when it must be composed from scratch.
    public private(set) var shown: ToggleFrame?

    public init(renderer: any ToggleStyleRenderer, pool: LayerPool = LayerPool()) {
        self.renderer = renderer
        extent = renderer.bounds(origin: (0, 0))
        let pix = Pixmap(width: extent.width, height: extent.height)
        sprite = Sprite(pixmap: pix, origin: (extent.x, extent.y))
        canvas = Canvas(pix, pool: pool)
        canvas.retarget(pix, origin: (extent.x, extent.y))
    }

    /// Forgets what the sprite shows (the next `update` composes all of it).
    public func invalidate() { shown = nil }

    /// Brings the sprite to `frame` and returns the rectangle (relative to the control's origin)
    /// whose pixels changed: empty when the frame equals the shown one, `extent` after
    /// `invalidate` or with `cached: false` (every piece rasterized anew, no caches).
    @discardableResult
    public func update(_ frame: ToggleFrame, cached: Bool = true) -> IntRect {
        if cached, let old = shown, old == frame { return .zero }
        let changed = cached ? renderer.dirtyBounds(from: shown, to: frame, origin: (0, 0)).intersection(extent) : extent
        guard !changed.isEmpty else { shown = frame; return .zero }
        let pix = sprite.pixmap
        pix.fill(changed.offsetBy(dx: -extent.x, dy: -extent.y), with: 0)
        canvas.clip = changed
        renderer.draw(frame, on: canvas, origin: (0, 0), cached: cached)
        canvas.clip = extent
        canvas.transform = .identity
        shown = frame
        return changed
    }

    /// The composed sprite placed for a control whose top-left is at device `origin`. The
    /// sprite object is shared: use it before the next call.
    public func composed(at origin: (x: Int, y: Int)) -> Sprite {
        sprite.origin = (extent.x + origin.x, extent.y + origin.y)
        return sprite
    }

    /// Fills `rect` of `target` with the page colour `page` (packed premultiplied) and
    /// composites the control (at `origin`) over it, touching each row once.
    public func drawComposed(on target: Pixmap, page: UInt32, rect: IntRect, origin: (x: Int, y: Int)) {
        target.fill(rect, with: page, under: composed(at: origin))
    }

    /// Composites the control (at `origin`) onto a canvas (src-over, clipped by the canvas).
    public func drawComposed(on canvas: Canvas, origin: (x: Int, y: Int)) {
        canvas.draw(composed(at: origin))
    }
}
