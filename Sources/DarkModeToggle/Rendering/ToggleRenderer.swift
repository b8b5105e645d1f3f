import Raster

/// What the renderer needs to draw one frame of the toggle.
public struct ToggleFrame: Equatable, Sendable {
    /// Appearance progress: 0 light … 1 dark (sky, borders, sun/moon cross-fade).
    public var appearance: Double
    /// Celestial position progress: 0 left (sun) … 1 right (moon).
    public var position: Double
    /// Cloud offsets and star opacities.
    public var ambient: AmbientState

    public init(appearance: Double, position: Double, ambient: AmbientState) {
        self.appearance = appearance
        self.position = position
        self.ambient = ambient
    }

    /// The frame for a visual state at an ambient time.
    public init(_ visual: ToggleVisualState, ambientTime: Double, reduceMotion: Bool) {
        self.init(appearance: visual.appearance, position: visual.position,
                  ambient: Ambient.state(time: ambientTime, reduceMotion: reduceMotion))
    }
}

/// Draws the toggle onto a `Canvas`, in the spec's order and composition:
///
/// 1. the track as one off-screen layer (SwiftUI's `drawingGroup`): day sky, night sky at
///    opacity p, the outer gradient borders cross-faded, the scenes group (day scene at 1 − p,
///    night scene at p) masked by the inner rounded rectangle, the inner-edge gradients;
/// 2. the celestial layer, not clipped by the track: the sun (opacity 1 − p) and the moon
///    (opacity p), each with its gradient stroke and stacked drop shadows; the moon's occlusion
///    is drawn over the disc after its shadow, so it casts none.
///
/// Each piece (skies, borders, edges, scene mask, cloud groups, stars, sun and moon with their
/// shadows) is rasterized into its own layer and the frame is composed from those layers (see
/// `ToggleSpriteCache`). `draw(..., cached: true)` keeps the pieces between frames (rebuilt
/// when the scale changes, i.e. with a new renderer); `cached: false` rasterizes them all anew
/// for the frame. Both produce the same pixels (tested).
///
/// Moving pieces (the sun and moon, the cloud groups) are drawn at their exact positions, as
/// Core Graphics draws them, not snapped to whole pixels: a position splits into whole device
/// pixels and a phase of 1/`subpixelSteps` px, and the piece is rasterized at that phase (each
/// phase a sprite of its own, kept like any other piece) and composited at the whole-pixel part.
/// The residual error is at most half a step (1/16 px).
public final class ToggleRenderer: ToggleDeviceRenderer {
    /// Sub-pixel positions per device pixel at which moving pieces are drawn.
    public static let subpixelSteps = 8

    /// Splits a device coordinate into whole pixels (floor) and a phase in 0..<subpixelSteps,
    /// rounding to the nearest step: `v ≈ whole + phase / subpixelSteps`.
    static func split(_ v: Double) -> SubpixelOffset {
        let n = subpixelSteps
        let q = Int((v * Double(n)).rounded())
        let whole = q >= 0 ? q / n : -((n - 1 - q) / n)
        return SubpixelOffset(whole: whole, phase: q - whole * n)
    }

    /// Device position of the celestial artboard's origin: whole pixels plus a phase on each axis.
    func celestialOrigin(_ origin: (x: Int, y: Int), position: Double) -> CelestialPlacement {
        let x = Self.split(metrics.celestialOriginX(position: position) * scale)
        let y = Self.split(metrics.celestialOriginY * scale)
        return CelestialPlacement(x: origin.x + x.whole, y: origin.y + y.whole, phaseX: x.phase, phaseY: y.phase)
    }

    /// The celestial artboard's transform for a placement (exact, phase included).
    func celestialTransform(_ o: CelestialPlacement) -> Transform {
        let n = Double(Self.subpixelSteps)
        return Transform.scale(celestialUnit, celestialUnit)
            .concatenating(.translation(Double(o.x) + Double(o.phaseX) / n, Double(o.y) + Double(o.phaseY) / n))
    }

    /// A cloud group's vertical offset in device pixels: whole pixels and a phase.
    func cloudShift(_ offsetY: Double) -> SubpixelOffset { Self.split(offsetY * trackUnit) }

    override func bodyBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        bodyBounds(moon ? ToggleArt.moon : ToggleArt.sun, celestial: celestialOrigin(origin, position: position))
    }

    /// Two: the track's pieces with the clouds and stars, and the sun and moon
    /// (`ToggleSpriteCache.makePieces`).
    override public var fromScratchParts: Int { 2 }

    override func makeComposition(pool: LayerPool, retained: Bool) -> ToggleComposition {
        ToggleSpriteCache(renderer: self, pool: pool, retained: retained)
    }

    /// Whether the kept composition's cross-fading frames skip the skies under the scenes
    /// (`ToggleSpriteCache.skipsInteriorSkies`; made if new), for tests.
    var keptCompositionSkipsInteriorSkies: Bool {
        (keptComposition(pool: LayerPool()) as? ToggleSpriteCache)?.skipsInteriorSkies ?? false
    }

    /// The body's content at one phase, one pixel wider on every side: at another phase the
    /// sprite is drawn less than a pixel further left, right, up or down, and its content
    /// moves by less than a pixel (the shadows' alpha falls off outwards, so its rounded edge
    /// moves with it).
    override func bodyContentBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        guard let content = keptBodyContent(moon: moon) else { return bodyBounds(moon: moon, position: position, origin: origin) }
        let c = celestialOrigin(origin, position: position)
        return content.insetBy(dx: -1, dy: -1).offsetBy(dx: c.x, dy: c.y)
    }

    /// As `ToggleSpriteCache.draw` uses a frame: clouds by whole pixel and phase while the day
    /// scene shows, stars by their 8-bit opacity while the night scene shows.
    override func drawnState(_ frame: ToggleFrame) -> DrawnToggleState {
        let p = clamp(frame.appearance, 0, 1)
        let c = celestialOrigin((0, 0), position: frame.position)
        var ambient: [Double] = []
        if p < 1 {
            for y in frame.ambient.cloudOffsetsY {
                let shift = cloudShift(y)
                ambient += [Double(shift.whole), Double(shift.phase)]
            }
        }
        if p > 0 { ambient += frame.ambient.starOpacities.map(Self.drawnOpacity) }
        return DrawnToggleState(appearance: p, celestial: [c.x, c.y, c.phaseX, c.phaseY], ambient: ambient)
    }

    /// An opacity as `Canvas.draw` applies it (0…255).
    static func drawnOpacity(_ a: Double) -> Double { (clamp(a, 0, 1) * 255 + 0.5).rounded(.down) }

    /// Each cloud group whose drawn shift changed (its sprite at the old and the new shift) and
    /// each star whose drawn opacity changed, inside the track.
    override func ambientRects(from old: ToggleFrame, to new: ToggleFrame, origin: (x: Int, y: Int)) -> [IntRect] {
        let p = clamp(new.appearance, 0, 1)
        var rects: [IntRect] = []
        if p < 1 {
            for (i, group) in ToggleArt.cloudGroups.enumerated() {
                let a = cloudShift(old.ambient.cloudOffsetsY[i]), b = cloudShift(new.ambient.cloudOffsetsY[i])
                guard a != b else { continue }
                var box = trackPieceBounds(Self.cloudBounds(group))
                box.height += 1     // the sprite's room for the sub-pixel shift
                rects.append(box.offsetBy(dx: 0, dy: a.whole).union(box.offsetBy(dx: 0, dy: b.whole)))
            }
        }
        if p > 0 {
            for star in ToggleArt.stars {
                let g = star.group
                guard Self.drawnOpacity(old.ambient.starOpacities[g]) != Self.drawnOpacity(new.ambient.starOpacities[g]) else { continue }
                let margin = Double(GaussianBlur.extent(sigma: star.blur * trackUnit)) / trackUnit
                rects.append(trackPieceBounds(Self.starBounds(star).insetBy(dx: -margin, dy: -margin)))
            }
        }
        let track = trackDeviceBounds(origin: (0, 0))
        return rects.map { $0.intersection(track).offsetBy(dx: origin.x, dy: origin.y) }
    }

    /// Device bounds of a sun or moon with room for all its stacked shadows, at any phase of
    /// the placement's whole-pixel origin (one extra column and row for the sub-pixel part).
    /// Measured at (0, 0) and moved by the whole-pixel origin, exactly as the body's sprite is
    /// made and placed (see `trackDeviceBounds`).
    func bodyBounds(_ body: ToggleArt.Body, celestial o: CelestialPlacement) -> IntRect {
        let t = celestialTransform(CelestialPlacement(x: 0, y: 0, phaseX: 0, phaseY: 0))
        let shape = body.shape.rect.insetBy(dx: -body.strokeWidth, dy: -body.strokeWidth)
        var box = Rect(x: t.apply(Point(shape.minX, shape.minY)).x, y: t.apply(Point(shape.minX, shape.minY)).y,
                       width: shape.width * celestialUnit, height: shape.height * celestialUnit).roundedOut
        box = widened(box, byShadows: body.shadows)
        return IntRect(x: box.x + o.x, y: box.y + o.y, width: box.width + 1, height: box.height + 1)
    }

    // MARK: From the vector art

    /// A top-to-bottom gradient over a shape's frame with evenly spaced stops, blended the way
    /// SwiftUI blends them (premultiplied).
    static func verticalGradient(_ colors: [Color], over r: Rect) -> Paint {
        .linearGradient(LinearGradient(start: Point(r.minX, r.minY), end: Point(r.minX, r.maxY), colors: colors,
                                       interpolation: .premultiplied))
    }

    /// One cloud group's extent (artboard units).
    static func cloudBounds(_ group: ToggleArt.CloudGroup) -> Rect {
        let r = ToggleArt.cloudRadius
        let xs = group.circles.map(\.x), ys = group.circles.map(\.y)
        return Rect(x: xs.min()! - r, y: ys.min()! - r, width: xs.max()! - xs.min()! + 2 * r, height: ys.max()! - ys.min()! + 2 * r)
    }

    func drawStar(_ star: ToggleArt.Star, on canvas: Canvas, opacity: Double) {
        guard opacity > 0 else { return }
        let path = ToggleArt.starPath(star)
        if star.blur > 0 {
            let sigma = star.blur * trackUnit
            let margin = Double(GaussianBlur.extent(sigma: sigma)) / trackUnit
            canvas.beginLayer(bounds: Self.starBounds(star).insetBy(dx: -margin, dy: -margin))
            canvas.fill(path, .solid(ToggleArt.Palette.star))
            canvas.applyBlur(sigma: sigma)
            canvas.endLayer(opacity: opacity)
        } else {
            canvas.fill(path, .solid(ToggleArt.Palette.star), opacity: opacity)
        }
    }

    static func starBounds(_ star: ToggleArt.Star) -> Rect {
        Rect(x: star.center.x - star.radius, y: star.center.y - star.radius, width: 2 * star.radius, height: 2 * star.radius)
    }

    /// A sun or moon into the open layer that covers `bodyBounds(body, celestial: o)`: disc,
    /// gradient stroke, stacked shadows, (occlusion). The view's opacity applies to all of it:
    /// `ToggleSpriteCache` makes that layer its sprite and places it at the opacity.
    func drawBody(_ body: ToggleArt.Body, occlusion: Bool, onLayerOf canvas: Canvas, celestial o: CelestialPlacement) {
        canvas.transform = celestialTransform(o)
        let shape = body.shape
        canvas.fill(shape.path, .solid(body.fill))
        canvas.fill(shape.stroke(lineWidth: body.strokeWidth, alignment: .centered),
                    Self.verticalGradient(body.strokeGradient, over: shape.rect))
        for s in body.shadows {
            canvas.applyDropShadow(color: s.color, sigma: s.radius * celestialUnit,
                                   dx: s.dx * celestialUnit, dy: s.dy * celestialUnit)
        }
        if occlusion {
            canvas.fill(ToggleArt.moonOcclusion, .solid(ToggleArt.moonOcclusionColor))
        }
    }
}

/// A device coordinate as whole pixels plus `phase` / `ToggleRenderer.subpixelSteps` of a pixel.
struct SubpixelOffset: Equatable {
    var whole: Int
    var phase: Int
}

/// Where the celestial artboard's origin sits: whole device pixels plus a sub-pixel phase on each
/// axis (in 1/`ToggleRenderer.subpixelSteps` px).
struct CelestialPlacement: Equatable {
    var x: Int
    var y: Int
    var phaseX: Int
    var phaseY: Int

    var whole: (x: Int, y: Int) { (x, y) }
    /// One key per phase pair, for the sprite caches.
    var phaseKey: Int { phaseY * ToggleRenderer.subpixelSteps + phaseX }
}
