import Foundation
import Testing
import Raster
@testable import Text

@Suite struct ShapingTests {
    @Test func interIsThePrimaryFaceAndSemibold() throws {
        let fonts = try makeFonts()
        #expect(fonts.primary.family == "Inter")
        #expect(fonts.primary.style.lowercased().replacingOccurrences(of: " ", with: "") == "semibold")
        #expect(fonts.warnings.isEmpty, "\(fonts.warnings)")
    }

    @Test func originalInInterAt17px() throws {
        let fonts = try makeFonts()
        let line = Shaper.shape("Original", pixelSize: 17, fonts: fonts, language: "en")
        // No ligature or decomposition applies to these eight letters in Inter: one glyph per
        // letter, each the cmap's glyph.
        #expect(line.glyphs.count == 8)
        let cmap = "Original".unicodeScalars.map { fonts.primary.glyphIndex($0) }
        #expect(line.glyphs.map(\.glyph) == cmap)
        #expect(line.warnings.isEmpty)
        #expect(line.runs.count == 1 && line.runs[0].script == "Latn" && line.runs[0].family == "Inter")

        // FreeType's unhinted advances, summed.
        let ftSum = cmap.reduce(0.0) { $0 + fonts.primary.advance(glyph: $1, pixelSize: 17) }
        // Without kerning HarfBuzz's advances are FreeType's, each rounded to 1/64 px by hb-ft.
        let plain = Shaper.shape("Original", pixelSize: 17, fonts: fonts, language: "en", features: ["-kern"])
        #expect(abs(plain.width - ftSum) <= 8.0 / 64, "no-kern width \(plain.width) vs FreeType \(ftSum)")
        // With default features, kerning adjusts a few pairs; a kern value is a small fraction of
        // the em (Inter's pairs stay well under 0.1 em), so 7 pairs move the line by < 0.7 em at most
        // and in practice by far less: allow 0.1 em for the whole line.
        #expect(abs(line.width - ftSum) <= 0.1 * 17, "kerned width \(line.width) vs FreeType \(ftSum)")
        // Plausible for a 17 px semibold word of 8 letters: between 0.45 and 0.65 em per letter.
        #expect(line.width > 8 * 0.45 * 17 && line.width < 8 * 0.65 * 17, "width \(line.width)")
        // Glyph x positions increase and end inside the line.
        #expect(zip(line.glyphs, line.glyphs.dropFirst()).allSatisfy { $0.x < $1.x })
        #expect(line.glyphs.last!.x < line.width)
        // Inter's vertical metrics: ascent near 0.97 em, descent near 0.24 em.
        #expect(line.ascent > 0.85 * 17 && line.ascent < 1.1 * 17)
        #expect(line.descent > 0.15 * 17 && line.descent < 0.35 * 17)
    }

    @Test func widthScalesWithSize() throws {
        let fonts = try makeFonts()
        let a = Shaper.shape("Use System Setting", pixelSize: 16, fonts: fonts)
        let b = Shaper.shape("Use System Setting", pixelSize: 32, fonts: fonts)
        // Unhinted: twice the size is twice the width, up to 1/64 px rounding per glyph.
        #expect(abs(b.width - 2 * a.width) <= Double(a.glyphs.count) * 3 / 64, "\(a.width) \(b.width)")
    }

    @Test func trackingSpacesClusters() throws {
        let fonts = try makeFonts()
        let plain = Shaper.shape("Original", pixelSize: 17, fonts: fonts)
        let tight = Shaper.shape("Original", pixelSize: 17, fonts: fonts, tracking: -0.026)
        // Seven gaps between eight letters, none after the last.
        #expect(abs(tight.width - (plain.width - 7 * 0.026 * 17)) < 1e-9)
        for (i, (a, b)) in zip(plain.glyphs, tight.glyphs).enumerated() {
            #expect(abs(b.x - (a.x - Double(i) * 0.026 * 17)) < 1e-9)
        }
    }

    @Test func layoutReshapesOnlyWhenTextOrSizeChanges() throws {
        let fonts = try makeFonts()
        var layout = TextLayout()
        var shaped = layout.update("Vivid", pixelSize: 34, fonts: fonts)
        #expect(shaped)
        let first = layout.line
        for _ in 0..<10 {
            shaped = layout.update("Vivid", pixelSize: 34, fonts: fonts)
            #expect(!shaped)
        }
        #expect(layout.shapeCount == 1)
        #expect(layout.line == first)
        shaped = layout.update("Vivid", pixelSize: 17, fonts: fonts)
        #expect(shaped)
        shaped = layout.update("Original", pixelSize: 17, fonts: fonts)
        #expect(shaped)
        #expect(layout.shapeCount == 3)
        #expect(layout.line?.text == "Original")
    }

    @Test func cjkFallbackFindsACoveringFace() throws {
        let fonts = try makeFonts(language: "zh-Hans")
        let text = "使用系统设置"
        let line = Shaper.shape(text, pixelSize: 32, fonts: fonts, language: "zh-Hans")
        if notoCJKInstalled {
            // fonts-noto-cjk is installed (CI installs it): the fallback must be a CJK face that
            // has every character, and nothing is reported missing.
            #expect(line.warnings.isEmpty, "\(line.warnings)")
            #expect(line.runs.count == 1)
            let run = try #require(line.runs.first)
            #expect(run.face != 0)
            #expect(run.family.contains("CJK"), "fallback family \(run.family)")
            #expect(run.script == "Hani")
            for s in text.unicodeScalars { #expect(fonts.faces[run.face].glyphIndex(s) != 0) }
            #expect(line.glyphs.count == 6 && line.glyphs.allSatisfy { $0.glyph != 0 })
            // CJK ideographs are full-width: 1 em each.
            #expect(abs(line.width - 6 * 32) <= 6.0 / 64, "width \(line.width)")
        } else {
            // Without it, either another installed face covers the text, or the absence is a
            // warning naming the characters and the package, never silent tofu.
            if let w = line.warnings.first {
                #expect(w.description.contains("fonts-noto-cjk"))
            } else {
                #expect(line.glyphs.allSatisfy { $0.glyph != 0 })
            }
        }
    }

    @Test func mixedScriptsSplitIntoRunsAndTheSpaceStaysLatin() throws {
        guard notoCJKInstalled else {
            // The split needs a CJK face; without one the characters are reported instead.
            let line = Shaper.shape("Original 原版", pixelSize: 17, fonts: try makeFonts())
            #expect(!line.warnings.isEmpty || line.runs.count == 2)
            return
        }
        let fonts = try makeFonts(language: "zh-Hans")
        let line = Shaper.shape("Original 原版", pixelSize: 17, fonts: fonts)
        #expect(line.runs.count == 2)
        #expect(line.runs.map(\.script) == ["Latn", "Hani"])
        #expect(line.runs[0].family == "Inter")
        #expect(line.runs[0].scalars == 0..<9)   // "Original " — the space joins the Latin run
        #expect(line.runs[1].scalars == 9..<11)
        #expect(line.glyphs.count == 11)
        // Glyphs from both runs sit on one pen: the CJK run starts where the Latin one ends.
        let latinEnd = Shaper.shape("Original ", pixelSize: 17, fonts: fonts).width
        #expect(abs(line.glyphs[9].x - latinEnd) < 1e-9)
        // The line box grows to the taller fallback face.
        #expect(line.ascent > Shaper.shape("Original", pixelSize: 17, fonts: fonts).ascent)
    }

    @Test func charactersNoFaceCoversAreReportedNotDrawn() throws {
        let fonts = try makeFonts()
        // U+0378 is unassigned in Unicode: no font has it.
        let line = Shaper.shape("A\u{0378}B", pixelSize: 20, fonts: fonts)
        #expect(line.warnings == [.missingGlyphs(text: "A\u{0378}B", scalars: ["\u{0378}"], family: "Inter")])
        #expect(line.warnings[0].description.contains("U+0378"))

        // With fallback off, Chinese in Inter is missing: a warning, and nothing drawn (no tofu).
        let interOnly = try makeFonts(fallback: false)
        let zh = Shaper.shape("原版", pixelSize: 34, fonts: interOnly)
        #expect(zh.warnings.count == 1)
        let desc = zh.warnings[0].description
        #expect(desc.contains("U+539F") && desc.contains("U+7248") && desc.contains("fonts-noto-cjk"), "\(desc)")
        #expect(zh.glyphs.allSatisfy { $0.glyph == 0 })
        let pix = Pixmap(width: 120, height: 60)
        GlyphRenderer(fonts: interOnly).draw(zh, on: Canvas(pix), baselineOrigin: Point(10, 40), color: .black)
        #expect(inkBounds(pix, background: 0, in: pix.bounds) == nil)
    }

    @Test func unknownFamilyIsASubstitutionWarning() throws {
        let fonts = try FontLibrary().fontSet(family: "No Such Family 12", weight: .regular)
        #expect(fonts.warnings == [.familySubstituted(requested: "No Such Family 12", used: fonts.primary.family)])
        #expect(fonts.warnings[0].description.contains("No Such Family 12"))
    }
}
