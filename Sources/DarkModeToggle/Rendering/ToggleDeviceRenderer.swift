import Raster

/// What both styles' renderers share: the component's metrics at a device scale, the
/// artboard → device units and transforms derived from them, the rectangles a frame can touch,
/// and the choice between the kept sprite composition and a one-frame one.
///
/// A style subclasses it and supplies `bodyBounds(moon:position:origin:)` (where its sun or moon
/// can reach) and `makeComposition(pool:retained:)` (its sprite cache).
public class ToggleDeviceRenderer {
    public let metrics: ToggleMetrics
    /// Device pixels per point.
    public let scale: Double
    /// The kept composition (`draw(..., cached: true)`), made on first use.
    private var composition: ToggleComposition?

    public init(width: Double, scale: Double) {
        precondition(scale > 0 && scale.isFinite, "scale must be positive")
        metrics = ToggleMetrics(width: width)
        self.scale = scale
    }

    /// Device pixels per track artboard unit.
    var trackUnit: Double { metrics.trackScale * scale }
    /// Device pixels per celestial artboard unit.
    var celestialUnit: Double { metrics.celestialScale * scale }

    /// The track transform for a component whose top-left is at device `origin`.
    func trackTransform(_ origin: (x: Int, y: Int)) -> Transform {
        Transform.scale(trackUnit, trackUnit)
            .concatenating(.translation(Double(origin.x), Double(origin.y) + metrics.trackOriginY * scale))
    }

    /// A canvas with no pixels under the track transform of a component at (0, 0), for measuring
    /// the device bounds of artboard shapes.
    func measuringCanvas(pool: LayerPool) -> Canvas {
        let c = Canvas(Pixmap(width: 0, height: 0), pool: pool)
        c.transform = trackTransform((0, 0))
        return c
    }

    // MARK: What a style supplies

    /// Device bounds of the sun (or the moon) with everything it draws (ring, shadows) when the
    /// celestial position is `position` and the component's top-left is at `origin`.
    func bodyBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        preconditionFailure("\(Self.self) must supply bodyBounds(moon:position:origin:)")
    }

    /// The style's sprite composition: kept between frames (`retained`) or for one frame.
    func makeComposition(pool: LayerPool, retained: Bool) -> ToggleComposition {
        preconditionFailure("\(Self.self) must supply makeComposition(pool:retained:)")
    }

    /// What the composition draws a frame with, quantized as it draws it (whole pixels and
    /// sub-pixel phases, 8-bit opacities): frames with equal drawn states draw equal pixels.
    func drawnState(_ frame: ToggleFrame) -> DrawnToggleState {
        preconditionFailure("\(Self.self) must supply drawnState(_:)")
    }

    /// The device rectangles that change when only the ambient loops' drawn values change
    /// (appearance and sun/moon placement equal): each piece that moved or changed opacity,
    /// where it was and where it is. The whole track unless a style knows better.
    func ambientRects(from old: ToggleFrame, to new: ToggleFrame, origin: (x: Int, y: Int)) -> [IntRect] {
        [trackDeviceBounds(origin: origin)]
    }

    /// Device bounds (origin 0, 0) of a track-artboard rectangle, measured as the compositions
    /// measure their pieces (`Canvas.deviceBounds(of:)` under the track transform).
    func trackPieceBounds(_ r: Rect) -> IntRect { deviceBounds(of: r, under: trackTransform((0, 0))) }

    /// Device bounds of a rectangle under `t`, as `Canvas.deviceBounds(of:)` measures them.
    func deviceBounds(of r: Rect, under t: Transform) -> IntRect {
        probe.transform = t
        return probe.deviceBounds(of: r)
    }

    /// A canvas with no pixels, kept: it measures bounds (dirty rectangles, every frame) and
    /// runs a composition to make its pieces without drawing (`prepare`). Used by the thread
    /// that prepares the frame only; two renderers' probes are independent.
    private lazy var probe = Canvas(Pixmap(width: 0, height: 0))

    // MARK: Bounds

    /// Device bounds of the track layer (the track frame; nothing of the track reaches outside it).
    /// Measured at origin (0, 0) and moved by the whole-pixel origin, as the compositions place
    /// their track pieces: measured at the origin itself, rounding out could come out a pixel
    /// narrower than the pieces (e.g. 300.00000000000006 rounds out to 301 at 0, while
    /// 518 + 300.00000000000006 is exactly 818) and leave a changed column out of the dirty rectangle.
    public func trackDeviceBounds(origin: (x: Int, y: Int)) -> IntRect {
        let t = trackTransform((0, 0))
        let f = ToggleArt.trackFrame
        let a = t.apply(Point(f.minX, f.minY)), b = t.apply(Point(f.maxX, f.maxY))
        return Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y).roundedOut.offsetBy(dx: origin.x, dy: origin.y)
    }

    /// The device rectangle the component can touch when its top-left is at `origin`, for any
    /// state: the component frame and the track, widened by the sun's and moon's travel (with the
    /// spring's overshoot) and shadows.
    public func bounds(origin: (x: Int, y: Int)) -> IntRect {
        var r = IntRect(x: origin.x, y: origin.y, width: Int((metrics.width * scale).rounded(.up)),
                        height: Int((metrics.height * scale).rounded(.up)))
        r = r.union(trackDeviceBounds(origin: origin))
        for position in [-0.15, 1.15] {
            for moon in [false, true] { r = r.union(bodyBounds(moon: moon, position: position, origin: origin)) }
        }
        return r
    }

    /// The device rectangles that change between two frames, judged by what is drawn
    /// (`drawnState`): none when both draw the same; the track and the old and new places of
    /// the visible sun and moon when the appearance changed; otherwise the sun's and moon's old
    /// and new places when they moved, and each ambient piece that changed (`ambientRects`: a
    /// twinkling star is its own small rectangle). They may overlap.
    public func dirtyRects(from old: ToggleFrame?, to new: ToggleFrame, origin: (x: Int, y: Int)) -> [IntRect] {
        guard let old else { return [bounds(origin: origin)] }
        if old == new { return [] }
        let a = drawnState(old), b = drawnState(new)
        if a == b { return [] }
        let celestial = celestialBounds(old, origin: origin).union(celestialBounds(new, origin: origin))
        if a.appearance != b.appearance { return [trackDeviceBounds(origin: origin).union(celestial)] }
        var rects: [IntRect] = []
        if a.celestial != b.celestial { rects.append(celestial) }
        if a.ambient != b.ambient { rects += ambientRects(from: old, to: new, origin: origin) }
        return rects.filter { !$0.isEmpty }
    }

    /// The smallest rectangle holding `dirtyRects` (empty when the frames draw the same).
    public func dirtyBounds(from old: ToggleFrame?, to new: ToggleFrame, origin: (x: Int, y: Int)) -> IntRect {
        dirtyRects(from: old, to: new, origin: origin).reduce(IntRect.zero) { $0.union($1) }
    }

    /// Where the sun and/or moon visible in `frame` put pixels.
    func celestialBounds(_ frame: ToggleFrame, origin: (x: Int, y: Int)) -> IntRect {
        let p = clamp(frame.appearance, 0, 1)
        var r = IntRect.zero
        if p < 1 { r = r.union(bodyContentBounds(moon: false, position: frame.position, origin: origin)) }
        if p > 0 { r = r.union(bodyContentBounds(moon: true, position: frame.position, origin: origin)) }
        return r
    }

    /// Where the sun (or the moon) puts pixels: its sprite's content, which the stacked
    /// shadows' alpha, rounding to 0 well inside their blur extent, keeps at about half of
    /// `bodyBounds`. The whole `bodyBounds` unless a style knows better.
    func bodyContentBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        bodyBounds(moon: moon, position: position, origin: origin)
    }

    /// The non-transparent box of the kept sun's or moon's sprite (origin-0 placement, the
    /// Original's at phase 0), measured once per body; nil before the kept composition exists.
    func keptBodyContent(moon: Bool) -> IntRect? {
        if let b = bodyContent[moon ? 1 : 0] { return b }
        guard let kept = composition else { return nil }
        let b = kept.bodyContent(moon: moon)
        bodyContent[moon ? 1 : 0] = b
        return b
    }
    private var bodyContent: [IntRect?] = [nil, nil]

    /// `box` widened by where stacked shadows (blur extent and offset, in celestial units) reach.
    func widened(_ box: IntRect, byShadows shadows: [ToggleArt.Shadow]) -> IntRect {
        var box = box
        for s in shadows {
            let m = GaussianBlur.extent(sigma: s.radius * celestialUnit)
            let dx = Int((s.dx * celestialUnit).rounded()), dy = Int((s.dy * celestialUnit).rounded())
            let grown = box.insetBy(dx: -m, dy: -m)
            box = box.union(grown.offsetBy(dx: dx, dy: dy)).union(grown)
        }
        return box
    }

    // MARK: Drawing

    /// Makes every kept piece `frame` needs (rasterizing and blurring what is new), without
    /// drawing. Afterwards `draw(frame, cached: true)` only reads the kept pieces, so several
    /// threads may draw that frame at once, each with its own canvas (e.g. one band of the page
    /// each); pieces are made only here or in a `draw` that no other thread overlaps.
    public func prepare(_ frame: ToggleFrame, pool: LayerPool) {
        let kept = keptComposition(pool: pool)
        // The composition run against a canvas with no pixels: every piece is looked up (and
        // made when new) exactly as a real draw looks it up, and no pixel is written.
        kept.draw(frame, on: probe, origin: (0, 0))
    }

    /// Rasterizes (and blurs) every piece `frame` needs anew, as a from-scratch draw does, into a
    /// one-frame composition whose memory is borrowed from `pool`; until `endFromScratch()`,
    /// `draw(frame, cached: false)` composites those pieces and only reads them (several threads
    /// at once, each with its own canvas). Two renderers may prepare at once with different pools.
    public func prepareFromScratch(_ frame: ToggleFrame, pool: LayerPool) {
        beginFromScratch(pools: [pool])
        makeFromScratch(frame, part: 0)
        joinFromScratch(frame)
    }

    /// How many parts `makeFromScratch` splits the pieces of a frame into (lanes may make them
    /// at once): one unless a style's pieces fall into independent groups.
    public var fromScratchParts: Int { 1 }

    /// Starts preparing a from-scratch frame in `pools.count` parts (at most
    /// `fromScratchParts`), each into a one-frame composition of its own whose memory is
    /// borrowed from its pool. Then `makeFromScratch` for every part (on any threads, at once),
    /// then `joinFromScratch`.
    public func beginFromScratch(pools: [LayerPool]) {
        precondition(!pools.isEmpty && pools.count <= fromScratchParts, "\(pools.count) parts for \(fromScratchParts)")
        endFromScratch()
        oneFrameParts = pools.map { makeComposition(pool: $0, retained: false) }
    }

    /// Makes part `part` of the pieces `frame` needs. Parts share nothing: each may run on its
    /// own thread at the same time as the others (but not with anything else of this renderer).
    public func makeFromScratch(_ frame: ToggleFrame, part: Int) {
        let composition = oneFrameParts[part]
        if oneFrameParts.count == 1 {
            composition.draw(frame, on: probe, origin: (0, 0))
        } else {
            composition.makePieces(frame, part: part, of: oneFrameParts.count)
        }
    }

    /// Gathers the parts into one composition and makes whatever `frame` needs that no part
    /// made; afterwards `draw(frame, cached: false)` only reads the pieces.
    public func joinFromScratch(_ frame: ToggleFrame) {
        guard let first = oneFrameParts.first else { return }
        for other in oneFrameParts.dropFirst() { first.adopt(other) }
        first.draw(frame, on: probe, origin: (0, 0))
        oneFrame = first
    }

    /// Gives the prepared one-frame pieces' memory back to their pools.
    public func endFromScratch() {
        for part in oneFrameParts { part.releaseBorrowed() }
        oneFrameParts = []
        oneFrame = nil
    }

    /// The composition `prepareFromScratch` made (the first part, holding every part's pieces),
    /// until `endFromScratch`.
    private var oneFrame: ToggleComposition?
    private(set) var oneFrameParts: [ToggleComposition] = []

    func keptComposition(pool: LayerPool) -> ToggleComposition {
        if let kept = composition { return kept }
        let kept = makeComposition(pool: pool, retained: true)
        composition = kept
        return kept
    }

    /// A rectangle whose pixels the kept composition draws opaquely for `frame`, whatever lies
    /// under it (`ToggleStyleRenderer.opaqueCore`): its resting core, at rest only; nil
    /// before the kept composition exists.
    public func opaqueCore(_ frame: ToggleFrame, origin: (x: Int, y: Int)) -> IntRect? {
        let p = clamp(frame.appearance, 0, 1)
        guard p == 0 || p == 1 else { return nil }
        return composition?.restingCore()?.offsetBy(dx: origin.x, dy: origin.y)
    }

    /// Draws the component with its top-left at device `origin`: with the kept composition
    /// (`cached`), or with one that rasterizes every piece for this frame (the same pixels).
    public func draw(_ frame: ToggleFrame, on canvas: Canvas, origin: (x: Int, y: Int), cached: Bool = true) {
        if cached {
            keptComposition(pool: canvas.pool).draw(frame, on: canvas, origin: origin)
        } else if let prepared = oneFrame {
            prepared.draw(frame, on: canvas, origin: origin)
        } else {
            let fresh = makeComposition(pool: canvas.pool, retained: false)
            fresh.draw(frame, on: canvas, origin: origin)
            fresh.releaseBorrowed()
        }
    }
}

/// A style's sprite cache as the renderer uses it: compose a frame, give back one-frame memory.
protocol ToggleComposition: AnyObject {
    /// Rasterizes and places the pieces.
    var maker: SpriteMaker { get }
    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin: (x: Int, y: Int))
    /// The box the sun's or moon's sprite covers, for a placement at the origin (the
    /// Original's at sub-pixel phase 0).
    func bodyContent(moon: Bool) -> IntRect
    /// Makes part `part` of `parts` of the pieces `frame` needs, for a one-frame composition
    /// (`ToggleDeviceRenderer.makeFromScratch`): touches nothing but this composition.
    func makePieces(_ frame: ToggleFrame, part: Int, of parts: Int)
    /// Takes over the pieces `other` (a composition of the same renderer) made that this one
    /// lacks.
    func adopt(_ other: ToggleComposition)
    /// Where `draw` puts, at rest, opaque pixels that nothing under the component shows
    /// through, for a placement at the origin (drawn straight onto the canvas there); nil where
    /// the style knows none.
    func restingCore() -> IntRect?
}

extension ToggleComposition {
    var pool: LayerPool { maker.pool }
    var retained: Bool { maker.retained }

    /// Returns borrowed memory to the pool (one-frame instances).
    func releaseBorrowed() { maker.releaseBorrowed() }
}

/// A frame as a composition draws it: the appearance, where the sun and moon sit (whole pixels
/// and phases) and the ambient loops' values as drawn (cloud shifts, star opacities or scales,
/// only for the scenes that show). Equal states draw equal pixels.
struct DrawnToggleState: Equatable {
    var appearance: Double
    var celestial: [Int]
    var ambient: [Double]
}
