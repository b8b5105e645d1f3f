import Raster

/// Draws the component in the Vivid style onto a `Canvas`, in the SwiftUI package's order:
///
/// 1. the track as one off-screen layer (`drawingGroup`, which clips to the 173 × 69 track
///    frame), shifted to the inner frame: day sky, night sky at opacity p, the halo discs
///    centred on the thumb's path, the day scene (cloud banks) at opacity 1 − p moved down by
///    48 p, the night scene (stars) at opacity p coming down from −12; all clipped to the
///    capsule; then the gradient border inside the capsule, and under it all the track's drop
///    shadow (cut at the track frame);
/// 2. the celestial layer, not clipped: the sun (opacity 1 − p) and the moon with its craters
///    (opacity p), each with its diagonal gradient ring and two stacked shadows.
///
/// As with `ToggleRenderer`, each piece (shadow, clip, border, halo, each cloud bank, sun,
/// moon) is rasterized into its own sprite and the frame is composed from them
/// (`VividSpriteCache`); `cached: false` rasterizes them anew with the same composition. The
/// stars change size continuously, so they are rasterized for every frame (six small
/// polygons). Sprites are placed on whole device pixels.
public final class VividRenderer: ToggleDeviceRenderer {
    /// Composes frames of the kept composition the long way: the capsule's whole shadow under
    /// the inner layer while cross-fading (also where the inner layer covers it), the inner sky
    /// in its three passes, and the inner layer composited through the capsule everywhere (for
    /// tests comparing the shortcuts with it; default false).
    var composesTheLongWay = false

    /// Scene units → device, for a component at `origin`, with the scene moved down by `dy`
    /// device pixels.
    func sceneTransform(_ origin: (x: Int, y: Int), dy: Double = 0) -> Transform {
        let k = VividArt.sceneScale, f = VividArt.innerFrame
        return Transform.scale(k, k).concatenating(.translation(f.minX, f.minY))
            .concatenating(trackTransform(origin)).concatenating(.translation(0, dy))
    }

    /// Device position of the celestial artboard's origin, snapped to whole pixels.
    func celestialOrigin(_ origin: (x: Int, y: Int), position: Double) -> (x: Int, y: Int) {
        (origin.x + Int((metrics.celestialOriginX(position: position) * scale).rounded()),
         origin.y + Int((metrics.celestialOriginY * scale).rounded()))
    }

    func celestialTransform(_ o: (x: Int, y: Int)) -> Transform {
        Transform.scale(celestialUnit, celestialUnit).concatenating(.translation(Double(o.x), Double(o.y)))
    }

    /// Whole-pixel shift of the halo from its appearance-0 place.
    func haloShift(appearance: Double) -> Int {
        Int(((VividArt.haloCenter(appearance: appearance).x - VividArt.haloCenter(appearance: 0).x) * trackUnit).rounded())
    }

    /// Whole-pixel vertical shift of a cloud bank: the day scene's drop plus the float.
    func cloudShift(appearance: Double, float: Double) -> Int {
        let p = clamp(appearance, 0, 1)
        return Int(((p * VividArt.daySceneDrop + float * VividArt.sceneScale) * trackUnit).rounded())
    }

    /// The night scene's vertical offset in device pixels (stars are rasterized per frame).
    func nightShift(appearance: Double) -> Double {
        -(1 - clamp(appearance, 0, 1)) * VividArt.nightSceneRise * trackUnit
    }

    // MARK: Bounds

    override func bodyBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        bodyBounds(moon ? VividArt.moon : VividArt.sun, celestial: celestialOrigin(origin, position: position))
    }

    /// Three: the outer shadows; the halo, cloud banks and border; the sun and moon
    /// (`VividSpriteCache.makePieces`).
    override public var fromScratchParts: Int { 3 }

    override func makeComposition(pool: LayerPool, retained: Bool) -> ToggleComposition {
        VividSpriteCache(renderer: self, pool: pool, retained: retained)
    }

    /// The body's content: its sprite is drawn on whole pixels, so it is the same everywhere.
    override func bodyContentBounds(moon: Bool, position: Double, origin: (x: Int, y: Int)) -> IntRect {
        guard let content = keptBodyContent(moon: moon) else { return bodyBounds(moon: moon, position: position, origin: origin) }
        let c = celestialOrigin(origin, position: position)
        return content.offsetBy(dx: c.x, dy: c.y)
    }

    /// As `VividSpriteCache.draw` uses a frame: cloud banks by their whole-pixel shift while the
    /// day scene shows, the stars' scales while the night scene shows.
    override func drawnState(_ frame: ToggleFrame) -> DrawnToggleState {
        let p = clamp(frame.appearance, 0, 1)
        let c = celestialOrigin((0, 0), position: frame.position)
        var ambient: [Double] = []
        if p < 1 { ambient += cloudShifts(frame).map(Double.init) }
        if p > 0 { ambient += frame.ambient.vividStarScales }
        return DrawnToggleState(appearance: p, celestial: [c.x, c.y], ambient: ambient)
    }

    /// Each cloud bank's whole-pixel shift in `frame`.
    private func cloudShifts(_ frame: ToggleFrame) -> [Int] {
        VividArt.cloudGroups.indices.map { i in
            let float = frame.ambient.vividCloudOffsetsY.indices.contains(i) ? frame.ambient.vividCloudOffsetsY[i] : 0
            return cloudShift(appearance: frame.appearance, float: float)
        }
    }

    /// Each cloud bank that moved (with its shadow, where it was and where it is) and each star
    /// whose scale changed (at the larger of its two sizes), inside the scene's frame.
    override func ambientRects(from old: ToggleFrame, to new: ToggleFrame, origin: (x: Int, y: Int)) -> [IntRect] {
        let p = clamp(new.appearance, 0, 1)
        let inner = trackPieceBounds(VividArt.innerFrame)
        var rects: [IntRect] = []
        if p < 1 {
            let art = VividArt.trackShadow
            let dx = Int((art.dx * trackUnit).rounded()), dy = Int((art.dy * trackUnit).rounded())
            let m = GaussianBlur.extent(sigma: art.radius * trackUnit) + max(abs(dx), abs(dy))
            for (i, (a, b)) in zip(cloudShifts(old), cloudShifts(new)).enumerated() where a != b {
                let box = trackPieceBounds(Self.cloudBounds(VividArt.cloudGroups[i])).insetBy(dx: -m, dy: -m)
                rects.append(box.offsetBy(dx: 0, dy: a).union(box.offsetBy(dx: 0, dy: b)))
            }
        }
        if p > 0 {
            // Stars are filled as paths under the scene transform, every frame: a star's pixels
            // lie in its outer radius's square.
            let scene = sceneTransform((0, 0), dy: nightShift(appearance: p))
            let a = old.ambient.vividStarScales, b = new.ambient.vividStarScales
            for star in VividArt.stars {
                let g = star.group - 1
                let sa = a.indices.contains(g) ? a[g] : 1, sb = b.indices.contains(g) ? b[g] : 1
                guard sa != sb else { continue }
                let r = star.radius * max(sa, sb)
                rects.append(deviceBounds(of: Rect(x: star.center.x - r, y: star.center.y - r, width: 2 * r, height: 2 * r), under: scene))
            }
        }
        return rects.map { $0.intersection(inner).offsetBy(dx: origin.x, dy: origin.y) }
    }

    /// Device bounds of a sun or moon with room for its ring and stacked shadows; measured at
    /// (0, 0) and moved by the origin, exactly as the body's sprite is made and placed.
    func bodyBounds(_ body: VividArt.Body, celestial o: (x: Int, y: Int)) -> IntRect {
        let t = celestialTransform((0, 0))
        let shape = body.frame.insetBy(dx: -body.strokeWidth, dy: -body.strokeWidth)
        let a = t.apply(Point(shape.minX, shape.minY))
        let box = Rect(x: a.x, y: a.y, width: shape.width * celestialUnit, height: shape.height * celestialUnit).roundedOut
        return widened(box, byShadows: body.shadows).offsetBy(dx: o.x, dy: o.y)
    }

    // MARK: Drawing

    // MARK: From the vector art

    static func gradient(_ colors: [Color], from a: Point, to b: Point) -> Paint {
        .linearGradient(LinearGradient(start: a, end: b, colors: colors, interpolation: .premultiplied))
    }

    /// A circle's outline as a centred ring of width `w`.
    static func ring(center c: Point, radius r: Double, width w: Double) -> Path {
        var p = Path.circle(center: c, radius: r + w / 2)
        p.append(Path.circle(center: c, radius: r - w / 2).reversed())
        return p
    }

    /// The border: a stroke inside the clip capsule, gradient top to bottom of the inner frame.
    static var borderPath: Path { VividArt.clipShape.stroke(lineWidth: VividArt.borderWidth, alignment: .inside) }
    static var borderPaint: Paint {
        let f = VividArt.innerFrame
        return gradient(VividArt.borderGradient, from: Point(f.minX, f.minY), to: Point(f.minX, f.maxY))
    }

    /// One cloud bank's extent in track units, cut to the inner frame's width.
    static func cloudBounds(_ group: VividArt.CloudGroup) -> Rect {
        let k = VividArt.sceneScale, f = VividArt.innerFrame
        var r: Rect? = nil
        for c in group.circles {
            let b = Rect(x: f.minX + (c.center.x - c.radius) * k, y: f.minY + (c.center.y - c.radius) * k,
                         width: 2 * c.radius * k, height: 2 * c.radius * k)
            r = r.map { $0.union(b) } ?? b
        }
        let u = r!
        let x0 = max(u.minX, f.minX), x1 = min(u.maxX, f.maxX)
        return Rect(x: x0, y: u.minY, width: x1 - x0, height: u.height)
    }

    /// The halo discs' extent (track units) at appearance 0, cut to the inner frame's height.
    static var haloBounds: Rect {
        let c = VividArt.haloCenter(appearance: 0), r = VividArt.halos.map(\.diameter).max()! / 2
        let f = VividArt.innerFrame
        return Rect(x: c.x - r, y: f.minY, width: 2 * r, height: f.height)
    }

    /// Stars at their current scales (scene units under the canvas transform).
    static func drawStars(_ scales: [Double], on canvas: Canvas) {
        for star in VividArt.stars {
            let s = scales.indices.contains(star.group - 1) ? scales[star.group - 1] : 1
            let r = star.radius * s
            guard r > 0 else { continue }
            canvas.fill(Path.star(center: star.center, points: 4, outerRadius: r, innerRadius: r * ToggleArt.starInnerRatio),
                        .solid(VividArt.Palette.star))
        }
    }

    /// A sun or moon into the open layer that covers `bodyBounds(body, celestial: o)`: disc,
    /// craters, gradient ring, stacked shadows (`VividSpriteCache` makes that layer its sprite).
    func drawBody(_ body: VividArt.Body, onLayerOf canvas: Canvas, celestial o: (x: Int, y: Int)) {
        canvas.transform = celestialTransform(o)
        canvas.fill(Path.circle(center: body.center, radius: body.radius), .solid(body.fill))
        for c in body.craters {
            let r = c.diameter / 2
            let center = Point(body.frame.minX + c.x + r, body.frame.minY + c.y + r)
            canvas.fill(Path.circle(center: center, radius: r), .solid(VividArt.Palette.moonCrater))
            canvas.fill(Self.ring(center: center, radius: r, width: VividArt.craterStroke.width),
                        .solid(VividArt.craterStroke.color))
        }
        canvas.fill(Self.ring(center: body.center, radius: body.radius, width: body.strokeWidth),
                    Self.gradient(body.strokeGradient, from: Point(body.frame.minX, body.frame.minY),
                                  to: Point(body.frame.maxX, body.frame.maxY)))
        for s in body.shadows {
            canvas.applyDropShadow(color: s.color, sigma: s.radius * celestialUnit,
                                   dx: s.dx * celestialUnit, dy: s.dy * celestialUnit)
        }
    }
}
