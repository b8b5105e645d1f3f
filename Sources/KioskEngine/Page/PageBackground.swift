import Raster

/// How a page background image fills the page.
public enum PageBackgroundFit: String, CaseIterable, Sendable {
    /// Scaled (aspect kept) until it covers the whole page, centred; what overflows is cut.
    case cover
    /// Scaled (aspect kept) until it fits inside the page, centred; the page colour shows around it.
    case contain
}

/// The page's background images ("images for every appearance"): one for light, one for dark,
/// decoded and premultiplied. The driver reads and decodes the files; the engine scales them
/// to the page once per page size, composes them over the page colours and cross-fades them
/// with the page. A missing variant shows the plain page colour in that appearance. Images
/// with transparency show the page colour through. The pixmaps are never modified.
public struct PageBackground {
    public var light: Pixmap?
    public var dark: Pixmap?
    public var fit: PageBackgroundFit

    public init(light: Pixmap?, dark: Pixmap?, fit: PageBackgroundFit = .cover) {
        self.light = light
        self.dark = dark
        self.fit = fit
    }

    public var isEmpty: Bool { light == nil && dark == nil }

    /// Where an image of `imageWidth × imageHeight` lands on a page of `pageWidth × pageHeight`:
    /// the part of the image used (image pixels, fractional) and the page pixels it fills.
    public static func placement(imageWidth w: Int, imageHeight h: Int, pageWidth pw: Int, pageHeight ph: Int,
                                 fit: PageBackgroundFit) -> (source: Rect, destination: IntRect) {
        let iw = Double(max(1, w)), ih = Double(max(1, h)), W = Double(pw), H = Double(ph)
        switch fit {
        case .cover:
            let s = max(W / iw, H / ih)
            let sw = W / s, sh = H / s
            return (Rect(x: (iw - sw) / 2, y: (ih - sh) / 2, width: sw, height: sh),
                    IntRect(x: 0, y: 0, width: pw, height: ph))
        case .contain:
            let s = min(W / iw, H / ih)
            let dw = min(pw, max(1, Int((iw * s).rounded()))), dh = min(ph, max(1, Int((ih * s).rounded())))
            return (Rect(x: 0, y: 0, width: iw, height: ih),
                    IntRect(x: (pw - dw) / 2, y: (ph - dh) / 2, width: dw, height: dh))
        }
    }
}

/// The background images made ready for one page size and one pair of page colours: each
/// appearance's image scaled to the page and composed over its page colour, once (a resize, a
/// rotation or another pair of colours, e.g. high contrast, builds them again; frames never do).
/// A frame's background is then a copy (at rest) or the cross-fade of the two (`Blend.lerpSpan`).
struct PreparedBackground {
    struct Key: Equatable {
        var width: Int, height: Int
        var fit: PageBackgroundFit
        var lightColor: UInt32, darkColor: UInt32
    }

    private(set) var key: Key?
    /// Each appearance's page: the colour under the scaled image, or nil (the colour alone).
    private var light: Pixmap?
    private var dark: Pixmap?
    /// One page-wide row of each colour (the flat side of a cross-fade).
    private var lightRow: [UInt32] = []
    private var darkRow: [UInt32] = []
    /// How many times images were scaled (tests: once per page size, never per frame).
    private(set) var scalings = 0
    /// Bumps whenever the composed pages change (material backdrops key on it).
    private(set) var generation = 0

    /// Builds the composed pages when the size or colours changed.
    mutating func prepare(_ background: PageBackground, width: Int, height: Int, lightColor: UInt32, darkColor: UInt32) {
        let k = Key(width: width, height: height, fit: background.fit, lightColor: lightColor, darkColor: darkColor)
        guard k != key else { return }
        key = k
        generation += 1
        light = background.light.map { compose($0, color: lightColor, width: width, height: height, fit: background.fit) }
        dark = background.dark.map { compose($0, color: darkColor, width: width, height: height, fit: background.fit) }
        lightRow = [UInt32](repeating: lightColor, count: max(1, width))
        darkRow = [UInt32](repeating: darkColor, count: max(1, width))
    }

    private mutating func compose(_ image: Pixmap, color: UInt32, width: Int, height: Int, fit: PageBackgroundFit) -> Pixmap {
        scalings += 1
        let page = Pixmap(width: width, height: height)
        page.fill(page.bounds, with: color)
        let place = PageBackground.placement(imageWidth: image.width, imageHeight: image.height,
                                             pageWidth: width, pageHeight: height, fit: fit)
        let d = place.destination
        guard !d.isEmpty else { return page }
        let scaled = Resample.scaled(image, source: place.source, width: d.width, height: d.height)
        for y in 0..<d.height {
            Blend.overColorSpan(page.pixels + (d.y + y) * page.stride + d.x, source: scaled.pixels + y * scaled.stride,
                                count: d.width, color: color)
        }
        return page
    }

    /// Writes the background of `rect` (page pixels; rows and columns outside the page repeat
    /// its edge) at cross-fade `weight` (0 light … 256 dark) into `target`, whose pixel (0, 0)
    /// stands for page pixel `rect.origin`.
    func draw(_ rect: IntRect, weight: UInt32, into target: Pixmap, at origin: (x: Int, y: Int) = (0, 0)) {
        guard let k = key, k.width > 0, k.height > 0, !rect.isEmpty else { return }
        let w = min(weight, 256)
        lightRow.withUnsafeBufferPointer { lr in
            darkRow.withUnsafeBufferPointer { dr in
                /// Row y of one side, from page column x0 (inside the page).
                func side(_ page: Pixmap?, _ flat: UnsafeBufferPointer<UInt32>, _ y: Int, _ x0: Int) -> UnsafePointer<UInt32> {
                    guard let page else { return flat.baseAddress! }
                    return UnsafePointer(page.pixels + y * page.stride + x0)
                }
                let x0 = max(rect.minX, 0), x1 = min(rect.maxX, k.width)
                for ty in 0..<rect.height {
                    let py = min(max(rect.minY + ty, 0), k.height - 1)
                    let dst = target.pixels + (origin.y + ty) * target.stride + origin.x
                    if x1 > x0 {
                        let out = dst + (x0 - rect.minX), n = x1 - x0
                        let a = side(light, lr, py, x0), b = side(dark, dr, py, x0)
                        if w == 0 { out.update(from: a, count: n) }
                        else if w == 256 { out.update(from: b, count: n) }
                        else { Blend.lerpSpan(out, a, b, count: n, weight: w) }
                        // Columns left and right of the page repeat its edge pixels.
                        if rect.minX < x0 { dst.update(repeating: out[0], count: x0 - rect.minX) }
                        if rect.maxX > x1 { (dst + (x1 - rect.minX)).update(repeating: out[n - 1], count: rect.maxX - x1) }
                    } else {
                        // The whole row lies beside the page: the nearest edge column.
                        let ex = rect.maxX <= 0 ? 0 : k.width - 1
                        var v: UInt32 = 0
                        let a = side(light, lr, py, ex), b = side(dark, dr, py, ex)
                        withUnsafeMutablePointer(to: &v) { Blend.lerpSpan($0, a, b, count: 1, weight: w) }
                        dst.update(repeating: v, count: rect.width)
                    }
                }
            }
        }
    }
}

/// The button's material over a background image: what lies behind the capsule, Gaussian-
/// blurred, for each appearance (kept per composed page, capsule rectangle and blur, i.e. per
/// theme and size), cross-faded with the page and tinted; the tinted result is kept until the
/// cross-fade weight or the tint changes.
struct BackdropMaterialCache {
    private struct BlurKey: Equatable { var rect: IntRect; var sigma: Double; var generation: Int }
    private struct TintKey: Equatable { var weight: UInt32; var tint: UInt32 }
    private var blurKey: BlurKey?
    private var blurred: (light: Pixmap, dark: Pixmap)?
    private var tintKey: TintKey?
    private var cached: Sprite?
    /// How many times the backdrops were blurred (once per theme and size).
    private(set) var blurs = 0

    mutating func sprite(for rect: IntRect, background: PreparedBackground, weight: UInt32, tint: Color, sigma: Double,
                         incremental: Bool) -> Sprite {
        let bk = BlurKey(rect: rect, sigma: sigma, generation: background.generation)
        if !incremental || bk != blurKey || blurred == nil {
            blurKey = bk
            blurred = (blur(rect, background: background, weight: 0, sigma: sigma),
                       blur(rect, background: background, weight: 256, sigma: sigma))
            tintKey = nil
        }
        let tk = TintKey(weight: min(weight, 256), tint: tint.premultiplied8.packed)
        if incremental, tk == tintKey, let s = cached { return s }
        let (l, d) = blurred!
        let out = Pixmap(width: l.width, height: l.height)
        for y in 0..<out.height {
            Blend.lerpSpan(out.pixels + y * out.stride, l.pixels + y * l.stride, d.pixels + y * d.stride,
                           count: out.width, weight: tk.weight)
        }
        Canvas(out).fill(deviceRect: out.bounds, tint)
        let s = Sprite(pixmap: out, origin: (rect.x, rect.y))
        tintKey = tk
        cached = s
        return s
    }

    /// One appearance's backdrop: the page around `rect` (with room for the blur to reach real
    /// neighbours), blurred, cut to `rect`.
    private mutating func blur(_ rect: IntRect, background: PreparedBackground, weight: UInt32, sigma: Double) -> Pixmap {
        blurs += 1
        let margin = GaussianBlur.extent(sigma: sigma)
        let box = rect.insetBy(dx: -margin, dy: -margin)
        let pix = Pixmap(width: max(1, box.width), height: max(1, box.height))
        background.draw(box, weight: weight, into: pix)
        let c = Canvas(pix)
        c.beginLayer(deviceBounds: pix.bounds)
        c.draw(Sprite(pixmap: pix, origin: (0, 0)))
        c.applyBlur(sigma: sigma)
        let layer = c.endLayerAsSprite()
        let out = Pixmap(width: max(1, rect.width), height: max(1, rect.height))
        out.copyRegion(from: layer.pixmap, sourceX: margin, sourceY: margin)
        return out
    }
}
