import Raster

/// Pre-rendered pieces of the toggle at one scale, and the frame composition that uses them.
///
/// Rendered once (per renderer, i.e. per scale): the sky fills, outer borders and inner edges,
/// the scene mask, each cloud group, each star, and the sun and the moon with their shadows.
/// Rendered when the appearance changes: the track's under- and overlays for that appearance
/// (sky and borders cross-faded, inner edges cross-faded), by compositing the sprites above —
/// no rasterizing, no blurring. A frame where only the ambient clock moved composites sprites
/// only.
final class ToggleSpriteCache {
    private unowned let renderer: ToggleRenderer
    private let daySky, nightSky, dayBorder, nightBorder, dayEdge, nightEdge: Sprite
    private let sceneMask: Sprite
    private let clouds: [Sprite]
    private let stars: [Sprite]
    private let sun, moon: Sprite
    /// Track device bounds relative to the component origin.
    private let trackBounds: IntRect
    private var under: (p: Double, sprite: Sprite)?
    private var over: (p: Double, sprite: Sprite)?
    private let scratch: Canvas

    init(renderer r: ToggleRenderer, pool: LayerPool) {
        renderer = r
        let zero = (x: 0, y: 0)
        let track = r.trackTransform(zero)
        let measure = Canvas(Pixmap(width: 0, height: 0), pool: pool)
        measure.transform = track
        scratch = measure
        trackBounds = measure.deviceBounds(of: ToggleArt.trackFrame)

        func sprite(_ bounds: IntRect, _ transform: Transform, _ draw: (Canvas) -> Void) -> Sprite {
            let pix = Pixmap(width: bounds.width, height: bounds.height)
            let c = Canvas(pix, pool: pool)
            c.retarget(pix, origin: (bounds.x, bounds.y))
            c.transform = transform
            draw(c)
            return Sprite(pixmap: pix, origin: (bounds.x, bounds.y))
        }
        let outer = ToggleArt.trackOuter, inner = ToggleArt.trackInner
        let tb = trackBounds
        daySky = sprite(tb, track) { $0.fill(outer.path, .solid(ToggleArt.Palette.daySky)) }
        nightSky = sprite(tb, track) { $0.fill(outer.path, .solid(ToggleArt.Palette.nightSky)) }
        let border = outer.stroke(lineWidth: ToggleArt.outerBorderWidth, alignment: .centered)
        dayBorder = sprite(tb, track) { $0.fill(border, ToggleRenderer.verticalGradient(ToggleArt.dayOuterBorder, over: outer.rect)) }
        nightBorder = sprite(tb, track) { $0.fill(border, ToggleRenderer.verticalGradient(ToggleArt.nightOuterBorder, over: outer.rect)) }
        let edge = inner.stroke(lineWidth: ToggleArt.innerEdgeWidth, alignment: .inside)
        dayEdge = sprite(tb, track) { $0.fill(edge, ToggleRenderer.verticalGradient(ToggleArt.dayInnerEdge, over: inner.rect)) }
        nightEdge = sprite(tb, track) { $0.fill(edge, ToggleRenderer.verticalGradient(ToggleArt.nightInnerEdge, over: inner.rect)) }
        sceneMask = sprite(tb, track) { $0.fill(inner.path, .solid(.white)) }

        clouds = ToggleArt.cloudGroups.map { group in
            let b = measure.deviceBounds(of: ToggleRenderer.cloudBounds(group))
            return sprite(b, track) { c in
                for center in group.circles {
                    c.fill(Path.circle(center: center, radius: ToggleArt.cloudRadius), .solid(ToggleArt.Palette.cloud))
                }
            }
        }
        stars = ToggleArt.stars.map { star in
            let sigma = star.blur * r.trackUnit
            let margin = Double(GaussianBlur.extent(sigma: sigma)) / r.trackUnit
            let b = measure.deviceBounds(of: ToggleRenderer.starBounds(star).insetBy(dx: -margin, dy: -margin))
            return sprite(b, track) { c in r.drawStar(star, on: c, opacity: 1) }
        }
        let celestial = r.celestialTransform(zero)
        sun = sprite(r.bodyBounds(ToggleArt.sun, celestial: zero), celestial) { c in
            r.drawBody(ToggleArt.sun, occlusion: false, on: c, celestial: zero, opacity: 1)
        }
        moon = sprite(r.bodyBounds(ToggleArt.moon, celestial: zero), celestial) { c in
            r.drawBody(ToggleArt.moon, occlusion: true, on: c, celestial: zero, opacity: 1)
        }
    }

    /// Composites `parts` (sprite, opacity) into a sprite of the track's bounds.
    private func composite(_ reuse: Sprite?, _ parts: [(Sprite, Double)]) -> Sprite {
        let pix = reuse?.pixmap ?? Pixmap(width: trackBounds.width, height: trackBounds.height)
        pix.reset(width: trackBounds.width, height: trackBounds.height)
        scratch.retarget(pix, origin: (trackBounds.x, trackBounds.y))
        for (s, opacity) in parts where opacity > 0 { scratch.draw(s, opacity: opacity) }
        return reuse ?? Sprite(pixmap: pix, origin: (trackBounds.x, trackBounds.y))
    }

    private func underlay(_ p: Double) -> Sprite {
        if let u = under, u.p == p { return u.sprite }
        let s = composite(under?.sprite, [(daySky, 1), (nightSky, p), (dayBorder, 1 - p), (nightBorder, p)])
        under = (p, s)
        return s
    }

    private func overlay(_ p: Double) -> Sprite {
        if let o = over, o.p == p { return o.sprite }
        let s = composite(over?.sprite, [(dayEdge, 1 - p), (nightEdge, p)])
        over = (p, s)
        return s
    }

    /// Draws `sprite` (positioned for origin 0,0) shifted to `origin` + (dx, dy).
    private func place(_ sprite: Sprite, on canvas: Canvas, at origin: (x: Int, y: Int), dx: Int = 0, dy: Int = 0,
                       opacity: Double = 1, mask: LayerMask? = nil) {
        let home = sprite.origin
        sprite.origin = (home.x + origin.x + dx, home.y + origin.y + dy)
        canvas.draw(sprite, opacity: opacity, mask: mask)
        sprite.origin = home
    }

    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin o: (x: Int, y: Int)) {
        let r = renderer
        let p = clamp(frame.appearance, 0, 1)
        let track = trackBounds.offsetBy(dx: o.x, dy: o.y)
        canvas.transform = r.trackTransform(o)
        canvas.beginLayer(deviceBounds: track)
        place(underlay(p), on: canvas, at: o)
        canvas.beginLayer(deviceBounds: track)
        if p < 1 {
            canvas.beginLayer(deviceBounds: track)
            canvas.fill(Path.rect(ToggleArt.trackFrame), .solid(ToggleArt.Palette.daySky))
            for (i, group) in ToggleArt.cloudGroups.enumerated() {
                place(clouds[i], on: canvas, at: o, dy: r.cloudShift(frame.ambient.cloudOffsetsY[i]), opacity: group.opacity)
            }
            canvas.endLayer(opacity: 1 - p)
        }
        if p > 0 {
            canvas.beginLayer(deviceBounds: track)
            canvas.fill(Path.rect(ToggleArt.trackFrame), .solid(ToggleArt.Palette.nightSky))
            for (i, star) in ToggleArt.stars.enumerated() {
                let a = frame.ambient.starOpacities[star.group]
                if a > 0 { place(stars[i], on: canvas, at: o, opacity: a) }
            }
            canvas.endLayer(opacity: p)
        }
        canvas.endLayer(mask: .alpha(sceneMask.pixmap, origin: (sceneMask.origin.x + o.x, sceneMask.origin.y + o.y)))
        place(overlay(p), on: canvas, at: o)
        canvas.endLayer()

        let c = r.celestialOrigin(o, position: frame.position)
        if p < 1 { place(sun, on: canvas, at: c, opacity: 1 - p) }
        if p > 0 { place(moon, on: canvas, at: c, opacity: p) }
    }
}
