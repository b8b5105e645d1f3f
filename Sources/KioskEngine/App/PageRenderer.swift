import DarkModeToggle
import Raster
import Synchronization

/// The page's frame composition: turns a `PageModel` into pixels in one persistent frame, and
/// keeps what makes that cheap (each toggle's sprites, the button's material and shapes, the
/// background images scaled to the page, what the frame shows now). It reads only the model
/// it is given; the app's state, input and layout stay in `KioskApp`.
///
/// Each frame re-renders only what changed: the whole page when anything static changed
/// (named colours during the cross-fade, the button's label, focus, layout), otherwise only the
/// toggles' dirty rectangles (everything under them redrawn, clipped), and the FPS overlay.
public final class PageRenderer {
    /// The persistent CPU frame (page pixels, premultiplied RGBA, R,G,B,A byte order).
    public let frame: Pixmap
    private let canvas: Canvas
    /// Draws the shaped labels (the app shapes them with the same typesetter).
    private let typesetter: LabelTypesetter
    /// The toggles' width in points (the toggle renderers are made for it).
    private let toggleWidth: Double
    private var renderers: TogglePair<any ToggleStyleRenderer>
    /// The scale `renderers` were made for.
    private var rendererScale: Double
    // What the frame currently shows.
    private var shownStatic: StaticKey?
    private var shownToggles = TogglePair<ToggleFrame?>(both: nil)
    private var material = MaterialCache()
    /// The background images scaled and composed for this page size and colours.
    private var preparedBackground = PreparedBackground()
    private var backdropMaterial = BackdropMaterialCache()
    /// When false, every frame is drawn from scratch (no caches, whole page): the baseline
    /// that shows what caching and invalidation buy.
    public var incremental = true
    /// Helper threads for frames: with more than one lane, a frame that changes at least
    /// `parallelMinPixels` is cut into bands that the lanes draw at once, each with its own
    /// canvas, after the frame's pieces are made on the calling thread. The same pixels as one
    /// lane (tested).
    public var workers: FrameWorkers? {
        didSet { laneCanvases = (1..<max(1, workers?.lanes ?? 1)).map { _ in Canvas(frame) } }
    }
    /// Canvases of lanes 1… (lane 0 draws with `canvas`), each with its own layer pool.
    private var laneCanvases: [Canvas] = []
    /// Memory for each toggle's pieces when several lanes make them from scratch: one pool per
    /// part a toggle's pieces are made in (`ToggleStyleRenderer.fromScratchParts`), grown on use.
    private var scratchPools = TogglePair<[LayerPool]>(both: [])
    /// Labels are drawn one lane at a time: the typesetter keeps a glyph cache.
    private let textLock = Mutex(())
    public let fps = FrameTimeOverlay()
    /// The model being drawn, and its layout (set at the start of `render`, read by the lanes).
    private var model: PageModel!
    private var layout: PageLayout

    public init(pixelWidth: Int, pixelHeight: Int, toggleWidth: Double, typesetter: LabelTypesetter) {
        frame = Pixmap(width: pixelWidth, height: pixelHeight)
        canvas = Canvas(frame)
        self.toggleWidth = toggleWidth
        self.typesetter = typesetter
        layout = PageLayout(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: 1, toggleWidth: toggleWidth)
        rendererScale = layout.effectiveScale
        renderers = TogglePair { $0.style.makeRenderer(width: toggleWidth, scale: 1) }
    }

    /// A new page size (pixels): the next frame redraws everything.
    public func resize(pixelWidth: Int, pixelHeight: Int) {
        frame.reset(width: pixelWidth, height: pixelHeight)
        canvas.retarget(frame)
        for c in laneCanvases { c.retarget(frame) }
        invalidate()
    }

    /// Forgets what the frame shows, so the next `render` redraws the whole page (e.g. after
    /// the host lost its window contents).
    public func invalidate() {
        shownStatic = nil
        shownToggles = TogglePair(both: nil)
    }

    /// Redraws the whole page next time (everything outside the toggles changed, or may have).
    public func invalidatePage() { shownStatic = nil }

    /// True until the first frame, and after `invalidate`/`invalidatePage` until the next.
    public var needsPage: Bool { shownStatic == nil }

    /// The toggles' renderers for the model's scale: made again only when the scale changes
    /// (their sprite caches are per scale).
    private func prepareRenderers(_ layout: PageLayout) {
        guard rendererScale != layout.effectiveScale else { return }
        let scale = layout.effectiveScale, width = toggleWidth
        rendererScale = scale
        renderers = TogglePair { $0.style.makeRenderer(width: width, scale: scale) }
    }

    /// How many times the button's material backdrop was built (blurred and tinted).
    public var materialBuilds: Int { material.builds }
    /// How many of those builds blurred (the rest were one colour, see `MaterialCache`).
    public var materialBlurs: Int { material.blurredBuilds }
    /// How many times the background images were scaled to the page, and how many times the
    /// material's backdrop over them was blurred.
    public var backgroundScalings: Int { preparedBackground.scalings }
    public var backdropBlurs: Int { backdropMaterial.blurs }


    /// Everything but the toggles: equal keys draw equal pixels outside the toggles.
    private struct StaticKey: Equatable {
        var colors: [UInt32]
        var buttonText: String
        var focus: PageControl?
        var layout: PageLayout
        /// The page's darkness in 1/256 steps (what the background images' cross-fade and the
        /// button icon's halves draw with), and the composed images' generation (0 without).
        var darknessWeight: Int
        var backgroundGeneration: Int
    }

    /// The background images' cross-fade weight at darkness `d` (0 light … 256 dark).
    static func backgroundWeight(darkness d: Double) -> UInt32 { UInt32((clamp(d, 0, 1) * 256).rounded()) }

    /// The background images ready for this size and these colours; nil without images.
    private func backgroundImages(_ model: PageModel) -> PreparedBackground? {
        guard let bg = model.background, !bg.isEmpty else { return nil }
        preparedBackground.prepare(bg, width: frame.width, height: frame.height,
                                   lightColor: model.backgroundColors.light, darkColor: model.backgroundColors.dark)
        return preparedBackground
    }

    /// Rows per band when a frame is drawn and handed to `present` band by band: a band of a
    /// 1920-pixel-wide page (480 KB) is still in the core's cache when it is copied out.
    public static let presentBandRows = 64
    /// Rectangles smaller than this (pixels, 2 MB) are drawn whole, then presented: a toggle's
    /// changed rectangle (drag, ambient) is drawn faster in one piece, since each band would
    /// repeat the toggle's per-layer work.
    public static let presentBandMinPixels = 1 << 19

    /// Frames that change fewer pixels than this are drawn on the calling thread alone: waking
    /// a helper and handing pieces over costs CPU and saves no time on a few twinkling stars or
    /// a cloud group (measured: a drag's p50 frame, ~40 000 px, took 0.13 ms either way and
    /// 0.17-0.20 ms of CPU on two lanes against 0.13 on one).
    public var parallelMinPixels = 1 << 17

    /// What a frame draws with besides its colours: made before any lane draws, read by all.
    private struct FrameAssets {
        var colors: ResolvedColors
        var toggles: TogglePair<ToggleFrame>
        var images: PreparedBackground?
        var weight: UInt32
        /// The button's material backdrop (nil when no changed rectangle reaches the button).
        var material: Sprite?
        /// The button capsule's and hairline's coverage (with the material).
        var buttonShapes: ButtonShapes?
        /// Where a resting toggle's kept composition draws opaquely whatever lies under it
        /// (`ToggleDeviceRenderer.opaqueCore`): no page colour is filled there first.
        var opaqueCores: [IntRect] = []
    }

    /// The button capsule's and hairline's anti-aliased coverage, rasterized once per layout:
    /// every frame that redraws the button masks the material with the one and fills the other
    /// through it (the bytes of rasterizing both paths again).
    struct ButtonShapes {
        var frame: Rect
        var lineWidth: Double
        var capsule: AlphaPlane
        var hairline: AlphaPlane
        var icon: IconShapes

        init(frame r: Rect, lineWidth: Double, iconDisc: Rect) {
            frame = r
            self.lineWidth = lineWidth
            icon = IconShapes(disc: iconDisc)
            let box = r.roundedOut
            capsule = AlphaPlane(coverageOf: Path.roundedRect(r, radius: r.height / 2), bounds: box)
            hairline = AlphaPlane(coverageOf: Path.roundedRectStroke(r, radius: r.height / 2, lineWidth: lineWidth, alignment: .inside),
                                  bounds: box)
        }
    }
    private var buttonShapes: ButtonShapes?

    /// The button's shapes for the current layout: kept (made when the layout changed), or
    /// rasterized anew for a frame drawn from scratch. Not thread-safe when kept.
    private func frameButtonShapes() -> ButtonShapes {
        let r = layout.buttonPixelFrame, w = max(1, 0.5 * layout.effectiveScale), disc = buttonIcon().disc
        guard incremental else { return ButtonShapes(frame: r, lineWidth: w, iconDisc: disc) }
        if let s = buttonShapes, s.frame == r, s.lineWidth == w, s.icon.disc == disc { return s }
        let s = ButtonShapes(frame: r, lineWidth: w, iconDisc: disc)
        buttonShapes = s
        return s
    }

    /// Renders what changed since the last frame into `frame`, as `model` shows the page.
    /// Returns the rectangles (pixels) that changed and must be presented; they are disjoint.
    ///
    /// With `present`, each large changed rectangle is drawn in bands of `presentBandRows` rows and
    /// every band is handed to `present` as soon as it is finished, while its rows are still in
    /// the cache (fill, composite and the presenter's copy touch each row back to back); the
    /// FPS overlay's rectangle follows last. With `workers`, a frame that changes at least
    /// `parallelMinPixels` is cut into bands that several lanes draw at once, and `present` is
    /// still called on the calling thread, for each band as it is finished. The pixels are the same either way
    /// (drawing is clip-independent, tested), and the returned rectangles too. Frames drawn
    /// from scratch (`incremental == false`) on one lane are drawn whole and then presented,
    /// since every piece would be rasterized again for each band; on several lanes their pieces
    /// are made once, a toggle or the button's material per lane, and then composed in bands.
    public func render(_ model: PageModel, present: ((IntRect) -> Void)? = nil) -> [IntRect] {
        self.model = model
        layout = model.layout
        prepareRenderers(layout)
        let colors = model.colors
        let images = backgroundImages(model)
        let weight = Self.backgroundWeight(darkness: model.darkness)
        let key = StaticKey(colors: colors.key, buttonText: model.buttonText, focus: model.focusVisible ? model.focus : nil, layout: layout,
                            darknessWeight: Int(weight), backgroundGeneration: images?.generation ?? 0)
        let pageRedrawn = !incremental || key != shownStatic
        var dirty = pageRedrawn ? pageDirtyRects(key, model.toggles) : toggleDirtyRects(model.toggles)
        var assets = FrameAssets(colors: colors, toggles: model.toggles, images: images, weight: weight, material: nil)
        if incremental {
            // Measured here, on the calling thread (a composition keeps its core once found).
            assets.opaqueCores = ToggleSlot.allCases.compactMap { renderers[$0].opaqueCore(model.toggles[$0], origin: layout.origin(of: $0)) }
        }
        let lanes = workers.map { $0.lanes } ?? 1
        let buttonChanged = dirty.contains { !$0.intersection(buttonReach).isEmpty }
        // From scratch on several lanes, one of them makes the material (`drawFromScratch`).
        if buttonChanged && (incremental || lanes == 1) {
            assets.material = buttonMaterial(colors: colors, images: images, weight: weight)
            assets.buttonShapes = frameButtonShapes()
        }
        if incremental, lanes > 1 || present != nil {
            drawChanged(dirty, assets, present: present)
        } else if let workers, lanes > 1 {
            drawFromScratch(dirty, assets, buttonChanged: buttonChanged, on: workers, present: present)
        } else {
            for r in dirty {
                drawPage(clip: r, on: canvas, assets)
                present?(r)
            }
        }
        shownStatic = key
        shownToggles = model.toggles.map(Optional.some)
        if model.showFPS {
            let page = colors[.pageBackground].premultiplied8.packed
            let r = fps.draw(on: canvas, page: page, force: pageRedrawn)
            dirty += r.subtracting(dirty)   // what the rectangles drawn do not cover yet
            if !r.isEmpty { present?(r) }
        }
        return dirty
    }

    /// What a frame that keeps the page (same colours, text, focus, layout) must draw: each
    /// toggle's changed rectangles, near neighbours joined, disjoint.
    private func toggleDirtyRects(_ toggles: TogglePair<ToggleFrame>) -> [IntRect] {
        let changed = ToggleSlot.allCases.flatMap { t in
            toggles[t] == shownToggles[t] ? []
                : renderers[t].dirtyRects(from: shownToggles[t], to: toggles[t], origin: layout.origin(of: t))
                    .map { $0.intersection(frame.bounds) }
        }
        return IntRect.disjointUnion(IntRect.clustered(changed))
    }

    /// Draws the changed rectangles of an incremental frame, handing each piece to `present`
    /// as it is finished: in bands on the lanes when the frame is large enough, else on the
    /// calling thread (large rectangles in bands, the rest whole).
    private func drawChanged(_ dirty: [IntRect], _ assets: FrameAssets, present: ((IntRect) -> Void)?) {
        if let workers, workers.lanes > 1, dirty.reduce(0, { $0 + $1.area }) >= parallelMinPixels {
            // Every rectangle in bands: the lanes share the work evenly, and each lane's
            // layers stay band-sized.
            let pieces = dirty.flatMap { $0.bands(rows: Self.presentBandRows) }
            for t in ToggleSlot.allCases where dirty.contains(where: { !$0.intersection(toggleReach(t)).isEmpty }) {
                renderers[t].prepare(assets.toggles[t], pool: canvas.pool)
            }
            workers.run(pieces.count, { item, lane in
                self.drawPage(clip: pieces[item], on: self.canvas(lane: lane), assets)
            }, { item in present?(pieces[item]) })
        } else {
            let pieces = dirty.flatMap { $0.area >= Self.presentBandMinPixels ? $0.bands(rows: Self.presentBandRows) : [$0] }
            for piece in pieces {
                drawPage(clip: piece, on: canvas, assets)
                present?(piece)
            }
        }
    }

    /// A frame drawn from scratch on several lanes: each toggle's pieces (in parts, where a
    /// style's pieces fall into independent groups) and the button's material and shapes are
    /// made anew at once, then the page is composed in bands.
    private func drawFromScratch(_ dirty: [IntRect], _ frameAssets: FrameAssets, buttonChanged: Bool, on workers: FrameWorkers,
                                 present: ((IntRect) -> Void)?) {
        // The lanes take jobs in order; the largest go first so that the small ones fill in at
        // the end: the Vivid's parts before the Original's, each style's in its own order (the
        // Vivid's first two 2.5-3 ms at 1920x1080 @2x, its sun and moon and the Original's
        // parts 1-2, the button 1; timed in a local build).
        var jobs: [(toggle: ToggleSlot, part: Int)] = []
        for t in [ToggleSlot.vivid, .original] {
            let parts = renderers[t].fromScratchParts
            // One pool per part, whichever lane makes it: each keeps one part's pieces.
            while scratchPools[t].count < parts { scratchPools[t].append(LayerPool()) }
            renderers[t].beginFromScratch(pools: Array(scratchPools[t].prefix(parts)))
            jobs += (0..<parts).map { (t, $0) }
        }
        let toggles = frameAssets.toggles, colors = frameAssets.colors
        var material: Sprite?, shapes: ButtonShapes?
        workers.run(jobs.count + 1, { item, lane in
            if item < jobs.count {
                let job = jobs[item]
                self.renderers[job.toggle].makeFromScratch(toggles[job.toggle], part: job.part)
            } else if buttonChanged {
                material = self.buttonMaterial(colors: colors, images: frameAssets.images, weight: frameAssets.weight)
                shapes = self.frameButtonShapes()
            }
        }, { _ in })
        for t in ToggleSlot.allCases { renderers[t].joinFromScratch(toggles[t]) }
        var assets = frameAssets
        assets.material = material
        assets.buttonShapes = shapes
        let pieces = dirty.flatMap { $0.bands(rows: Self.presentBandRows) }
        workers.run(pieces.count, { item, lane in
            self.drawPage(clip: pieces[item], on: self.canvas(lane: lane), assets)
        }, { item in present?(pieces[item]) })
        for t in ToggleSlot.allCases { renderers[t].endFromScratch() }
    }

    /// What a frame that redraws the page (its colours cross-fade, the button's text changes)
    /// must draw: the whole page, except each toggle's opaque core (`opaqueCore`, at rest),
    /// where the toggle's pixels depend only on its frame, as shown and as now; inside a core
    /// only what the toggle itself changes (a twinkling star, a drifting cloud). The whole page
    /// after `invalidate`, on a new layout, or with a focus ring showing (it may cross a
    /// toggle). Disjoint rectangles; the frame equals a whole-page redraw (tested).
    private func pageDirtyRects(_ key: StaticKey, _ toggles: TogglePair<ToggleFrame>) -> [IntRect] {
        guard incremental, let shown = shownStatic, shown.layout == key.layout, shown.focus == nil, key.focus == nil else {
            return [frame.bounds]
        }
        var cores: [IntRect] = [], inside: [IntRect] = []
        for t in ToggleSlot.allCases {
            let o = layout.origin(of: t)
            guard let old = shownToggles[t], let before = renderers[t].opaqueCore(old, origin: o),
                  let now = renderers[t].opaqueCore(toggles[t], origin: o) else { continue }
            var core = before.intersection(now).intersection(frame.bounds)
            // The FPS overlay repaints its panel whole: never inside a core.
            if model.showFPS { core = core.subtracting(fps.bounds).max { $0.area < $1.area } ?? .zero }
            guard !core.isEmpty else { continue }
            cores.append(core)
            inside += renderers[t].dirtyRects(from: old, to: toggles[t], origin: o).map { $0.intersection(core) }
        }
        return frame.bounds.subtracting(cores) + IntRect.disjointUnion(IntRect.clustered(inside))
    }

    /// The canvas lane `lane` draws with.
    private func canvas(lane: Int) -> Canvas { lane == 0 ? canvas : laneCanvases[lane - 1] }

    /// The device rectangle a toggle can touch.
    private func toggleReach(_ toggle: ToggleSlot) -> IntRect {
        renderers[toggle].bounds(origin: layout.origin(of: toggle))
    }

    /// The device rectangle the button (capsule, hairline, and its focus ring's slack) can touch.
    private var buttonReach: IntRect { layout.buttonPixelFrame.roundedOut.insetBy(dx: -2, dy: -2) }

    /// The button's material: a blurred copy of what lies behind (the page background, or the
    /// background images cross-fading), tinted; kept between frames by its cache.
    private func buttonMaterial(colors: ResolvedColors, images: PreparedBackground?, weight: UInt32) -> Sprite {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        if let images {
            return backdropMaterial.sprite(for: r.roundedOut, background: images, weight: weight, tint: colors[.materialTint],
                                           sigma: 10 * k, incremental: incremental)
        }
        return material.sprite(for: r, background: colors[.pageBackground].premultiplied8.packed, tint: colors[.materialTint],
                               sigma: 10 * k, canvasPool: canvas.pool, incremental: incremental)
    }

    /// Draws everything that touches `clip`: background, labels, toggles, button, focus ring.
    /// Reads the app's state and writes only `clip`'s pixels and `canvas`, so lanes with their
    /// own canvases may draw disjoint clips at once (the toggles' pieces prepared first).
    private func drawPage(clip: IntRect, on canvas: Canvas, _ a: FrameAssets) {
        canvas.clip = clip
        canvas.transform = .identity
        let colors = a.colors
        let background = colors[.pageBackground].premultiplied8.packed
        if let images = a.images {
            let r = clip.intersection(frame.bounds)
            images.draw(r, weight: a.weight, into: frame, at: (r.x, r.y))
        } else {
            for r in clip.subtracting(a.opaqueCores) { frame.fill(r, with: background) }
        }
        let s = layout.scale, k = layout.effectiveScale
        // Labels.
        for t in ToggleSlot.allCases {
            let box = layout.labelBox(of: t)
            let device = Rect(x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s).roundedOut
            guard !device.insetBy(dx: -2, dy: -2).intersection(clip).isEmpty, let label = model.labels.headlines[t] else { continue }
            let lineH = layout.headlineLineHeight * k
            let baseline = box.y * s + (lineH - (label.ascent + label.descent)) / 2 + label.ascent
            textLock.withLock { _ in
                typesetter.draw(label, on: canvas, baselineOrigin: Point((box.x * s).rounded(), baseline.rounded()), color: colors[.label])
            }
        }
        // Toggles.
        for t in ToggleSlot.allCases {
            let o = layout.origin(of: t)
            guard !renderers[t].bounds(origin: o).intersection(clip).isEmpty else { continue }
            renderers[t].draw(a.toggles[t], on: canvas, origin: o, cached: incremental)
            canvas.clip = clip
            canvas.transform = .identity
        }
        if let material = a.material, let shapes = a.buttonShapes {
            drawButton(on: canvas, clip: clip, colors: colors, material: material, shapes: shapes, weight: a.weight)
        }
        if model.focusVisible { drawFocusRing(on: canvas, clip: clip, colors: colors) }
        canvas.clip = frame.bounds
        canvas.transform = .identity
    }

    /// The button icon's box (pixels) and the disc drawn in it.
    private func buttonIcon() -> (box: Rect, disc: Rect) {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        let pad = PageLayout.buttonPadding.h * k
        let iconW = PageLayout.iconSize * k, iconD = PageLayout.iconDisc * k
        let box = Rect(x: r.minX + pad, y: r.midY - iconW / 2, width: iconW, height: iconW)
        return (box, box.insetBy(dx: (iconW - iconD) / 2, dy: (iconW - iconD) / 2))
    }

    private func drawButton(on canvas: Canvas, clip: IntRect, colors: ResolvedColors, material: Sprite, shapes: ButtonShapes,
                            weight: UInt32) {
        let r = layout.buttonPixelFrame, k = layout.effectiveScale
        guard !r.roundedOut.insetBy(dx: -2, dy: -2).intersection(clip).isEmpty else { return }
        canvas.draw(material, mask: .plane(shapes.capsule, offset: (0, 0)))
        canvas.fill(plane: shapes.hairline, colors[.hairline])
        // Icon and label.
        let cy = r.midY
        let icon = buttonIcon().box
        drawIcon(on: canvas, shapes.icon, followsSystem: model.followsSystem, color: colors[.buttonLabel], darkness: Double(weight) / 256)
        if let label = model.labels.button {
            let x = icon.maxX + PageLayout.iconSpacing * k
            let lineH = layout.calloutLineHeight * k
            let top = cy - lineH / 2
            let baseline = top + (lineH - (label.ascent + label.descent)) / 2 + label.ascent
            textLock.withLock { _ in
                typesetter.draw(label, on: canvas, baselineOrigin: Point(x.rounded(), baseline.rounded()), color: colors[.buttonLabel])
            }
        }
    }

    /// "circle.lefthalf.filled" (a ring with half of it filled) or, while following the system,
    /// "checkmark.circle.fill" (a filled disc with the check knocked out). The screenshots show
    /// the filled half on the left in light and on the right in dark; during the page cross-fade
    /// the halves trade places (each at its share of the page's `darkness`, 0 light … 1 dark).
    /// The shapes' coverage is kept per layout (`IconShapes`): the bytes of filling the paths.
    private func drawIcon(on canvas: Canvas, _ icon: IconShapes, followsSystem: Bool, color: Color, darkness: Double) {
        if followsSystem {
            canvas.fill(plane: icon.check, color)
        } else {
            canvas.fill(plane: icon.ring, color)
            let d = clamp(darkness, 0, 1)
            if d < 1 { canvas.fill(plane: icon.leftHalf, color.withAlpha(color.a * (1 - d))) }
            if d > 0 { canvas.fill(plane: icon.rightHalf, color.withAlpha(color.a * d)) }
        }
    }

    /// The button icon's shapes in the disc `r`, as coverage: the check disc (even-odd), the
    /// ring, and the left half (top → left → bottom) and right half (top → right → bottom) of
    /// the disc inside the ring.
    struct IconShapes {
        var disc: Rect
        var check: AlphaPlane
        var ring: AlphaPlane
        var leftHalf: AlphaPlane
        var rightHalf: AlphaPlane

        init(disc r: Rect) {
            disc = r
            let box = r.roundedOut.insetBy(dx: -1, dy: -1)
            let c = r.center, radius = r.width / 2
            var check = Path.circle(center: c, radius: radius)
            // The check mark as a knocked-out stroke polygon.
            let w = radius * 0.2
            let a = Point(c.x - radius * 0.45, c.y + radius * 0.02)
            let b = Point(c.x - radius * 0.1, c.y + radius * 0.38)
            let d = Point(c.x + radius * 0.48, c.y - radius * 0.35)
            check.append(Path.polygon([Point(a.x - w * 0.7, a.y + w * 0.7), Point(a.x + w * 0.7, a.y - w * 0.7),
                                       Point(b.x, b.y - w), Point(d.x - w * 0.75, d.y - w * 0.65),
                                       Point(d.x + w * 0.75, d.y + w * 0.65), Point(b.x, b.y + w)]))
            self.check = AlphaPlane(coverageOf: check, rule: .evenOdd, bounds: box)
            let ringWidth = max(1, radius * 0.16), inner = radius - ringWidth
            var ring = Path.circle(center: c, radius: radius)
            ring.append(Path.circle(center: c, radius: inner).reversed())
            self.ring = AlphaPlane(coverageOf: ring, bounds: box)
            func half(to end: Double) -> AlphaPlane {
                var p = Path()
                p.move(to: Point(c.x, c.y - inner))
                p.appendArc(center: c, rx: inner, ry: inner, from: -Double.pi / 2, to: end)
                p.close()
                return AlphaPlane(coverageOf: p, bounds: box)
            }
            leftHalf = half(to: -3 * Double.pi / 2)
            rightHalf = half(to: Double.pi / 2)
        }
    }

    private func drawFocusRing(on canvas: Canvas, clip: IntRect, colors: ResolvedColors) {
        let s = layout.scale, k = layout.effectiveScale
        let r: Rect, radius: Double
        let focus = model.focus
        switch focus {
        case .button:
            r = layout.buttonPixelFrame.insetBy(dx: -3 * k, dy: -3 * k)
            radius = r.height / 2
        case .original, .vivid:
            let t = layout.frame(of: focus), m = layout.metrics.trackFrame
            r = Rect(x: t.minX * s + m.minX * k, y: t.minY * s + m.minY * k, width: m.width * k, height: m.height * k)
                .insetBy(dx: -4 * k, dy: -4 * k)
            radius = r.height / 2
        }
        guard !r.roundedOut.insetBy(dx: -4, dy: -4).intersection(clip).isEmpty else { return }
        canvas.fill(Path.roundedRectStroke(r, radius: radius, lineWidth: max(2, 3 * k), alignment: .centered), .solid(colors[.focusRing]))
    }
}
