import CFontconfig
import CFreeType
import CHarfBuzz
import Raster

/// Why fonts could not be set up at all (as opposed to a `TextWarning`, which still draws).
public struct FontError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Font weights by their CSS / fontconfig meaning.
public enum FontWeight: Sendable, Equatable {
    case regular, medium, semibold, bold

    /// The fontconfig weight value (`FC_WEIGHT_*`).
    var fontconfigValue: Int32 {
        switch self {
        case .regular: return 80
        case .medium: return 100
        case .semibold: return 180
        case .bold: return 200
        }
    }
}

/// Owns the FreeType library; every face keeps it alive (FT_Done_FreeType frees its faces).
final class FreeTypeHandle {
    let library: FT_Library
    init(_ library: FT_Library) { self.library = library }
    deinit { FT_Done_FreeType(library) }
}

/// One loaded face: a FreeType face for outlines and metrics and a HarfBuzz font on it (hb-ft).
///
/// FreeType keeps one current size per face; `setPixelSize` sets it (fractional sizes allowed)
/// and tells HarfBuzz. Only shaping depends on it; outlines are read unscaled (font units).
public final class FontFace {
    public let family: String
    public let style: String
    public let file: String
    public let index: Int
    let ftFace: FT_Face
    let hbFont: OpaquePointer
    private let owner: FreeTypeHandle
    /// Font units per em.
    public let unitsPerEm: Double
    /// Ascender, descender (negative below the baseline) and line height in font units (hhea / OS/2,
    /// as FreeType reports them).
    public let ascender: Double, descender: Double, lineHeight: Double
    private var currentSize64: Int = -1
    private var outlines: [UInt32: Path] = [:]

    init(library: FreeTypeHandle, file: String, index: Int) throws {
        var face: FT_Face?
        let err = FT_New_Face(library.library, file, FT_Long(index), &face)
        guard err == 0, let face else { throw FontError("cannot open font \(file) (face \(index)): FreeType error \(err)") }
        guard face.pointee.face_flags & CFT_FACE_FLAG_SCALABLE != 0 else {
            FT_Done_Face(face)
            throw FontError("font \(file) has no outlines (bitmap-only faces are not supported)")
        }
        FT_Select_Charmap(face, CFT_ENCODING_UNICODE)
        self.ftFace = face
        self.owner = library
        self.file = file
        self.index = index
        self.family = face.pointee.family_name.map { String(cString: $0) } ?? "?"
        self.style = face.pointee.style_name.map { String(cString: $0) } ?? "?"
        self.unitsPerEm = Double(face.pointee.units_per_EM)
        self.ascender = Double(face.pointee.ascender)
        self.descender = Double(face.pointee.descender)
        self.lineHeight = Double(face.pointee.height)
        self.hbFont = hb_ft_font_create_referenced(face)
        // Unhinted advances and positions: layout is resolution independent and sub-pixel.
        hb_ft_font_set_load_flags(hbFont, CFT_LOAD_NO_HINTING | CFT_LOAD_NO_BITMAP)
    }

    deinit {
        hb_font_destroy(hbFont)
        FT_Done_Face(ftFace)
    }

    /// Sets the em size in pixels (26.6 precision) for shaping.
    func setPixelSize(_ size: Double) {
        let s64 = max(1, Int((size * 64).rounded()))
        guard s64 != currentSize64 else { return }
        FT_Set_Char_Size(ftFace, 0, FT_F26Dot6(s64), 72, 72)
        hb_ft_font_changed(hbFont)
        currentSize64 = s64
    }

    /// Forgets the current size (after something else changed the FreeType face's size).
    func invalidateSize() { currentSize64 = -1 }

    /// The glyph for a code point, 0 when the face has none.
    public func glyphIndex(_ scalar: Unicode.Scalar) -> UInt32 {
        UInt32(FT_Get_Char_Index(ftFace, FT_ULong(scalar.value)))
    }

    /// The glyph's outline in font units, y pointing down (device orientation), origin at the pen.
    /// Cached per glyph.
    public func outline(glyph: UInt32) -> Path {
        if let p = outlines[glyph] { return p }
        let p = GlyphOutline.decompose(face: ftFace, glyph: glyph)
        outlines[glyph] = p
        return p
    }

    /// The unhinted advance of a glyph in pixels at `pixelSize` (FreeType's own, for checks).
    public func advance(glyph: UInt32, pixelSize: Double) -> Double {
        var adv: FT_Fixed = 0
        FT_Get_Advance(ftFace, FT_UInt(glyph), CFT_LOAD_NO_SCALE, &adv)
        return Double(adv) * pixelSize / unitsPerEm
    }
}

/// The shared font machinery: one FreeType library, one fontconfig configuration, and the
/// faces loaded so far (by file and index). Not thread-safe; use from one thread.
public final class FontLibrary {
    let ft: FreeTypeHandle
    let fc: OpaquePointer
    private var faces: [String: FontFace] = [:]

    /// Initialises FreeType and loads the fontconfig configuration and font cache.
    public init() throws {
        var lib: FT_Library?
        let err = FT_Init_FreeType(&lib)
        guard err == 0, let lib else { throw FontError("FreeType did not initialise (error \(err))") }
        guard let config = FcInitLoadConfigAndFonts() else {
            FT_Done_FreeType(lib)
            throw FontError("fontconfig did not load its configuration")
        }
        ft = FreeTypeHandle(lib)
        fc = config
    }

    deinit {
        FcConfigDestroy(fc)
    }

    func face(file: String, index: Int) throws -> FontFace {
        let key = "\(index)@\(file)"
        if let f = faces[key] { return f }
        let f = try FontFace(library: ft, file: file, index: index)
        faces[key] = f
        return f
    }

    /// Opens a font file directly (tests and tools; the app uses `fontSet`).
    public func face(path: String, index: Int = 0) throws -> FontFace { try face(file: path, index: index) }

    /// The faces fontconfig offers for a family and weight, best first, with per-script fallback.
    /// `language` is a BCP 47 tag ("en", "zh-Hans") that steers the choice among fallbacks
    /// (e.g. the Simplified Chinese cut of a pan-CJK font). `fallback: false` restricts the set
    /// to the primary face (characters it lacks are then reported as missing).
    public func fontSet(family: String = "Inter", weight: FontWeight = .semibold, language: String? = nil,
                        fallback: Bool = true) throws -> FontSet {
        try FontSet(library: self, family: family, weight: weight, language: language, fallback: fallback)
    }
}

/// fontconfig's language code for a BCP 47 tag.
func fontconfigLanguage(_ tag: String) -> String {
    let t = String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
    if t == "zh-hans" || t.hasPrefix("zh-hans-") || t == "zh-cn" || t == "zh-sg" { return "zh-cn" }
    if t == "zh-hant" || t == "zh-tw" { return "zh-tw" }
    if t == "zh-hk" { return "zh-hk" }
    return t
}

/// A primary face and fontconfig's sorted fallback list for one family, weight and language.
///
/// Faces are loaded lazily: a fallback face is opened only when a character needs it. The
/// `faces` array grows as that happens; shaped lines refer to faces by their index in it.
public final class FontSet {
    public let library: FontLibrary
    public let requestedFamily: String
    public let weight: FontWeight
    public let language: String?
    /// Faces loaded so far; index 0 is the primary face.
    public private(set) var faces: [FontFace] = []
    /// Set-up diagnostics (e.g. the requested family is not installed and another was used).
    public private(set) var warnings: [TextWarning] = []
    private var candidates: [(file: String, index: Int, charset: OpaquePointer, family: String)] = []
    private var candidateFace: [Int: Int] = [:]     // candidate index → faces index
    private var scalarFace: [UInt32: Int] = [:]      // code point → faces index, or -1
    private let sorted: UnsafeMutablePointer<FcFontSet>

    init(library: FontLibrary, family: String, weight: FontWeight, language: String?, fallback: Bool) throws {
        self.library = library
        self.requestedFamily = family
        self.weight = weight
        self.language = language
        guard let pat = FcPatternCreate() else { throw FontError("fontconfig: out of memory") }
        defer { FcPatternDestroy(pat) }
        _ = family.withCString { FcPatternAddString(pat, FC_FAMILY, UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        FcPatternAddInteger(pat, FC_WEIGHT, weight.fontconfigValue)
        FcPatternAddBool(pat, FC_SCALABLE, 1)
        if let language {
            _ = fontconfigLanguage(language).withCString {
                FcPatternAddString(pat, FC_LANG, UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self))
            }
        }
        FcConfigSubstitute(library.fc, pat, FcMatchPattern)
        FcDefaultSubstitute(pat)
        var result = FcResultNoMatch
        guard let set = FcFontSort(library.fc, pat, 1, nil, &result), set.pointee.nfont > 0 else {
            throw FontError("fontconfig found no fonts at all for family \"\(family)\" (is any font installed?)")
        }
        sorted = set
        for i in 0..<Int(set.pointee.nfont) {
            guard let p = set.pointee.fonts[i] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            var idx: Int32 = 0
            var cs: OpaquePointer?
            var fam: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(p, FC_FILE, 0, &file) == FcResultMatch, let file,
                  FcPatternGetCharSet(p, FC_CHARSET, 0, &cs) == FcResultMatch, let cs else { continue }
            var scalable: FcBool = 0
            if FcPatternGetBool(p, FC_SCALABLE, 0, &scalable) == FcResultMatch, scalable == 0 { continue }
            _ = FcPatternGetInteger(p, FC_INDEX, 0, &idx)
            _ = FcPatternGetString(p, FC_FAMILY, 0, &fam)
            let famName = fam.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? "?"
            candidates.append((String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)),
                               Int(idx), cs, famName))
            if !fallback { break }
        }
        guard !candidates.isEmpty else {
            FcFontSetDestroy(set)
            throw FontError("fontconfig offered no scalable font for family \"\(family)\"")
        }
        let primary = try loadCandidate(0)
        if primary.family.lowercased() != family.lowercased() && candidates[0].family.lowercased() != family.lowercased() {
            warnings.append(.familySubstituted(requested: family, used: primary.family))
        }
    }

    deinit { FcFontSetDestroy(sorted) }

    /// The primary face (what fontconfig matched for the family).
    public var primary: FontFace { faces[0] }

    /// How many faces fontconfig offered (primary included) before any were loaded.
    public var candidateCount: Int { candidates.count }

    private func loadCandidate(_ c: Int) throws -> FontFace {
        if let i = candidateFace[c] { return faces[i] }
        let f = try library.face(file: candidates[c].file, index: candidates[c].index)
        if let existing = faces.firstIndex(where: { $0 === f }) {
            candidateFace[c] = existing
            return f
        }
        faces.append(f)
        candidateFace[c] = faces.count - 1
        return f
    }

    /// Whether the face at `faces[i]` has a glyph for `scalar`.
    func covers(_ i: Int, _ scalar: Unicode.Scalar) -> Bool { faces[i].glyphIndex(scalar) != 0 }

    /// The index (in `faces`) of the first face in fontconfig's order that has a glyph for
    /// `scalar`, loading it if needed; nil when no installed face has one.
    public func faceIndex(for scalar: Unicode.Scalar) -> Int? {
        if let i = scalarFace[scalar.value] { return i < 0 ? nil : i }
        var found = -1
        if covers(0, scalar) {
            found = 0
        } else {
            for c in 1..<max(1, candidates.count) where FcCharSetHasChar(candidates[c].charset, scalar.value) != 0 {
                guard let f = try? loadCandidate(c), let i = faces.firstIndex(where: { $0 === f }) else { continue }
                if covers(i, scalar) { found = i; break }
            }
        }
        scalarFace[scalar.value] = found
        return found < 0 ? nil : found
    }
}
