import Raster

/// The button's backdrop: the page background behind the capsule, Gaussian-blurred and tinted,
/// kept until the background, tint or size changes (not recomputed per frame).
///
/// What lies behind is one colour, so the blurred backdrop is that colour wherever the blur's
/// reach stays inside the blurred box — in float arithmetic, only as far as rounding to 8 bits
/// says so. The cache therefore remembers, per channel value and geometry, whether the blur of
/// a plane of that value rounds back to the value at every pixel the capsule covers (one
/// single-channel blur the first time a value is seen; for bright values the rectangle's
/// extreme corners do not, but the capsule never covers them). When all four channels do, the
/// backdrop is drawn as the one colour `tint over background`: inside the capsule the same
/// bytes the full build gives (outside it the sprite is never read), without blurring.
/// Otherwise, and when drawing from scratch, it is built in full. During a page cross-fade every
/// frame has a new background, so this keeps the fade from blurring every frame once each
/// colour level has been seen.
struct MaterialCache {
    private var key: (rect: IntRect, background: UInt32, tint: UInt32, sigma: Double)?
    private var cached: Sprite?
    private(set) var builds = 0
    /// Builds that blurred (not derived from the uniform-value table).
    private(set) var blurredBuilds = 0
    /// Per channel value: 0 not known, 1 the blurred plane rounds back to it everywhere in the
    /// rectangle, 2 it does not. Valid for `uniformGeometry`.
    private var uniform = [UInt8](repeating: 0, count: 256)
    private var uniformGeometry: (width: Int, height: Int, sigma: Double, margin: Int, capsule: Rect)?
    /// Per row of the rectangle, the pixels the capsule covers (x ranges, rectangle coordinates).
    private var covered: [[Range<Int>]] = []
    private var plane: [Float] = []
    private var scratch: [Float] = []
    /// The blur's layer, kept between builds (a cross-fade blurs at every colour level whose
    /// plane does not round back: no new pixmap for each).
    private var layer: Pixmap?

    /// The backdrop for the capsule `capsule` (device pixels; drawn masked by
    /// `Path.roundedRect(capsule, radius: capsule.height / 2)`), covering `capsule.roundedOut`.
    mutating func sprite(for capsule: Rect, background: UInt32, tint: Color, sigma: Double,
                         canvasPool: LayerPool, incremental: Bool) -> Sprite {
        let rect = capsule.roundedOut
        let tintKey = tint.premultiplied8.packed
        if incremental, let k = key, let s = cached, k.rect == rect, k.background == background, k.tint == tintKey, k.sigma == sigma {
            return s
        }
        builds += 1
        // Backdrop with a margin so the blur has real neighbours at the capsule's edge.
        let margin = Int((sigma * 3).rounded(.up))
        let box = rect.insetBy(dx: -margin, dy: -margin)
        let width = max(1, rect.width), height = max(1, rect.height)
        let layerColor = background.color.premultiplied8.packed   // what the layer holds before the blur
        let s: Sprite
        if incremental, let c = uniformBackdrop(layerColor, box: box, capsule: capsule, sigma: sigma, margin: margin) {
            // The blurred layer is `c` everywhere in the rectangle: tint it (src-over, as the fill does).
            let pix = reusedPixmap(width: width, height: height) ?? Pixmap(width: width, height: height)
            pix.fill(pix.bounds, with: Blend.over(tintKey, c))
            s = Sprite(pixmap: pix, origin: (rect.x, rect.y))
        } else {
            blurredBuilds += 1
            // Incremental frames reuse the previous backdrop's pixmap and the kept layer: after
            // the first cross-fade, no frame allocates here. From scratch, everything is new.
            let out = incremental ? reusedPixmap(width: width, height: height) : nil
            if incremental {
                if let l = layer { l.reset(width: max(1, box.width), height: max(1, box.height), cleared: false) } else {
                    layer = Pixmap(width: max(1, box.width), height: max(1, box.height))
                }
            }
            s = Sprite(pixmap: Self.blurredBackdrop(layerColor, box: box, margin: margin, width: width, height: height,
                                                    tint: tint, sigma: sigma, scratch: &scratch,
                                                    into: out, layer: incremental ? layer : nil),
                       origin: (rect.x, rect.y))
        }
        key = (rect, background, tintKey, sigma)
        cached = s
        return s
    }

    /// The previous backdrop's pixmap, resized to `width`×`height` (its memory is reused when
    /// large enough: a pressed button's smaller capsule and the resting one share it), for a
    /// caller that writes every pixel. The previous sprite is being replaced, and only the
    /// frame that asked for it read it. Nil before the first build.
    private func reusedPixmap(width: Int, height: Int) -> Pixmap? {
        guard let p = cached?.pixmap else { return nil }
        p.reset(width: width, height: height, cleared: false)
        return p
    }

    /// The backdrop blurred for real: a layer of `layerColor` covering `box`, blurred (all
    /// channels, `Canvas.applyBlur`'s blur), tinted (src-over, as `Canvas.fill` draws), and its
    /// `width`×`height` pixels `margin` in. Only those rows are blurred and only those pixels
    /// tinted: the blur reads the whole layer and writes each row as blurring all of it does.
    /// `into` (of `width`×`height`) and `layer` (of the box's size), when given, are written
    /// over in full instead of being allocated.
    static func blurredBackdrop(_ layerColor: UInt32, box: IntRect, margin: Int, width: Int, height: Int, tint: Color,
                                sigma: Double, scratch: inout [Float], into: Pixmap? = nil, layer kept: Pixmap? = nil) -> Pixmap {
        let layer = kept ?? Pixmap(width: max(1, box.width), height: max(1, box.height))
        layer.fill(layer.bounds, with: layerColor)
        Canvas.blurChannels(layer, sigma: sigma, rows: margin..<(margin + height), scratch: &scratch)
        let out = into ?? Pixmap(width: width, height: height)
        out.copyRegion(from: layer, sourceX: margin, sourceY: margin)
        Canvas(out).fill(deviceRect: out.bounds, tint)
        return out
    }

    /// The blurred layer's colour inside `rect` when the layer is `color` everywhere and every
    /// channel's blurred plane rounds back to its value there (then colour ≤ alpha, as the
    /// blur leaves it); nil when some channel does not, or the box is degenerate.
    private mutating func uniformBackdrop(_ color: UInt32, box: IntRect, capsule: Rect, sigma: Double, margin: Int) -> UInt32? {
        let w = box.width, h = box.height, rect = capsule.roundedOut
        guard w > 0, h > 0, rect.width > 0, rect.height > 0, sigma > 0 else { return nil }
        if let g = uniformGeometry, g.width == w, g.height == h, g.sigma == sigma, g.margin == margin, g.capsule == capsule {
        } else {
            uniformGeometry = (w, h, sigma, margin, capsule)
            uniform = [UInt8](repeating: 0, count: 256)
            // Where the capsule's coverage is not zero: the pixels the masked draw can change.
            var rows = [[Range<Int>]](repeating: [], count: rect.height)
            let rx = rect.x, ry = rect.y
            Rasterizer().fill(Path.roundedRect(capsule, radius: capsule.height / 2), clip: rect) { y, x, n, cov in
                var i = 0
                while i < n {
                    while i < n && cov[i] == 0 { i += 1 }
                    let start = i
                    while i < n && cov[i] != 0 { i += 1 }
                    let lo: Int = x - rx + start, hi: Int = x - rx + i
                    if hi > lo { rows[y - ry].append(lo..<hi) }
                }
            }
            covered = rows
            // Every channel value rounds back at once when a plane of ones blurs close enough
            // to 1 (`everyValueRoundsBack`): one blur per geometry instead of one per new value
            // (a page cross-fade meets up to three new values a frame).
            if everyValueRoundsBack(width: w, height: h, sigma: sigma, margin: margin) {
                for v in 1..<256 { uniform[v] = 1 }
            }
        }
        for shift in [0, 8, 16, 24] as [UInt32] {
            let v = Int((color >> shift) & 0xFF)
            if v == 0 { continue }                      // zeros blur to zeros
            if uniform[v] == 0 { uniform[v] = roundsBack(v, width: w, height: h, sigma: sigma, margin: margin) ? 1 : 2 }
            if uniform[v] != 1 { return nil }
        }
        var c = PremultipliedRGBA8(packed: color)
        c.r = min(c.r, c.a); c.g = min(c.g, c.a); c.b = min(c.b, c.a)
        return c.packed
    }

    /// The blur is linear and its weights sum to 1 away from the plane's edges, so a plane of
    /// value v blurs to v·m, where m is what a plane of ones blurs to. In float arithmetic each
    /// of the two results is within a relative γ of the exact one, γ ≤ n·2⁻²⁴ for the n
    /// multiply-adds behind an output value (block average, two passes of ≤ 29 taps, bilinear
    /// reconstruction: n ≈ 100, γ ≈ 6·10⁻⁶). So |blur(v) − v| ≤ v·|m − 1| + 2·v·γ, and every
    /// v ≤ 255 rounds back to itself where 255·(|m − 1| + 2γ) < 0.5. γ is taken as 10⁻⁴ (over
    /// 1 600 operations' worth). Returns true when that holds at every covered pixel; false
    /// sends each value to the exact check (`roundsBack`).
    private mutating func everyValueRoundsBack(width w: Int, height h: Int, sigma: Double, margin: Int) -> Bool {
        if plane.count < w * h { plane = [Float](repeating: 0, count: w * h) }
        let covered = self.covered
        let limit = 0.5 / 255 - 2 * 1e-4
        return plane.withUnsafeMutableBufferPointer { pb in
            let p = pb.baseAddress!
            p.update(repeating: 1, count: w * h)
            GaussianBlur.blur(p, width: w, height: h, sigma: sigma, scratch: &scratch)
            for (y, runs) in covered.enumerated() {
                let row = p + (y + margin) * w + margin
                for run in runs {
                    for x in run where abs(Double(row[x]) - 1) >= limit { return false }
                }
            }
            return true
        }
    }

    /// Whether every channel value 1…255 is known to round back for the current geometry (for tests).
    var knowsEveryValueRoundsBack: Bool { uniform[1...].allSatisfy { $0 == 1 } }

    /// Every value 1…255 checked with its own blur for the current geometry (for tests).
    mutating func everyValueRoundsBackExactly() -> Bool {
        guard let g = uniformGeometry else { return false }
        return (1..<256).allSatisfy { roundsBack($0, width: g.width, height: g.height, sigma: g.sigma, margin: g.margin) }
    }

    /// Blurs a `width`×`height` plane of value `v` as `Canvas.applyBlur` blurs a channel and
    /// checks that it rounds to `v` at every covered pixel (the rectangle sits `margin` in).
    private mutating func roundsBack(_ v: Int, width w: Int, height h: Int, sigma: Double, margin: Int) -> Bool {
        if plane.count < w * h { plane = [Float](repeating: 0, count: w * h) }
        let covered = self.covered
        return plane.withUnsafeMutableBufferPointer { pb in
            let p = pb.baseAddress!
            p.update(repeating: Float(v), count: w * h)
            GaussianBlur.blur(p, width: w, height: h, sigma: sigma, scratch: &scratch)
            for (y, runs) in covered.enumerated() {
                let row = p + (y + margin) * w + margin
                for run in runs {
                    for x in run where Int(UInt32(clamp(Double(row[x]), 0, 255) + 0.5)) != v { return false }
                }
            }
            return true
        }
    }
}

extension UInt32 {
    /// A packed premultiplied pixel as a colour.
    var color: Color {
        let p = PremultipliedRGBA8(packed: self)
        guard p.a > 0 else { return .clear }
        let a = Double(p.a) / 255
        return Color(r: Double(p.r) / 255 / a, g: Double(p.g) / 255 / a, b: Double(p.b) / 255 / a, a: a)
    }
}

extension Pixmap {
    /// Copies this pixmap's size worth of pixels from `src` starting at (sourceX, sourceY).
    func copyRegion(from src: Pixmap, sourceX: Int, sourceY: Int) {
        for y in 0..<height where sourceY + y < src.height {
            for x in 0..<width where sourceX + x < src.width {
                self.pixels[y * stride + x] = src.pixels[(sourceY + y) * src.stride + sourceX + x]
            }
        }
    }
}

extension Rect {
    func contains(_ p: Point) -> Bool { p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY }
}
