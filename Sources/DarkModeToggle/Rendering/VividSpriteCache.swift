import Raster

/// The Vivid style's pieces as sprites, and the one frame composition that uses them (the
/// counterpart of `ToggleSpriteCache`).
///
/// Pieces: the track's shadow, the clip capsule (used as the layer mask), the border, the halo
/// discs, each cloud bank, and the sun and the moon with their shadows. A retained instance
/// keeps them for the renderer's life (one scale); a one-frame instance borrows their memory
/// from the pool and rasterizes them all anew, through the same composition.
///
/// The track's shadow is composited first, under the track's content, instead of inside the
/// track's layer: src-over is associative, and the content's alpha (the capsule plus the
/// border) does not depend on the frame, so the shadow is the same for every frame. Where that
/// alpha is 1 the content hides the shadow completely; those pixels are left transparent, so the
/// sprite's runs cover only the thin band around the capsule.
final class VividSpriteCache {
    private unowned let renderer: VividRenderer
    private let pool: LayerPool
    private let retained: Bool
    /// Track frame and inner frame device bounds relative to the component origin.
    private let trackBounds: IntRect
    private let innerBounds: IntRect
    private let trackTransform: Transform
    private let measure: Canvas
    private var shadow, clip, border, halo, sun, moon: Sprite?
    private var clouds: [Sprite?] = Array(repeating: nil, count: VividArt.cloudGroups.count)
    private var borrowed: [Pixmap] = []

    init(renderer r: VividRenderer, pool: LayerPool, retained: Bool) {
        renderer = r
        self.pool = pool
        self.retained = retained
        trackTransform = r.trackTransform((0, 0))
        measure = Canvas(Pixmap(width: 0, height: 0), pool: pool)
        measure.transform = trackTransform
        trackBounds = measure.deviceBounds(of: ToggleArt.trackFrame)
        innerBounds = measure.deviceBounds(of: VividArt.innerFrame)
    }

    private func newPixmap(_ bounds: IntRect) -> Pixmap {
        if retained { return Pixmap(width: bounds.width, height: bounds.height) }
        let pix = pool.take(width: bounds.width, height: bounds.height)
        borrowed.append(pix)
        return pix
    }

    /// Renders a piece into its own pixmap covering `bounds` (device pixels, origin 0,0).
    private func sprite(_ bounds: IntRect, _ transform: Transform, _ draw: (Canvas) -> Void) -> Sprite {
        let pix = newPixmap(bounds)
        let c = Canvas(pix, pool: pool)
        c.retarget(pix, origin: (bounds.x, bounds.y))
        c.transform = transform
        draw(c)
        let s = Sprite(pixmap: pix, origin: (bounds.x, bounds.y))
        if retained { s.indexRuns() }
        return s
    }

    private func clipSprite() -> Sprite {
        if let s = clip { return s }
        let s = sprite(trackBounds, trackTransform) { $0.fill(VividArt.clipShape.path, .solid(.white)) }
        clip = s
        return s
    }

    private func borderSprite() -> Sprite {
        if let s = border { return s }
        let s = sprite(trackBounds, trackTransform) { $0.fill(VividRenderer.borderPath, VividRenderer.borderPaint) }
        border = s
        return s
    }

    /// The track's shadow alone: black at the shadow's alpha, from the alpha of the capsule with
    /// its border over it, blurred and offset, cut at the track frame, and cleared where the
    /// content is opaque.
    private func shadowSprite() -> Sprite {
        if let s = shadow { return s }
        let r = renderer, art = VividArt.trackShadow
        let sigma = art.radius * r.trackUnit
        let dx = Int((art.dx * r.trackUnit).rounded()), dy = Int((art.dy * r.trackUnit).rounded())
        let m = GaussianBlur.extent(sigma: sigma) + max(abs(dx), abs(dy))
        // The content's alpha on a plane with room for the blur.
        let plane = trackBounds.insetBy(dx: -m, dy: -m)
        let content = pool.take(width: plane.width, height: plane.height)
        let c = Canvas(content, pool: pool)
        c.retarget(content, origin: (plane.x, plane.y))
        c.transform = trackTransform
        c.fill(VividArt.clipShape.path, .solid(.white))
        c.fill(VividRenderer.borderPath, VividRenderer.borderPaint)
        let w = plane.width, h = plane.height
        var values = [Float](repeating: 0, count: w * h)
        var scratch: [Float] = []
        values.withUnsafeMutableBufferPointer { vb in
            let v = vb.baseAddress!
            for y in 0..<h {
                let sy = y - dy
                guard sy >= 0 && sy < h else { continue }
                let row = content.pixels + sy * content.stride
                for x in max(0, dx)..<min(w, w + dx) { v[y * w + x] = Float(row[x - dx] &>> 24) * (1 / 255) }
            }
            GaussianBlur.blur(v, width: w, height: h, sigma: sigma, scratch: &scratch)
        }
        let out = newPixmap(trackBounds)
        let tint = art.color.premultiplied8.packed
        for y in 0..<trackBounds.height {
            let py = y + trackBounds.y - plane.y
            let src = content.pixels + py * content.stride
            let dst = out.pixels + y * out.stride
            for x in 0..<trackBounds.width {
                let px = x + trackBounds.x - plane.x
                if src[px] &>> 24 == 255 { dst[x] = 0; continue }
                let k = UInt32(min(max(values[py * w + px], 0), 1) * 255 + 0.5)
                dst[x] = Self.scale(tint, k)
            }
        }
        pool.give(content)
        let s = Sprite(pixmap: out, origin: (trackBounds.x, trackBounds.y))
        if retained { s.indexRuns() }
        shadow = s
        return s
    }

    /// A premultiplied colour times k/255, per channel.
    private static func scale(_ c: UInt32, _ k: UInt32) -> UInt32 {
        let rb = ((c & 0x00FF_00FF) &* k &+ 0x0080_0080)
        let ag = (((c &>> 8) & 0x00FF_00FF) &* k &+ 0x0080_0080)
        let rb2 = ((rb &+ ((rb &>> 8) & 0x00FF_00FF)) &>> 8) & 0x00FF_00FF
        let ag2 = ((ag &+ ((ag &>> 8) & 0x00FF_00FF)) &>> 8) & 0x00FF_00FF
        return rb2 | (ag2 &<< 8)
    }

    private func haloSprite() -> Sprite {
        if let s = halo { return s }
        let center = VividArt.haloCenter(appearance: 0)
        let s = sprite(measure.deviceBounds(of: VividRenderer.haloBounds), trackTransform) { c in
            for h in VividArt.halos {
                c.fill(Path.circle(center: center, radius: h.diameter / 2), .solid(Color.white.withAlpha(h.opacity)))
            }
        }
        halo = s
        return s
    }

    private func cloudSprite(_ i: Int) -> Sprite {
        if let s = clouds[i] { return s }
        let group = VividArt.cloudGroups[i]
        let k = VividArt.sceneScale, f = VividArt.innerFrame
        let sceneToDevice = Transform.scale(k, k).concatenating(.translation(f.minX, f.minY)).concatenating(trackTransform)
        let s = sprite(measure.deviceBounds(of: VividRenderer.cloudBounds(group)), sceneToDevice) { c in
            for circle in group.circles {
                c.fill(Path.circle(center: circle.center, radius: circle.radius), .solid(VividArt.Palette.cloud))
            }
        }
        clouds[i] = s
        return s
    }

    private func bodySprite(moon isMoon: Bool) -> Sprite {
        if let s = isMoon ? moon : sun { return s }
        let r = renderer, zero = (x: 0, y: 0)
        let art = isMoon ? VividArt.moon : VividArt.sun
        let s = sprite(r.bodyBounds(art, celestial: zero), r.celestialTransform(zero)) { c in
            r.drawBody(art, on: c, celestial: zero)
        }
        if isMoon { moon = s } else { sun = s }
        return s
    }

    /// Draws `sprite` (positioned for origin 0,0) shifted to `origin` + (dx, dy).
    private func place(_ sprite: Sprite, on canvas: Canvas, at origin: (x: Int, y: Int), dx: Int = 0, dy: Int = 0,
                       opacity: Double = 1) {
        let home = sprite.origin
        sprite.origin = (home.x + origin.x + dx, home.y + origin.y + dy)
        canvas.draw(sprite, opacity: opacity)
        sprite.origin = home
    }

    /// Returns borrowed memory to the pool (one-frame instances).
    func releaseBorrowed() {
        for p in borrowed { pool.give(p) }
        borrowed.removeAll()
    }

    /// Composes one frame. A scene at opacity 1 (the other one invisible) is drawn straight into
    /// the track layer instead of its own layer (same result: src-over is associative).
    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin o: (x: Int, y: Int)) {
        let r = renderer
        let p = clamp(frame.appearance, 0, 1)
        let inner = innerBounds.offsetBy(dx: o.x, dy: o.y)
        canvas.transform = r.trackTransform(o)
        place(shadowSprite(), on: canvas, at: o)
        canvas.beginLayer(deviceBounds: inner)
        canvas.fill(deviceRect: inner, VividArt.Palette.daySky)
        if p > 0 { canvas.fill(deviceRect: inner, VividArt.Palette.nightSky.multipliedAlpha(p)) }
        place(haloSprite(), on: canvas, at: o, dx: r.haloShift(appearance: p))
        if p < 1 {
            if p > 0 { canvas.beginLayer(deviceBounds: inner) }
            for (i, group) in VividArt.cloudGroups.enumerated() {
                let float = frame.ambient.vividCloudOffsetsY.indices.contains(i) ? frame.ambient.vividCloudOffsetsY[i] : 0
                place(cloudSprite(i), on: canvas, at: o, dy: r.cloudShift(appearance: p, float: float), opacity: group.opacity)
            }
            if p > 0 { canvas.endLayer(opacity: 1 - p) }
        }
        if p > 0 {
            if p < 1 { canvas.beginLayer(deviceBounds: inner) }
            canvas.transform = r.sceneTransform(o, dy: r.nightShift(appearance: p))
            VividRenderer.drawStars(frame.ambient.vividStarScales, on: canvas)
            canvas.transform = r.trackTransform(o)
            if p < 1 { canvas.endLayer(opacity: p) }
        }
        let m = clipSprite()
        canvas.endLayer(mask: .alpha(m.pixmap, origin: (m.origin.x + o.x, m.origin.y + o.y)))
        place(borderSprite(), on: canvas, at: o)

        let c = r.celestialOrigin(o, position: frame.position)
        if p < 1 { place(bodySprite(moon: false), on: canvas, at: c, opacity: 1 - p) }
        if p > 0 { place(bodySprite(moon: true), on: canvas, at: c, opacity: p) }
    }
}
