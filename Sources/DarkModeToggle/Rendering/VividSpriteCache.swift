import Raster

/// The Vivid style's pieces as sprites, and the one frame composition that uses them (the
/// counterpart of `ToggleSpriteCache`).
///
/// Shadows. SwiftUI applies the track's `.shadow` to each drawing inside it separately (there
/// is no `compositingGroup`): every clipped leaf — the day sky, the night sky, the halo discs,
/// each cloud bank — and the border casts its own black shadow, drawn just under that leaf and
/// over the leaves before it; outside the capsule the shadows stack (that is why the
/// reference's shadow under the track is about twice as dark as one 0.28 shadow). Here:
/// - *outer shadows*: everything the leaves' shadows put outside the capsule, stacked, as one
///   sprite for the light end and one for the dark end (cleared where the capsule is opaque,
///   so their runs cover only the band around it); between the ends, the day sky's shadow
///   plus the light and dark extras at opacities 1 − p and p. The clouds' and halos' outer
///   shadows are taken at their rest places (float 0, halo at its end): an approximation.
/// - *inner shadows*: each halo/cloud sprite carries its own shadow under it (cast by the
///   unclipped leaf, clipped with the content), the border sprite carries its shadow under it,
///   and between the ends the night sky's shadow darkens the day sky at opacity p.
/// The stars cast no shadow here (six small stars on the night sky: a known omission).
///
/// A retained instance keeps the pieces for the renderer's life (one scale); a one-frame
/// instance borrows their memory from the pool and rasterizes them anew, through the same
/// composition.
final class VividSpriteCache: ToggleComposition {
    private unowned let renderer: VividRenderer
    let maker: SpriteMaker
    /// Track frame and inner frame device bounds relative to the component origin.
    private let trackBounds: IntRect
    private let innerBounds: IntRect
    /// Measures device bounds under the track transform of a component at (0, 0).
    private let measure: Canvas
    private var trackTransform: Transform { measure.transform }
    private let bodies = BodySprites()
    private var border, halo, capShadow, capShadowRing, outerLight, outerDark, extraLight, extraDark: Sprite?
    /// The capsule's coverage, kept as an 8-bit plane (`clipPlane`).
    private var clip: AlphaPlane?
    /// The capsule's coverage as a sprite, until `clipPlane` and `capsuleShadow` are made from it.
    private var capsule: Sprite?
    private var clouds: [Sprite?] = Array(repeating: nil, count: VividArt.cloudGroups.count)
    private var cloudLeaves: [Sprite?] = Array(repeating: nil, count: VividArt.cloudGroups.count)
    private var blurScratch: [Float] = []

    init(renderer r: VividRenderer, pool: LayerPool, retained: Bool) {
        renderer = r
        maker = SpriteMaker(pool: pool, retained: retained)
        measure = r.measuringCanvas(pool: pool)
        trackBounds = measure.deviceBounds(of: ToggleArt.trackFrame)
        innerBounds = measure.deviceBounds(of: VividArt.innerFrame)
    }

    /// The capsule's coverage as a sprite: the capsule's shadow is cast from it and `clipPlane`
    /// made from it; held until both are made (once each per composition).
    private func clipSprite() -> Sprite {
        if let s = capsule { return s }
        let s = maker.sprite(trackBounds, trackTransform) { $0.fill(VividArt.clipShape.path, .solid(.white)) }
        capsule = s
        return s
    }

    /// Lets the capsule's sprite go once neither `clipPlane` nor `capsuleShadow` needs it.
    private func releaseClipSprite() {
        if clip != nil && capShadow != nil { capsule = nil }
    }

    /// The capsule's coverage as a kept 8-bit plane: the inner layer's mask every frame, and
    /// where the capsule is opaque for the pieces cut there.
    private func clipPlane() -> AlphaPlane {
        if let m = clip { return m }
        let m = AlphaPlane(alphaOf: clipSprite())
        clip = m
        releaseClipSprite()
        return m
    }

    // MARK: Shadows

    /// The black shadow (`VividArt.trackShadow`) a sprite's alpha casts, as a sprite covering
    /// the sprite's bounds grown by the blur and the offset, or cut to `cut`.
    private func shadow(of src: Sprite, cut: IntRect? = nil) -> Sprite {
        let r = renderer, art = VividArt.trackShadow
        let sigma = art.radius * r.trackUnit
        let dx = Int((art.dx * r.trackUnit).rounded()), dy = Int((art.dy * r.trackUnit).rounded())
        let m = GaussianBlur.extent(sigma: sigma) + max(abs(dx), abs(dy))
        let full = src.bounds.insetBy(dx: -m, dy: -m)
        // Blur only around the content (a cloud bank's leaf covers the whole track frame but
        // its content a fraction of it): the plane is the content's box grown by the margin,
        // its top-left kept on the full plane's f×f block grid so the reduced-resolution blur
        // averages the same blocks. Outside lies only what rounds to 0 anyway.
        let content = src.contentBounds
        let f = max(1, Int(sigma / 4))
        var plane = content.isEmpty ? IntRect(x: full.x, y: full.y, width: 0, height: 0)
                                    : content.insetBy(dx: -m, dy: -m).intersection(full)
        let ax = (plane.x - full.x) % f, ay = (plane.y - full.y) % f
        plane = IntRect(x: plane.x - ax, y: plane.y - ay, width: plane.width + ax, height: plane.height + ay)
        let w = plane.width, h = plane.height
        let ob = (cut ?? full).intersection(plane)
        let out = maker.newPixmap(ob, cleared: false)     // every pixel is written below
        let tint = art.color.premultiplied8.packed
        let sp = src.pixmap
        // The tint at each of the 256 alpha levels; the source's columns in the plane.
        let lut = UnsafeMutablePointer<UInt32>.allocate(capacity: 256)
        let levels = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, ob.width))
        defer { lut.deallocate(); levels.deallocate() }
        for k in 0..<256 { lut[k] = Blend.scale(tint, UInt32(k)) }
        let x0 = max(0, plane.x - src.origin.x - dx), x1 = min(sp.width, plane.maxX - src.origin.x - dx)
        let base = src.origin.x + dx - plane.x
        // The alpha of each source row at its place in the plane (the row's other columns stay
        // zero: every load writes the same columns), blurred; then each output row (`ob` lies
        // inside `plane`) as levels (a loop that vectorises) and their tints (a run of one
        // level, the blur's flat inside and outside, as one repeated value).
        GaussianBlur.blur(width: w, height: h, sigma: sigma, scratch: &blurScratch,
                          outputRows: (ob.y - plane.y)..<(ob.maxY - plane.y),
                          load: { py, row in
            let y = py + plane.y - src.origin.y - dy
            guard y >= 0 && y < sp.height && x1 > x0 else { return false }
            let pixels = sp.pixels + y * sp.stride
            for x in x0..<x1 { row[base + x] = Float(pixels[x] &>> 24) * (1 / 255) }
            return true
        }, store: { py, v in
            Blend.quantize(v + (ob.x - plane.x), count: ob.width, into: levels)
            Blend.lookUpSpan(out.pixels + (py + plane.y - ob.y) * out.stride, keys: levels, count: ob.width, table: lut)
        })
        return Sprite(pixmap: out, origin: (ob.x, ob.y))
    }

    /// Sprites composited in order (src-over) into one sprite covering `bounds`; with
    /// `cutInterior`, pixels where the capsule is opaque are cleared afterwards.
    ///
    /// A first part at full opacity that covers `bounds` exactly (a shadow, under what casts
    /// it) is copied in rather than composited onto a cleared pixmap: src-over onto
    /// transparent pixels gives the source itself.
    private func stack(_ bounds: IntRect, _ parts: [(Sprite, Double)], cutInterior: Bool) -> Sprite {
        let copiesFirst = parts.first.map { $0.0.bounds == bounds && $0.1 == 1 } ?? false
        let pix = maker.newPixmap(bounds, cleared: !copiesFirst)
        if copiesFirst { pix.copy(pix.bounds, from: parts[0].0.pixmap) }
        let c = Canvas(pix, pool: pool)
        c.retarget(pix, origin: (bounds.x, bounds.y))
        for (s, a) in parts.dropFirst(copiesFirst ? 1 : 0) { c.draw(s, opacity: a) }
        if cutInterior { pix.clear(whereFull: clipPlane(), origin: (bounds.x, bounds.y)) }
        var s = Sprite(pixmap: pix, origin: (bounds.x, bounds.y))
        if retained {
            s = s.trimmed()
            s.indexRuns()
        }
        return s
    }

    /// A leaf drawn (track transform) and clipped to the capsule, covering the track frame: drawn
    /// straight into a transparent pixmap and kept through the capsule's plane, the bytes of a
    /// layer composited through the capsule onto it (`Pixmap.keep(through:origin:)`).
    private func clippedLeaf(_ draw: (Canvas) -> Void) -> Sprite {
        let m = clipPlane()
        let pix = pool.take(width: trackBounds.width, height: trackBounds.height)
        let c = Canvas(pix, pool: pool)
        c.retarget(pix, origin: (trackBounds.x, trackBounds.y))
        c.transform = trackTransform
        draw(c)
        pix.keep(through: m, origin: (trackBounds.x, trackBounds.y))
        return Sprite(pixmap: pix, origin: (trackBounds.x, trackBounds.y))
    }

    /// The shadow of a clipped leaf (cut to the track frame); the leaf's memory goes back to the pool.
    private func clippedLeafShadow(_ draw: (Canvas) -> Void) -> Sprite {
        let leaf = clippedLeaf(draw)
        let s = shadow(of: leaf, cut: trackBounds)
        pool.give(leaf.pixmap)
        return s
    }

    /// The day sky's shadow: the capsule's, cut to the track frame (not cleared inside).
    private func capsuleShadow() -> Sprite {
        if let s = capShadow { return s }
        let s = shadow(of: clipSprite(), cut: trackBounds)
        if retained { s.indexRuns() }
        capShadow = s
        releaseClipSprite()
        return s
    }

    /// The capsule's shadow without the pixels the inner layer covers exactly: inside the inner
    /// frame where the capsule mask is 255. The inner layer starts with the opaque day sky over
    /// the whole inner frame and stays opaque, so there it replaces what lies beneath. Drawn
    /// under the inner layer while cross-fading (the whole shadow for a one-frame composition,
    /// or if the day sky were translucent).
    private func capsuleShadowRing() -> Sprite {
        if let s = capShadowRing { return s }
        let sh = capsuleShadow()
        guard retained, VividArt.Palette.daySky.premultiplied8.packed >> 24 == 255 else { return sh }
        let m = clipPlane(), inner = innerBounds
        let s = sh.restricted { x, y in
            let dx = x + sh.origin.x, dy = y + sh.origin.y
            guard dx >= inner.minX && dx < inner.maxX && dy >= inner.minY && dy < inner.maxY else { return true }
            return m.value(x: dx, y: dy) != 255
        }
        capShadowRing = s
        return s
    }

    /// The cross-fading inner sky by table: the capsule's shadow as levels (its alpha) and the
    /// shadow pixel of each level. Inside the inner frame the sky is the day sky, the shadow at
    /// opacity p over it, the night sky at opacity p over that: per pixel a function of the
    /// shadow's pixel, and so of its level when each level has one pixel (a one-colour tint).
    /// Kept compositions only; nil when some level has two pixels.
    struct SkyKey {
        let levels: AlphaPlane
        /// The shadow's pixel at each level (0 for levels it does not use).
        let shadow: [UInt32]

        /// What the sky's three passes make of each level at appearance p (0 < p < 1): the
        /// same operations, in the same order, as `Canvas.fill(deviceRect:)` and `Canvas.draw`.
        func table(appearance p: Double) -> [UInt32] {
            let day = VividArt.Palette.daySky.premultiplied8.packed
            let night = VividArt.Palette.nightSky.multipliedAlpha(p).premultiplied8.packed
            let k = Canvas.opacityLevel(p)
            return shadow.map { s in
                let shaded = k == 0 ? day : Blend.over(k == 255 ? s : Blend.scale(s, k), day)
                return Blend.over(night, shaded)
            }
        }
    }
    private var sky: SkyKey??

    private func skyKey() -> SkyKey? {
        if let k = sky { return k }
        var key: SkyKey? = nil
        if retained {
            let sh = capsuleShadow()
            var shadow = [UInt32](repeating: 0, count: 256), seen = [Bool](repeating: false, count: 256)
            seen[0] = true
            var oneColourPerLevel = true
            let pix = sh.pixmap
            rows: for y in 0..<pix.height {
                let row = pix.pixels + y * pix.stride
                for x in 0..<pix.width {
                    let v = row[x], a = Int(v >> 24)
                    if seen[a] {
                        if shadow[a] != v { oneColourPerLevel = false; break rows }
                    } else {
                        seen[a] = true
                        shadow[a] = v
                    }
                }
            }
            if oneColourPerLevel { key = SkyKey(levels: AlphaPlane(alphaOf: sh), shadow: shadow) }
        }
        sky = .some(key)
        return key
    }

    private func haloLeafShadow(appearance: Double) -> Sprite {
        let dx = Double(renderer.haloShift(appearance: appearance)) / renderer.trackUnit
        let c = VividArt.haloCenter(appearance: 0)
        return clippedLeafShadow { canvas in
            for h in VividArt.halos {
                canvas.fill(Path.circle(center: Point(c.x + dx, c.y), radius: h.diameter / 2), .solid(Color.white.withAlpha(h.opacity)))
            }
        }
    }

    /// What the light end's leaves other than the day sky put outside the capsule: the cloud
    /// banks at rest and the halo.
    private func lightExtras() -> [Sprite] {
        var parts: [Sprite] = []
        for i in VividArt.cloudGroups.indices {
            let cloud = cloudLeaf(i)
            let dy = renderer.cloudShift(appearance: 0, float: 0)
            parts.append(clippedLeafShadow { c in
                let home = cloud.origin
                cloud.origin = (home.x, home.y + dy)
                c.draw(cloud, opacity: VividArt.cloudGroups[i].opacity)
                cloud.origin = home
            })
        }
        parts.append(haloLeafShadow(appearance: 0))
        return parts
    }

    /// Outer shadows: light end, dark end, and the extras used between them.
    private func outer(dark: Bool) -> Sprite {
        if let s = dark ? outerDark : outerLight { return s }
        let cap = capsuleShadow()
        let extras = dark ? [cap, haloLeafShadow(appearance: 1)] : lightExtras()
        let s = stack(trackBounds, [(cap, 1)] + extras.map { ($0, 1) }, cutInterior: true)
        if dark { outerDark = s } else { outerLight = s }
        return s
    }

    private func outerExtra(dark: Bool) -> Sprite {
        if let s = dark ? extraDark : extraLight { return s }
        let extras = dark ? [capsuleShadow(), haloLeafShadow(appearance: 1)] : lightExtras()
        let s = stack(trackBounds, extras.map { ($0, 1) }, cutInterior: true)
        if dark { extraDark = s } else { extraLight = s }
        return s
    }

    // MARK: Pieces with their own shadow under them

    private func borderSprite() -> Sprite {
        if let s = border { return s }
        let line = maker.sprite(trackBounds, trackTransform) { $0.fill(VividRenderer.borderPath, VividRenderer.borderPaint) }
        let s = stack(trackBounds, [(shadow(of: line, cut: trackBounds), 1), (line, 1)], cutInterior: false)
        border = s
        return s
    }

    private func haloSprite() -> Sprite {
        if let s = halo { return s }
        let center = VividArt.haloCenter(appearance: 0)
        let discs = maker.sprite(measure.deviceBounds(of: VividRenderer.haloBounds), trackTransform) { c in
            for h in VividArt.halos {
                c.fill(Path.circle(center: center, radius: h.diameter / 2), .solid(Color.white.withAlpha(h.opacity)))
            }
        }
        let sh = shadow(of: discs)
        let s = stack(sh.bounds, [(sh, 1), (discs, 1)], cutInterior: false)
        halo = s
        return s
    }

    /// One cloud bank's circles at full opacity (no shadow); rasterized once, used by the
    /// bank's sprite and by the outer shadows.
    private func cloudLeaf(_ i: Int) -> Sprite {
        if let s = cloudLeaves[i] { return s }
        let s = rasterCloudLeaf(i)
        cloudLeaves[i] = s
        return s
    }

    private func rasterCloudLeaf(_ i: Int) -> Sprite {
        let group = VividArt.cloudGroups[i]
        let k = VividArt.sceneScale, f = VividArt.innerFrame
        let sceneToDevice = Transform.scale(k, k).concatenating(.translation(f.minX, f.minY)).concatenating(trackTransform)
        return maker.sprite(measure.deviceBounds(of: VividRenderer.cloudBounds(group)), sceneToDevice) { c in
            for circle in group.circles {
                c.fill(Path.circle(center: circle.center, radius: circle.radius), .solid(VividArt.Palette.cloud))
            }
        }
    }

    /// A cloud bank over its own shadow, both at full strength: the bank's opacity applies to
    /// the pair (the reference shows no shadow through the translucent back bank).
    private func cloudSprite(_ i: Int) -> Sprite {
        if let s = clouds[i] { return s }
        let leaf = cloudLeaf(i)
        let sh = shadow(of: leaf)
        let s = stack(sh.bounds, [(sh, 1), (leaf, 1)], cutInterior: false)
        clouds[i] = s
        return s
    }

    /// The sun's or moon's sprite (made if new): what it covers, for dirty rectangles.
    func bodyContent(moon: Bool) -> IntRect { bodySprite(moon: moon).contentBounds }

    private func bodySprite(moon isMoon: Bool) -> Sprite {
        bodies.sprite(moon: isMoon) {
            let r = renderer, zero = (x: 0, y: 0)
            let art = isMoon ? VividArt.moon : VividArt.sun
            return maker.layerSprite(r.bodyBounds(art, celestial: zero), r.celestialTransform(zero)) { c in
                r.drawBody(art, onLayerOf: c, celestial: zero)
            }
        }
    }

    /// The inner layer's content: the skies (with the capsule's shadow while cross-fading),
    /// the halo, the cloud banks at 1 − p and the stars at p, clipped to the inner frame.
    private func drawInner(_ frame: ToggleFrame, appearance p: Double, on canvas: Canvas, at o: (x: Int, y: Int)) {
        let r = renderer
        let inner = innerBounds.offsetBy(dx: o.x, dy: o.y)
        if p > 0 && p < 1 && !renderer.composesTheLongWay, let key = skyKey() {
            // The three passes below in one: their result depends only on the shadow's level.
            key.table(appearance: p).withUnsafeBufferPointer { t in
                canvas.store(deviceRect: inner, table: t.baseAddress!, keyedBy: key.levels, offset: o)
            }
        } else {
            // At the dark end the night sky (opaque) covers the day sky exactly.
            if p < 1 || VividArt.Palette.nightSky.a < 1 { canvas.fill(deviceRect: inner, VividArt.Palette.daySky) }
            if p > 0 {
                if p < 1 { SpriteMaker.place(capsuleShadow(), on: canvas, at: o, opacity: p) }
                canvas.fill(deviceRect: inner, VividArt.Palette.nightSky.multipliedAlpha(p))
            }
        }
        SpriteMaker.place(haloSprite(), on: canvas, at: o, dx: r.haloShift(appearance: p))
        if p < 1 {
            if p > 0 { canvas.beginLayer(deviceBounds: inner) }
            for i in VividArt.cloudGroups.indices {
                let float = frame.ambient.vividCloudOffsetsY.indices.contains(i) ? frame.ambient.vividCloudOffsetsY[i] : 0
                SpriteMaker.place(cloudSprite(i), on: canvas, at: o, dy: r.cloudShift(appearance: p, float: float),
                      opacity: VividArt.cloudGroups[i].opacity)
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
    }

    /// Where the capsule's coverage is 255 across its straight section, relative to the
    /// component's origin: a rectangle in which the inner layer, opaque from its first fill
    /// (an opaque sky, or the table of the opaque skies), composites as itself; the border and
    /// the sun or moon go over it, and the outer shadows under it do not show through. Kept
    /// compositions with opaque skies only, drawn the short way; nil otherwise.
    func restingCore() -> IntRect? {
        if renderer.composesTheLongWay { return nil }
        if let c = core { return c }
        let opaqueSkies = VividArt.Palette.daySky.premultiplied8.packed >> 24 == 255
            && VividArt.Palette.nightSky.premultiplied8.packed >> 24 == 255
        let found = retained && opaqueSkies
            ? clipPlane().fullRect(throughColumn: innerBounds.x + innerBounds.width / 2, within: innerBounds) : nil
        core = .some(found)
        return found
    }
    private var core: IntRect??

    /// The pieces `frame` needs in three independent parts: part 0 the outer shadows (the
    /// capsule's and the leaves' blurs), part 1 the capsule's coverage, the halo, the cloud
    /// banks and the border, part 2 the visible sun and moon. A cloud bank's leaf is rasterized
    /// by parts 0 and 1 (the outer shadow of the light end casts from it too), each into its
    /// own composition.
    func makePieces(_ frame: ToggleFrame, part: Int, of parts: Int) {
        precondition(parts == 3, "the Vivid's pieces come in three parts")
        let p = clamp(frame.appearance, 0, 1)
        switch part {
        case 0:
            if p == 0 || p == 1 {
                _ = outer(dark: p == 1)
            } else {
                _ = renderer.composesTheLongWay ? capsuleShadow() : capsuleShadowRing()
                _ = outerExtra(dark: false)
                _ = outerExtra(dark: true)
            }
        case 1:
            _ = clipPlane()
            _ = haloSprite()
            _ = borderSprite()
            if p < 1 { for i in VividArt.cloudGroups.indices { _ = cloudSprite(i) } }
        default:
            if p < 1 { _ = bodySprite(moon: false) }
            if p > 0 { _ = bodySprite(moon: true) }
        }
    }

    func adopt(_ other: ToggleComposition) {
        guard let o = other as? VividSpriteCache else { return }
        border = border ?? o.border
        halo = halo ?? o.halo
        capShadow = capShadow ?? o.capShadow
        capShadowRing = capShadowRing ?? o.capShadowRing
        outerLight = outerLight ?? o.outerLight
        outerDark = outerDark ?? o.outerDark
        extraLight = extraLight ?? o.extraLight
        extraDark = extraDark ?? o.extraDark
        clip = clip ?? o.clip
        for i in clouds.indices {
            clouds[i] = clouds[i] ?? o.clouds[i]
            cloudLeaves[i] = cloudLeaves[i] ?? o.cloudLeaves[i]
        }
        bodies.adopt(o.bodies)
    }

    /// Composes one frame. A scene at opacity 1 (the other one invisible) is drawn straight into
    /// the track layer instead of its own layer (same result: src-over is associative).
    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin o: (x: Int, y: Int)) {
        let r = renderer
        let p = clamp(frame.appearance, 0, 1)
        let inner = innerBounds.offsetBy(dx: o.x, dy: o.y)
        canvas.transform = r.trackTransform(o)
        if p == 0 || p == 1 {
            SpriteMaker.place(outer(dark: p == 1), on: canvas, at: o)
        } else {
            SpriteMaker.place(renderer.composesTheLongWay ? capsuleShadow() : capsuleShadowRing(), on: canvas, at: o)
            SpriteMaker.place(outerExtra(dark: false), on: canvas, at: o, opacity: 1 - p)
            SpriteMaker.place(outerExtra(dark: true), on: canvas, at: o, opacity: p)
        }
        // The inner layer, through the capsule. At rest, where the capsule is opaque
        // (`directCore`), the layer is opaque too and composites as itself, so there it is drawn
        // straight onto the canvas; around that, as a layer. (While cross-fading the layer's
        // nested layers and tables, made again for each piece, cost more than the composite
        // saved: 0.30 -> 0.31 ms a frame, `bench --raster`.)
        let mask = LayerMask.plane(clipPlane(), offset: o)
        if p == 0 || p == 1, let core = restingCore()?.offsetBy(dx: o.x, dy: o.y),
           !canvas.drawableBounds.intersection(core).isEmpty {
            // Each piece repeats the layer's setup: only the pieces the clip reaches (a small
            // dirty rectangle away from the core is drawn as one layer, as before).
            let clip = canvas.clip
            for strip in inner.subtracting(core) where !canvas.drawableBounds.intersection(strip).isEmpty {
                canvas.clip = clip.intersection(strip)
                canvas.beginLayer(deviceBounds: inner)
                drawInner(frame, appearance: p, on: canvas, at: o)
                canvas.endLayer(mask: mask)
                canvas.clip = clip
            }
            canvas.clip = clip.intersection(core)
            drawInner(frame, appearance: p, on: canvas, at: o)
            canvas.clip = clip
        } else {
            canvas.beginLayer(deviceBounds: inner)
            drawInner(frame, appearance: p, on: canvas, at: o)
            canvas.endLayer(mask: mask)
        }
        SpriteMaker.place(borderSprite(), on: canvas, at: o)

        let c = r.celestialOrigin(o, position: frame.position)
        if p < 1 { SpriteMaker.place(bodySprite(moon: false), on: canvas, at: c, opacity: 1 - p) }
        if p > 0 { SpriteMaker.place(bodySprite(moon: true), on: canvas, at: c, opacity: p) }
    }
}
