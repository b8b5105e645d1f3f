import Testing
import Raster
@testable import Text

@Suite struct GlyphRenderingTests {
    /// Our exact-area coverage of decomposed outlines against two independent measures: the
    /// outline's area from a fine flattening (shoelace), and FreeType's own smooth rasterizer.
    func checkCoverage(_ fonts: FontSet, face fi: Int, char: String, size: Double = 40) throws {
        let face = fonts.faces[fi]
        let gid = face.glyphIndex(char.unicodeScalars.first!)
        try #require(gid != 0)
        let renderer = GlyphRenderer(fonts: fonts)
        for phase in 0..<GlyphRenderer.phases {
            let ours = renderer.bitmap(face: fi, glyph: gid, pixelSize: size, phase: phase)
            let t = GlyphRenderer.glyphTransform(face: face, pixelSize: size, phase: phase)
            let (area, perimeter) = areaAndPerimeter(face.outline(glyph: gid), t)
            #expect(area > 0.05 * size * size, "\(char): outline area \(area) is implausibly small")
            let oursArea = Double(ours.coverageSum) / 255
            // (1) Against the outline's own area: our coverage flattens at 0.01 px (chord loss
            // ≤ ⅔·0.01 per px of perimeter) and rounds each boundary pixel to 1/255 (≤ 0.5/255 per
            // boundary pixel, about one per px of perimeter). These fonts' outlines do not
            // overlap, so the shoelace area is the filled area.
            let bound1 = perimeter * (2.0 / 3 * 0.01 + 0.5 / 255)
            #expect(abs(oursArea - area) <= bound1,
                    "\(char) phase \(phase): coverage \(oursArea) vs outline area \(area) (bound \(bound1))")
            // (2) Against FreeType's rasterizer on its own scaled outline: FreeType rounds the
            // scaled points to 1/64 px (an edge moves ≤ 1/128 px), flattens curves more coarsely
            // (its split thresholds leave chords up to about 1/16 px deep: loss ≤ ⅔·1/16 per px
            // of perimeter) and rounds coverage per pixel too. Those bound the difference.
            let ft = try #require(freeTypeRender(face, glyph: gid, pixelSize: size, phase: phase))
            let ftArea = Double(ft.sum) / 255
            let bound2 = perimeter * (1.0 / 128 + 2.0 / 3 / 16 + 2 * 0.5 / 255) + bound1
            #expect(abs(oursArea - ftArea) <= bound2,
                    "\(char) phase \(phase): ours \(oursArea) vs FreeType \(ftArea) (bound \(bound2))")
            // Same placement: the ink boxes agree to within one pixel on every side.
            #expect(abs(ours.left - ft.left) <= 1 && abs(ours.top - ft.top) <= 1)
            #expect(abs((ours.left + ours.width) - (ft.left + ft.width)) <= 1)
            #expect(abs((ours.top + ours.height) - (ft.top + ft.height)) <= 1)
        }
    }

    /// Inter and Noto Sans CJK are CFF fonts: cubic segments.
    @Test(arguments: ["O", "g", "a", "S", "@", "原", "鲜"])
    func cubicOutlinesMatchAreaAndFreeType(_ char: String) throws {
        let fonts = try makeFonts(language: "zh-Hans")
        guard let fi = fonts.faceIndex(for: char.unicodeScalars.first!) else {
            #expect(!notoCJKInstalled, "no face for \(char) although fonts-noto-cjk is installed")
            return
        }
        let path = fonts.faces[fi].outline(glyph: fonts.faces[fi].glyphIndex(char.unicodeScalars.first!))
        #expect(path.elements.contains { if case .cubic = $0 { return true } else { return false } })
        try checkCoverage(fonts, face: fi, char: char)
    }

    /// DejaVu Sans is a TrueType font: conic (quadratic) segments.
    @Test(arguments: ["O", "g", "a", "S", "@"])
    func quadraticOutlinesMatchAreaAndFreeType(_ char: String) throws {
        let fonts = try FontLibrary().fontSet(family: "DejaVu Sans", weight: .regular, fallback: false)
        try #require(fonts.primary.family == "DejaVu Sans" && fonts.primary.file.hasSuffix(".ttf"),
                     "needs fonts-dejavu-core; got \(fonts.primary.file)")
        let path = fonts.primary.outline(glyph: fonts.primary.glyphIndex(char.unicodeScalars.first!))
        #expect(path.elements.contains { if case .quad = $0 { return true } else { return false } })
        #expect(!path.elements.contains { if case .cubic = $0 { return true } else { return false } })
        try checkCoverage(fonts, face: 0, char: char)
    }

    @Test func cachedDrawingEqualsUncachedDrawing() throws {
        let fonts = try makeFonts(language: "zh-Hans")
        let bg = PremultipliedRGBA8(r: 235, g: 246, b: 255, a: 255).packed
        for (text, size) in [("Original", 34.0), ("Use System Setting", 32.0), ("使用系统设置", 32.0)] {
            let line = Shaper.shape(text, pixelSize: size, fonts: fonts)
            for originX in [10.0, 10.3, 10.55, 10.9] {
                let a = Pixmap(width: 420, height: 60), b = Pixmap(width: 420, height: 60)
                a.fill(a.bounds, with: bg); b.fill(b.bounds, with: bg)
                let renderer = GlyphRenderer(fonts: fonts)
                let color = Color(r: 0, g: 0, b: 0, a: 0.68)
                renderer.draw(line, on: Canvas(a), baselineOrigin: Point(originX, 44), color: color)
                // A second draw from the warm cache onto a fresh pixmap must match too.
                let warm = Pixmap(width: 420, height: 60)
                warm.fill(warm.bounds, with: bg)
                renderer.draw(line, on: Canvas(warm), baselineOrigin: Point(originX, 44), color: color)
                #expect(renderer.hits > 0)
                renderer.drawUncached(line, on: Canvas(b), baselineOrigin: Point(originX, 44), color: color)
                var maxDiff = 0, differing = 0
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        #expect(a[x, y] == warm[x, y])
                        let p = a.color(x: x, y: y), q = b.color(x: x, y: y)
                        let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)),
                                    abs(Int(p.a) - Int(q.a)))
                        if d > 0 { differing += 1 }
                        maxDiff = max(maxDiff, d)
                    }
                }
                // Both paths rasterize the same outline with the same transform except that the
                // uncached one adds the integer pen position before flattening; that changes the
                // floating-point rounding of curve points, which can flip a coverage byte's
                // rounding by one, and one coverage level moves a channel by at most one.
                #expect(maxDiff <= 1, "\(text) at x \(originX): max channel difference \(maxDiff)")
                #expect(differing <= 4 * line.glyphs.count, "\(text) at x \(originX): \(differing) pixels differ")
                #expect(inkBounds(a, background: bg, in: a.bounds) != nil)
            }
        }
    }

    @Test func cacheIsBoundedAndUserSpaceDrawingMapsThroughTheTransform() throws {
        let fonts = try makeFonts()
        let r = GlyphRenderer(fonts: fonts)
        let line = Shaper.shape("Following System", pixelSize: 32, fonts: fonts)
        let pix = Pixmap(width: 400, height: 60)
        r.draw(line, on: Canvas(pix), baselineOrigin: Point(10, 44), color: .black)
        let full = r.cachedBytes
        #expect(full > 0)
        r.maxCachedBytes = full / 2
        r.removeAll()
        r.draw(line, on: Canvas(Pixmap(width: 400, height: 60)), baselineOrigin: Point(10, 44), color: .black)
        #expect(r.cachedBytes <= full / 2)
        // Drawing at a user point under a scale-and-translate transform lands where the device
        // point would.
        let viaUser = Pixmap(width: 400, height: 60)
        let canvas = Canvas(viaUser)
        canvas.transform = Transform(a: 2, b: 0, c: 0, d: 2, tx: 4, ty: 0)
        r.draw(line, on: canvas, at: Point(3, 22), color: .black)
        for y in 0..<60 { for x in 0..<400 where viaUser[x, y] != pix[x, y] { Issue.record("differs at \(x),\(y)"); return } }
    }

    @Test func subPixelPhaseShiftsCoverage() throws {
        let fonts = try makeFonts()
        let r = GlyphRenderer(fonts: fonts)
        let gid = fonts.primary.glyphIndex("l")
        let b0 = r.bitmap(face: 0, glyph: gid, pixelSize: 34, phase: 0)
        let b2 = r.bitmap(face: 0, glyph: gid, pixelSize: 34, phase: 2)
        #expect(b0.coverage != b2.coverage)
        // Moving an outline does not change its area (up to rounding of boundary pixels).
        #expect(abs(b0.coverageSum - b2.coverageSum) <= 255 * 2 / 10)
        #expect(r.cachedGlyphCount == 2)
        _ = r.bitmap(face: 0, glyph: gid, pixelSize: 34, phase: 0)
        #expect(r.hits == 1 && r.misses == 2)
        #expect(GlyphRenderer.quantize(10.3) == (10, 1))
        #expect(GlyphRenderer.quantize(10.9) == (11, 0))
        #expect(GlyphRenderer.quantize(-0.3) == (-1, 3))
    }

    /// The drawn ink of each label spans about the shaped width (less the first glyph's left and
    /// the last glyph's right side bearing) and sits on the baseline; both languages.
    @Test(arguments: Language.allCases)
    func labelsInkMatchesLayout(_ lang: Language) throws {
        let fonts = try makeFonts(language: lang.tag)
        let table = StringTable(lang)
        let renderer = GlyphRenderer(fonts: fonts)
        for key in [StringKey.original, .vivid, .useSystemSetting, .followingSystem] {
            let line = Shaper.shape(table[key], pixelSize: 34, fonts: fonts, language: lang.tag)
            if lang == .simplifiedChinese && !notoCJKInstalled {
                #expect(!line.warnings.isEmpty)
                continue
            }
            #expect(line.warnings.isEmpty)
            let pix = Pixmap(width: 500, height: 80)
            renderer.draw(line, on: Canvas(pix), baselineOrigin: Point(20, 50), color: .white)
            let ink = try #require(inkBounds(pix, background: 0, in: pix.bounds))
            // Side bearings are under 0.15 em each in these faces.
            #expect(Double(ink.width) <= line.width + 2 && Double(ink.width) >= line.width - 0.3 * 34,
                    "\(table[key]): ink \(ink.width) vs width \(line.width)")
            #expect(ink.minX >= 20 - 2 && Double(ink.minX) <= 20 + 0.15 * 34)
            // Ink stays inside the line box.
            #expect(Double(ink.minY) >= 50 - line.ascent - 1 && Double(ink.maxY) <= 50 + line.descent + 1)
        }
    }
}
