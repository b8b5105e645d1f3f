import Raster

/// The toggle's pieces as sprites, and the one frame composition that uses them.
///
/// Pieces are rendered from the vector art on first use: the sky fills, outer borders and
/// inner edges, the scene mask, each cloud group, each star, and the sun and the moon with their
/// stacked shadows. The moving pieces (clouds, sun, moon) are kept once per sub-pixel phase they
/// have been drawn at (at most `ToggleRenderer.subpixelSteps` per axis they move on), so motion
/// is exact to 1/16 px and a frame at a phase seen before composites sprites only. Kept pieces know where their content is (`Sprite.indexRuns`), so a thin
/// border or a disc costs what it covers when composited.
///
/// A renderer keeps one instance per scale, so a frame where only the ambient clock moved
/// composites sprites only. Rendering "from scratch" uses a fresh instance for the frame: the
/// same composition, with every piece rasterized (and blurred) anew — so the two paths differ
/// only in what is remembered, which the tests check.
final class ToggleSpriteCache: ToggleComposition {
    private unowned let renderer: ToggleRenderer
    let maker: SpriteMaker
    /// Track device bounds relative to the component origin.
    private let trackBounds: IntRect
    /// The device pixels the track frame covers entirely (origin 0, 0).
    private let trackInterior: IntRect
    /// Measures device bounds under the track transform of a component at (0, 0).
    private let measure: Canvas
    private var trackTransform: Transform { measure.transform }
    /// The track-sized pieces (skies, borders, edges, scene mask), rendered on first use.
    private enum TrackPiece: Hashable { case sky(night: Bool), skyRing(night: Bool), daySkyRim, border(night: Bool), edge(night: Bool) }
    private var trackPieces: [TrackPiece: Sprite] = [:]
    /// Per cloud group, its sprites by vertical phase.
    private var clouds: [[Int: Sprite]] = Array(repeating: [:], count: ToggleArt.cloudGroups.count)
    private var stars: [Sprite?] = Array(repeating: nil, count: ToggleArt.stars.count)
    /// Sun and moon sprites by `CelestialPlacement.phaseKey`.
    private let bodies = BodySprites()

    init(renderer r: ToggleRenderer, pool: LayerPool, retained: Bool) {
        renderer = r
        maker = SpriteMaker(pool: pool, retained: retained)
        measure = r.measuringCanvas(pool: pool)
        trackBounds = measure.deviceBounds(of: ToggleArt.trackFrame)
        let f = ToggleArt.trackFrame, t = measure.transform
        let a = t.apply(Point(f.minX, f.minY)), b = t.apply(Point(f.maxX, f.maxY))
        trackInterior = Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y).roundedIn
    }

    /// A kept track piece, or the piece `draw` paints (then kept). Looking up only reads.
    private func trackPiece(_ key: TrackPiece, _ draw: (Canvas) -> Void) -> Sprite {
        if let s = trackPieces[key] { return s }
        let s = maker.sprite(trackBounds, trackTransform, draw)
        trackPieces[key] = s
        return s
    }

    private func sky(night: Bool) -> Sprite {
        trackPiece(.sky(night: night)) { c in
            c.fill(ToggleArt.trackOuter.path, .solid(night ? ToggleArt.Palette.nightSky : ToggleArt.Palette.daySky))
        }
    }

    /// The sky without the pixels where the scene mask is 255: a scene at rest (appearance 0
    /// or 1) is opaque there and covers whatever lies under it exactly, so those pixels of
    /// the sky need not be drawn. The sky's own pixels, with runs that skip the interior (a
    /// one-frame composition has no runs and draws the whole sky).
    private func skyRing(night: Bool) -> Sprite {
        if let s = trackPieces[.skyRing(night: night)] { return s }
        let sky = sky(night: night)
        guard retained else { return sky }
        let m = mask()
        let s = sky.restricted { x, y in m.value(x: x + sky.origin.x, y: y + sky.origin.y) != 255 }
        trackPieces[.skyRing(night: night)] = s
        return s
    }

    /// The day sky under the night sky at the dark end: only where the night sky is not opaque
    /// (its anti-aliased rim) and the scene does not cover it; everywhere else the night sky,
    /// at opacity 1, covers it exactly.
    private func daySkyRim() -> Sprite {
        if let s = trackPieces[.daySkyRim] { return s }
        let day = sky(night: false)
        guard retained else { return day }
        let night = sky(night: true), m = mask()
        let s = day.restricted { x, y in
            let dx = x + day.origin.x, dy = y + day.origin.y
            return m.value(x: dx, y: dy) != 255 && night.pixel(x: dx, y: dy) >> 24 != 255
        }
        trackPieces[.daySkyRim] = s
        return s
    }

    /// Whether the day piece `key` and its night counterpart cover the same pixels alike
    /// (`Canvas.alike`), found once per pair of kept pieces (both must exist).
    private func alike(_ key: TrackPiece) -> Bool {
        if let a = pairsAlike[key] { return a }
        let night: TrackPiece
        switch key {
        case .sky: night = .sky(night: true)
        case .skyRing: night = .skyRing(night: true)
        case .border: night = .border(night: true)
        case .edge: night = .edge(night: true)
        case .daySkyRim: return false
        }
        guard let a = trackPieces[key], let b = trackPieces[night] else { return false }
        let same = Canvas.alike(a, b)
        pairsAlike[key] = same
        return same
    }
    private var pairsAlike: [TrackPiece: Bool] = [:]

    /// The day and night skies' colours where the scene mask is 255, when at every such pixel
    /// each sky is that one opaque colour and neither outer border reaches (checked once on the
    /// kept pieces); nil otherwise, and for a one-frame composition. A cross-fading frame then
    /// draws the skies only around those pixels (`skyRing`) and composites the scenes there over
    /// the skies' blend as a colour (`LayerMask.planeOverBackdrop`): the same bytes as drawing
    /// both skies everywhere and the scenes over them.
    private lazy var interiorSkies: (day: UInt32, night: UInt32)? = findInteriorSkies()

    /// Whether cross-fading frames skip the skies under the scenes (for tests).
    var skipsInteriorSkies: Bool { interiorSkies != nil }

    private func findInteriorSkies() -> (day: UInt32, night: UInt32)? {
        guard retained else { return nil }
        let m = mask(), day = sky(night: false), night = sky(night: true)
        let borders = [border(night: false), border(night: true)]
        var colors: (day: UInt32, night: UInt32)?
        for y in 0..<m.height {
            for x in 0..<m.width where m.bytes[y * m.width + x] == 255 {
                let dx = x + m.origin.x, dy = y + m.origin.y
                let d = day.pixel(x: dx, y: dy), n = night.pixel(x: dx, y: dy)
                guard d >> 24 == 255, n >> 24 == 255, borders.allSatisfy({ $0.pixel(x: dx, y: dy) == 0 }) else { return nil }
                if let c = colors {
                    guard c.day == d && c.night == n else { return nil }
                } else {
                    colors = (d, n)
                }
            }
        }
        return colors
    }

    /// What the sun's or moon's sprite covers, for dirty rectangles: the sprite at phase 0
    /// (made if it is not kept yet; other phases differ by less than a pixel). Always phase 0,
    /// so a frame's dirty rectangles depend on the two frames alone, not on which phases the
    /// cache happened to make first.
    func bodyContent(moon: Bool) -> IntRect {
        body(moon: moon, at: CelestialPlacement(x: 0, y: 0, phaseX: 0, phaseY: 0)).contentBounds
    }

    private func border(night: Bool) -> Sprite {
        trackPiece(.border(night: night)) { c in
            let outer = ToggleArt.trackOuter
            c.fill(outer.stroke(lineWidth: ToggleArt.outerBorderWidth, alignment: .centered),
                   ToggleRenderer.verticalGradient(night ? ToggleArt.nightOuterBorder : ToggleArt.dayOuterBorder, over: outer.rect))
        }
    }

    private func edge(night: Bool) -> Sprite {
        trackPiece(.edge(night: night)) { c in
            let inner = ToggleArt.trackInner
            c.fill(inner.stroke(lineWidth: ToggleArt.innerEdgeWidth, alignment: .inside),
                   ToggleRenderer.verticalGradient(night ? ToggleArt.nightInnerEdge : ToggleArt.dayInnerEdge, over: inner.rect))
        }
    }

    /// The scene mask (the inner rounded rectangle's coverage), kept as an 8-bit plane: a
    /// quarter of the bytes of an RGBA sprite, read by every frame's scene composite.
    private func mask() -> AlphaPlane {
        if let m = maskPlane { return m }
        let m = AlphaPlane(alphaOf: maker.sprite(trackBounds, trackTransform) { $0.fill(ToggleArt.trackInner.path, .solid(.white)) })
        maskPlane = m
        return m
    }
    private var maskPlane: AlphaPlane?

    /// Cloud group `i` drawn `phase` / subpixelSteps px lower than its artboard position.
    private func cloud(_ i: Int, phase: Int) -> Sprite {
        if let s = clouds[i][phase] { return s }
        let group = ToggleArt.cloudGroups[i]
        var bounds = measure.deviceBounds(of: ToggleRenderer.cloudBounds(group))
        bounds.height += 1   // room for the sub-pixel shift
        let shift = Double(phase) / Double(ToggleRenderer.subpixelSteps)
        let s = maker.sprite(bounds, trackTransform.concatenating(.translation(0, shift))) { c in
            for center in group.circles {
                c.fill(Path.circle(center: center, radius: ToggleArt.cloudRadius), .solid(ToggleArt.Palette.cloud))
            }
        }
        clouds[i][phase] = s
        return s
    }

    private func star(_ i: Int) -> Sprite {
        if let s = stars[i] { return s }
        let r = renderer, star = ToggleArt.stars[i]
        let margin = Double(GaussianBlur.extent(sigma: star.blur * r.trackUnit)) / r.trackUnit
        let s = maker.sprite(measure.deviceBounds(of: ToggleRenderer.starBounds(star).insetBy(dx: -margin, dy: -margin)), trackTransform) { c in
            r.drawStar(star, on: c, opacity: 1)
        }
        stars[i] = s
        return s
    }

    /// The sun or moon drawn at the sub-pixel phase of `placement`, for whole-pixel origin 0,0.
    private func body(moon isMoon: Bool, at placement: CelestialPlacement) -> Sprite {
        bodies.sprite(moon: isMoon, key: placement.phaseKey) {
            let r = renderer
            let home = CelestialPlacement(x: 0, y: 0, phaseX: placement.phaseX, phaseY: placement.phaseY)
            let art = isMoon ? ToggleArt.moon : ToggleArt.sun
            return maker.layerSprite(r.bodyBounds(art, celestial: home), r.celestialTransform(home)) { c in
                r.drawBody(art, occlusion: isMoon, onLayerOf: c, celestial: home)
            }
        }
    }

    /// Fills the track frame (under the track transform) with `color`: the pixels the frame
    /// covers entirely as a plain rectangle (the same bytes as the path's full-coverage spans),
    /// the strips around them through the frame's kept coverage (`framePlane`, the bytes of
    /// filling the path), so no frame, and no band of a frame, rasterizes the path.
    private func fillTrackFrame(_ color: Color, on canvas: Canvas, at o: (x: Int, y: Int)) {
        let d = canvas.drawableBounds
        let inside = trackInterior.offsetBy(dx: o.x, dy: o.y).intersection(d)
        let plane = framePlane()
        guard !inside.isEmpty else {
            canvas.fill(plane: plane, offset: o, color)
            return
        }
        canvas.fill(deviceRect: inside, color)
        let saved = canvas.clip
        for strip in d.subtracting(inside) {
            canvas.clip = strip
            canvas.fill(plane: plane, offset: o, color)
        }
        canvas.clip = saved
    }

    /// The scenes: the day scene (day sky, clouds) at opacity 1 − p and the night scene (night
    /// sky, stars) at opacity p, as one layer composited through `mask`; without a mask
    /// straight onto the canvas (where the layer would composite as itself).
    private func drawScenes(_ frame: ToggleFrame, appearance p: Double, on canvas: Canvas, at o: (x: Int, y: Int),
                            mask: LayerMask?) {
        let r = renderer
        let track = trackBounds.offsetBy(dx: o.x, dy: o.y)
        if mask != nil { canvas.beginLayer(deviceBounds: track) }
        if p < 1 {
            if p > 0 { canvas.beginLayer(deviceBounds: track) }
            fillTrackFrame(ToggleArt.Palette.daySky, on: canvas, at: o)
            for (i, group) in ToggleArt.cloudGroups.enumerated() {
                let shift = r.cloudShift(frame.ambient.cloudOffsetsY[i])
                SpriteMaker.place(cloud(i, phase: shift.phase), on: canvas, at: o, dy: shift.whole, opacity: group.opacity)
            }
            if p > 0 { canvas.endLayer(opacity: 1 - p) }
        }
        if p > 0 {
            if p < 1 { canvas.beginLayer(deviceBounds: track) }
            fillTrackFrame(ToggleArt.Palette.nightSky, on: canvas, at: o)
            for (i, art) in ToggleArt.stars.enumerated() {
                let a = frame.ambient.starOpacities[art.group]
                if a > 0 { SpriteMaker.place(star(i), on: canvas, at: o, opacity: a) }
            }
            if p < 1 { canvas.endLayer(opacity: p) }
        }
        if let mask { canvas.endLayer(mask: mask) }
    }

    /// Where the scene mask is 255 across its straight section and the track frame covers
    /// every pixel (origin 0, 0): at rest the scene there is opaque (an opaque sky first, then
    /// clouds or stars over it) and composites as itself; the inner edge and the sun or moon go
    /// over it, and nothing drawn before it shows through. Kept compositions with opaque skies
    /// only; nil otherwise.
    func restingCore() -> IntRect? {
        if let c = core { return c }
        let opaqueSkies = ToggleArt.Palette.daySky.premultiplied8.packed >> 24 == 255
            && ToggleArt.Palette.nightSky.premultiplied8.packed >> 24 == 255
        let found = retained && opaqueSkies
            ? mask().fullRect(throughColumn: trackBounds.x + trackBounds.width / 2, within: trackInterior) : nil
        core = .some(found)
        return found
    }
    private var core: IntRect??

    /// The scenes while cross-fading, over the skies' blend `backdrop` where the scene mask is
    /// 255. Inside the track frame's interior, away from every cloud and star, the day scene is
    /// the day sky and the night scene the night sky, so the scenes layer holds one colour
    /// there: it is composited as that colour (`Canvas.drawUniform`, the bytes of compositing
    /// the layer), and the layers are drawn only in the rectangles around the clouds, the stars
    /// and the frame's anti-aliased rim.
    private func drawScenesAroundPlainSky(_ frame: ToggleFrame, appearance p: Double, on canvas: Canvas,
                                          at o: (x: Int, y: Int), backdrop: UInt32) {
        let r = renderer
        let track = trackBounds.offsetBy(dx: o.x, dy: o.y), interior = trackInterior.offsetBy(dx: o.x, dy: o.y)
        let clip = canvas.clip
        let drawable = canvas.drawableBounds.intersection(track)
        let sceneMask = LayerMask.planeOverBackdrop(mask(), offset: o, backdrop: backdrop)
        // Nothing to draw (a band away from the toggle, or `prepare`'s probe): the long way,
        // which draws nothing but looks up every piece, so that a probe makes them all.
        guard !drawable.isEmpty else {
            drawScenes(frame, appearance: p, on: canvas, at: o, mask: sceneMask)
            return
        }
        var busy = track.subtracting(interior)
        if p < 1 {
            for i in ToggleArt.cloudGroups.indices {
                let shift = r.cloudShift(frame.ambient.cloudOffsetsY[i])
                busy.append(cloud(i, phase: shift.phase).bounds.offsetBy(dx: o.x, dy: o.y + shift.whole))
            }
        }
        if p > 0 {
            for (i, art) in ToggleArt.stars.enumerated() where frame.ambient.starOpacities[art.group] > 0 {
                busy.append(star(i).bounds.offsetBy(dx: o.x, dy: o.y))
            }
        }
        let longWay = IntRect.disjointUnion(busy.map { $0.intersection(drawable) })
        for rect in longWay {
            canvas.clip = rect
            drawScenes(frame, appearance: p, on: canvas, at: o, mask: sceneMask)
        }
        canvas.clip = clip
        var plain = [interior.intersection(drawable)]
        for rect in longWay { plain = plain.flatMap { $0.subtracting(rect) } }
        let day = ToggleArt.Palette.daySky.premultiplied8.packed, night = ToggleArt.Palette.nightSky.premultiplied8.packed
        let sky = Blend.over(Blend.scale(night, Canvas.opacityLevel(p)), Blend.scale(day, Canvas.opacityLevel(1 - p)))
        for piece in plain { canvas.drawUniform(sky, deviceRect: piece, mask: sceneMask) }
    }

    /// The track frame's coverage (origin 0, 0), rasterized once per composition.
    private func framePlane() -> AlphaPlane {
        if let p = frameCoverage { return p }
        let p = AlphaPlane(coverageOf: Path.rect(ToggleArt.trackFrame), transform: trackTransform, bounds: trackBounds)
        frameCoverage = p
        return p
    }
    private var frameCoverage: AlphaPlane?

    /// The pieces `frame` needs in two independent parts: part 0 everything but the sun and
    /// moon (looked up by composing the frame, bodies left out, on a canvas with no pixels of
    /// this composition's own), part 1 the visible sun and moon.
    func makePieces(_ frame: ToggleFrame, part: Int, of parts: Int) {
        precondition(parts == 2, "the Original's pieces come in two parts")
        if part == 0 {
            drawsBodies = false
            draw(frame, on: Canvas(Pixmap(width: 0, height: 0), pool: pool), origin: (0, 0))
            drawsBodies = true
        } else {
            let p = clamp(frame.appearance, 0, 1)
            let c = renderer.celestialOrigin((0, 0), position: frame.position)
            if p < 1 { _ = body(moon: false, at: c) }
            if p > 0 { _ = body(moon: true, at: c) }
        }
    }

    /// False while `makePieces` composes without the sun and moon.
    private var drawsBodies = true

    func adopt(_ other: ToggleComposition) {
        guard let o = other as? ToggleSpriteCache else { return }
        trackPieces.merge(o.trackPieces) { mine, _ in mine }
        for i in clouds.indices { clouds[i].merge(o.clouds[i]) { mine, _ in mine } }
        for i in stars.indices { stars[i] = stars[i] ?? o.stars[i] }
        bodies.adopt(o.bodies)
        maskPlane = maskPlane ?? o.maskPlane
        frameCoverage = frameCoverage ?? o.frameCoverage
    }

    /// Composes one frame. Two shortcuts skip whole-track layer passes without changing what is
    /// drawn beyond rounding: the track's own layer (the `drawingGroup`) has opacity 1 and no
    /// mask, and src-over is associative, so its parts are composited straight onto the canvas;
    /// and a scene at opacity 1 (the other one invisible) is drawn straight into the scenes layer.
    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin o: (x: Int, y: Int)) {
        let r = renderer
        let p = clamp(frame.appearance, 0, 1)
        canvas.transform = r.trackTransform(o)
        // Skies and outer borders, cross-faded. At rest the scene covers the interior; while
        // cross-fading, the scenes go over the skies' blend there (`interiorSkies`).
        let atRest = p == 0 || p == 1
        let skies = atRest ? nil : interiorSkies
        let ring = atRest || skies != nil
        if atRest {
            SpriteMaker.place(p == 1 ? daySkyRim() : skyRing(night: false), on: canvas, at: o)
            if p > 0 { SpriteMaker.place(skyRing(night: true), on: canvas, at: o) }
            SpriteMaker.place(border(night: p == 1), on: canvas, at: o)
        } else {
            // Day and night versions of one shape: each pair in one pass.
            let (daySky, nightSky) = ring ? (skyRing(night: false), skyRing(night: true)) : (sky(night: false), sky(night: true))
            SpriteMaker.placePair(daySky, opacity: 1, nightSky, opacity: p, alike: alike(ring ? .skyRing(night: false) : .sky(night: false)),
                                  on: canvas, at: o)
            SpriteMaker.placePair(border(night: false), opacity: 1 - p, border(night: true), opacity: p,
                                  alike: alike(.border(night: false)), on: canvas, at: o)
        }
        if let skies {
            let backdrop = Blend.over(Blend.scale(skies.night, Canvas.opacityLevel(p)), skies.day)
            drawScenesAroundPlainSky(frame, appearance: p, on: canvas, at: o, backdrop: backdrop)
        } else if atRest, let core = restingCore()?.offsetBy(dx: o.x, dy: o.y), !canvas.drawableBounds.intersection(core).isEmpty {
            // At rest the scene is opaque where the mask is 255: drawn straight onto the canvas
            // there, as a layer around it (only the pieces the clip reaches: each repeats the
            // layer's setup).
            let clip = canvas.clip
            for strip in trackBounds.offsetBy(dx: o.x, dy: o.y).subtracting(core)
            where !canvas.drawableBounds.intersection(strip).isEmpty {
                canvas.clip = clip.intersection(strip)
                drawScenes(frame, appearance: p, on: canvas, at: o, mask: .plane(mask(), offset: o))
                canvas.clip = clip
            }
            canvas.clip = clip.intersection(core)
            drawScenes(frame, appearance: p, on: canvas, at: o, mask: nil)
            canvas.clip = clip
        } else {
            drawScenes(frame, appearance: p, on: canvas, at: o, mask: .plane(mask(), offset: o))
        }
        // Inner edges, cross-faded.
        if atRest {
            SpriteMaker.place(edge(night: p == 1), on: canvas, at: o)
        } else {
            SpriteMaker.placePair(edge(night: false), opacity: 1 - p, edge(night: true), opacity: p,
                                  alike: alike(.edge(night: false)), on: canvas, at: o)
        }

        guard drawsBodies else { return }
        let c = r.celestialOrigin(o, position: frame.position)
        if p < 1 { SpriteMaker.place(body(moon: false, at: c), on: canvas, at: c.whole, opacity: 1 - p) }
        if p > 0 { SpriteMaker.place(body(moon: true, at: c), on: canvas, at: c.whole, opacity: p) }
    }
}
