import CHarfBuzz
import Raster

/// One glyph placed on a line, in pixels relative to the line's baseline origin (y down).
public struct PositionedGlyph: Equatable, Sendable {
    /// Index of the face in the `FontSet.faces` the line was shaped with.
    public var face: Int
    public var glyph: UInt32
    public var x: Double
    public var y: Double
    /// Index of the first code point (in the line's Unicode scalars) this glyph came from.
    public var cluster: Int
}

/// A maximal stretch of text shaped with one face, script and direction.
public struct ShapedRun: Equatable, Sendable {
    public var face: Int
    public var family: String
    /// ISO 15924 script tag ("Latn", "Hani").
    public var script: String
    public var rightToLeft: Bool
    /// Scalar range in the line's text.
    public var scalars: Range<Int>
}

/// A shaped line of text at one pixel size: what layout measures and drawing blits.
/// Shaping is the expensive part; keep the value and reshape only when the text or size changes.
public struct ShapedLine: Equatable, Sendable {
    public let text: String
    public let pixelSize: Double
    /// Letter spacing (em) the line was shaped with.
    public let tracking: Double
    public let glyphs: [PositionedGlyph]
    public let runs: [ShapedRun]
    /// Advance width of the line in pixels.
    public let width: Double
    /// Distance from the baseline up to the top / down to the bottom of the line box (positive),
    /// and the extra gap between lines: the maximum over the faces used (the primary always counts).
    public let ascent: Double
    public let descent: Double
    public let lineGap: Double
    /// Diagnostics for this line (characters no face covers); empty when all is well.
    public let warnings: [TextWarning]

    public var height: Double { ascent + descent }
}

/// A line the caller keeps: `update` reshapes only when the text or size changed.
public struct TextLayout {
    public private(set) var line: ShapedLine?
    /// How many times this layout has shaped (for checks that shaping is not per frame).
    public private(set) var shapeCount = 0

    public init() {}

    /// Makes `line` the text at `pixelSize`; returns true when it had to shape.
    @discardableResult
    public mutating func update(_ text: String, pixelSize: Double, fonts: FontSet, language: String? = nil,
                                tracking: Double = 0) -> Bool {
        if let line, line.text == text, line.pixelSize == pixelSize, line.tracking == tracking { return false }
        line = Shaper.shape(text, pixelSize: pixelSize, fonts: fonts, language: language ?? fonts.language,
                            tracking: tracking)
        shapeCount += 1
        return true
    }
}

/// HarfBuzz shaping with per-script, per-face run splitting.
public enum Shaper {
    /// Shapes one line of text. Characters are assigned to the first face (primary, then
    /// fontconfig's fallbacks) that has a glyph; neutral characters (spaces, punctuation,
    /// combining marks) stay with the surrounding run when its face covers them. Runs are laid
    /// out left to right in logical order (no bidi reordering); within a run HarfBuzz uses the
    /// script's direction.
    ///
    /// `features` are HarfBuzz feature strings ("-kern", "+tnum"); none means the defaults.
    /// `tracking` is letter spacing in em added between clusters (negative tightens; SF Pro's
    /// built-in tracking at 17 pt is about −0.026 em, Inter's recommended at 17 px about −0.013).
    public static func shape(_ text: String, pixelSize: Double, fonts: FontSet, language: String? = nil,
                             features: [String] = [], tracking: Double = 0) -> ShapedLine {
        let scalars = Array(text.unicodeScalars)
        let scripts = resolvedScripts(scalars)
        let (faceOf, missing) = assignFaces(scalars, fonts: fonts)
        let lang = language.map { hb_language_from_string($0, -1) } ?? hb_language_get_default()
        var (glyphs, runs, width) = shapeRuns(scalars, scripts: scripts, faces: faceOf, fonts: fonts, pixelSize: pixelSize,
                                              language: lang, features: features)
        width += track(&glyphs, tracking: tracking, pixelSize: pixelSize)
        let (ascent, descent, gap) = lineMetrics(faces: Set(runs.map(\.face)).union([0]), fonts: fonts, pixelSize: pixelSize)
        var warnings: [TextWarning] = []
        if !missing.isEmpty {
            warnings.append(.missingGlyphs(text: text, scalars: missing, family: fonts.requestedFamily))
        }
        return ShapedLine(text: text, pixelSize: pixelSize, tracking: tracking, glyphs: glyphs, runs: runs, width: width,
                          ascent: ascent, descent: descent, lineGap: max(0, gap), warnings: warnings)
    }

    private static func isNeutral(_ s: hb_script_t) -> Bool {
        s == CHB_SCRIPT_COMMON || s == CHB_SCRIPT_INHERITED || s == CHB_SCRIPT_UNKNOWN
    }

    private static func script(of s: Unicode.Scalar) -> hb_script_t { hb_unicode_script(hb_unicode_funcs_get_default(), s.value) }

    /// 1. The script of each scalar, Common / Inherited resolved to a neighbour's script (the
    /// one before, else the one after).
    static func resolvedScripts(_ scalars: [Unicode.Scalar]) -> [hb_script_t] {
        var scripts = scalars.map(script(of:))
        var last: hb_script_t? = nil
        for i in scripts.indices {
            if isNeutral(scripts[i]) { if let last { scripts[i] = last } } else { last = scripts[i] }
        }
        var next: hb_script_t? = nil
        for i in scripts.indices.reversed() {
            if isNeutral(scripts[i]) { if let next { scripts[i] = next } } else { next = scripts[i] }
        }
        return scripts
    }

    /// 2. The face of each scalar (an index into `fonts.faces`), and the scalars no face has.
    static func assignFaces(_ scalars: [Unicode.Scalar], fonts: FontSet) -> (faces: [Int], missing: [Unicode.Scalar]) {
        var faceOf = [Int](repeating: 0, count: scalars.count)
        var missing: [Unicode.Scalar] = []
        var prevFace = 0
        for (i, s) in scalars.enumerated() {
            if isNeutral(script(of: s)) && i > 0 && fonts.covers(prevFace, s) {
                faceOf[i] = prevFace
            } else if let f = fonts.faceIndex(for: s) {
                faceOf[i] = f
            } else {
                // Nothing has it: shape with the current face (the glyph is .notdef and is not
                // drawn) and report it.
                faceOf[i] = prevFace
                if !missing.contains(s) && !isIgnorable(s) { missing.append(s) }
            }
            prevFace = faceOf[i]
        }
        // A leading neutral that the first real face covers joins that face's run.
        if let firstStrong = scalars.indices.first(where: { !isNeutral(script(of: scalars[$0])) }) {
            let f = faceOf[firstStrong]
            for i in 0..<firstStrong where fonts.covers(f, scalars[i]) { faceOf[i] = f }
        }
        return (faceOf, missing)
    }

    /// 3. Runs of one face and script, each shaped by HarfBuzz; the glyphs placed along one
    /// pen, which ends at the line's advance width.
    static func shapeRuns(_ scalars: [Unicode.Scalar], scripts: [hb_script_t], faces faceOf: [Int], fonts: FontSet,
                          pixelSize: Double, language: hb_language_t?, features: [String])
        -> (glyphs: [PositionedGlyph], runs: [ShapedRun], width: Double) {
        var glyphs: [PositionedGlyph] = []
        var runs: [ShapedRun] = []
        var pen = 0.0
        let codepoints = scalars.map { $0.value }
        let hbFeatures: [hb_feature_t] = features.compactMap { f in
            var feature = hb_feature_t()
            return hb_feature_from_string(f, -1, &feature) != 0 ? feature : nil
        }
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer) }
        var start = 0
        while start < scalars.count {
            var end = start + 1
            while end < scalars.count && faceOf[end] == faceOf[start] && scripts[end] == scripts[start] { end += 1 }
            let face = fonts.faces[faceOf[start]]
            face.setPixelSize(pixelSize)
            var dir = hb_script_get_horizontal_direction(scripts[start])
            if dir != HB_DIRECTION_RTL { dir = HB_DIRECTION_LTR }
            hb_buffer_clear_contents(buffer)
            codepoints.withUnsafeBufferPointer {
                hb_buffer_add_utf32(buffer, $0.baseAddress, Int32(codepoints.count), UInt32(start), Int32(end - start))
            }
            hb_buffer_set_direction(buffer, dir)
            hb_buffer_set_script(buffer, scripts[start])
            hb_buffer_set_language(buffer, language)
            hbFeatures.withUnsafeBufferPointer { hb_shape(face.hbFont, buffer, $0.baseAddress, UInt32($0.count)) }
            var n: UInt32 = 0
            let infos = hb_buffer_get_glyph_infos(buffer, &n)
            let positions = hb_buffer_get_glyph_positions(buffer, &n)
            for g in 0..<Int(n) {
                let info = infos![g], pos = positions![g]
                glyphs.append(PositionedGlyph(face: faceOf[start], glyph: info.codepoint, x: pen + Double(pos.x_offset) / 64,
                                              y: -Double(pos.y_offset) / 64, cluster: Int(info.cluster)))
                pen += Double(pos.x_advance) / 64
            }
            runs.append(ShapedRun(face: faceOf[start], family: face.family, script: isoTag(scripts[start]),
                                  rightToLeft: dir == HB_DIRECTION_RTL, scalars: start..<end))
            start = end
        }
        return (glyphs, runs, pen)
    }

    /// A script's ISO 15924 tag ("Latn").
    private static func isoTag(_ script: hb_script_t) -> String {
        var tagBytes = [CChar](repeating: 0, count: 5)
        hb_tag_to_string(hb_script_to_iso15924_tag(script), &tagBytes)
        return String(decoding: tagBytes.prefix(4).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Tracking: shifts every glyph by the spacing of the cluster boundaries before it; returns
    /// how much wider the line became.
    static func track(_ glyphs: inout [PositionedGlyph], tracking: Double, pixelSize: Double) -> Double {
        guard tracking != 0 && !glyphs.isEmpty else { return 0 }
        let step = tracking * pixelSize
        var shift = 0.0
        for i in glyphs.indices {
            if i > 0 && glyphs[i].cluster != glyphs[i - 1].cluster { shift += step }
            glyphs[i].x += shift
        }
        return shift
    }

    /// 4. Line metrics (pixels) over the faces used (and the primary, so an empty line has a
    /// height): the largest ascent, descent and line gap.
    static func lineMetrics(faces: Set<Int>, fonts: FontSet, pixelSize: Double) -> (ascent: Double, descent: Double, gap: Double) {
        var ascent = 0.0, descent = 0.0, gap = 0.0
        for i in faces {
            let f = fonts.faces[i]
            let k = pixelSize / f.unitsPerEm
            let a = f.ascender * k, d = -f.descender * k
            ascent = max(ascent, a); descent = max(descent, d)
            gap = max(gap, f.lineHeight * k - a - d)
        }
        return (ascent, descent, gap)
    }

    /// Format and control characters that need no glyph (zero-width joiners, variation selectors…).
    static func isIgnorable(_ s: Unicode.Scalar) -> Bool {
        s.properties.isDefaultIgnorableCodePoint || s.properties.generalCategory == .control
    }
}
