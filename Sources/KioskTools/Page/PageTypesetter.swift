import Log
import KioskEngine
import KioskSupport
import Raster
import Text

/// The engine's `LabelTypesetter` over the Text target: fontconfig finds Inter semibold (with
/// per-script fallback), HarfBuzz shapes, our rasterizer draws cached glyphs.
public final class PageTypesetter: LabelTypesetter {
    public let fonts: FontSet
    public let glyphs: GlyphRenderer
    public let language: Language

    final class Line { let line: ShapedLine; init(_ l: ShapedLine) { line = l } }

    public init(language: Language, family: String = "Inter") throws {
        let lib = try FontLibrary()
        fonts = try lib.fontSet(family: family, weight: .semibold, language: language.tag)
        glyphs = GlyphRenderer(fonts: fonts)
        self.language = language
    }

    public func shape(_ text: String, pixelSize: Double, tracking: Double) -> TypesetLabel {
        let line = Shaper.shape(text, pixelSize: pixelSize, fonts: fonts, language: language.tag, tracking: tracking)
        return TypesetLabel(text: text, pixelSize: pixelSize, tracking: tracking, width: line.width,
                            ascent: line.ascent, descent: line.descent, payload: Line(line))
    }

    public func draw(_ label: TypesetLabel, on canvas: Canvas, baselineOrigin: Point, color: Color) {
        guard let l = label.payload as? Line else { return }
        glyphs.draw(l.line, on: canvas, baselineOrigin: baselineOrigin, color: color)
    }

    /// Warnings for the page's strings in this language (a missing CJK face, a substituted
    /// family), each once.
    public func warnings(for strings: PageStrings) -> [String] {
        var out: [String] = fonts.warnings.map(\.description)
        let following = [nil] + AppearanceSourceKind.allCases.map { Optional($0) }
        for s in [strings.original, strings.vivid, strings.useSystemSetting] + following.map(strings.followingLabel(source:)) {
            let line = Shaper.shape(s, pixelSize: 17, fonts: fonts, language: language.tag)
            out += line.warnings.map(\.description)
        }
        // One line per problem: merge the missing-glyph lines into the first.
        var seen = Set<String>(), unique: [String] = []
        for w in out where seen.insert(w).inserted { unique.append(w) }
        if unique.count > 1, unique.allSatisfy({ $0.contains("no installed font has") }) {
            return ["text: no installed font covers the \(language.tag) labels; they are left out; install a CJK font (Debian: fonts-noto-cjk)"]
        }
        return unique
    }
}

extension PageStrings {
    /// The page's words from the string table of `language`.
    public init(_ language: Language) {
        let t = StringTable(language)
        self.init(original: t[.original], vivid: t[.vivid], useSystemSetting: t[.useSystemSetting],
                  followingSystem: t[.followingSystem], followingSystemVia: t[.followingSystemVia],
                  sourceNames: [.portal: t[.sourceDesktop], .lightSensor: t[.sourceLightSensor], .schedule: t[.sourceSchedule]],
                  followSystemAppearance: t[.followSystemAppearanceLabel], darkMode: t[.darkModeLabel])
    }
}

/// Builds the page's text: the string table and typesetter for a language; without fonts the
/// page runs with estimated sizes and one warning.
public enum PageText {
    public static func make(language: Language, warn: (String) -> Void = { Log.warning($0) })
        -> (strings: PageStrings, typesetter: LabelTypesetter?) {
        let strings = PageStrings(language)
        do {
            let t = try PageTypesetter(language: language)
            for w in t.warnings(for: strings) { warn(w) }
            return (strings, t)
        } catch {
            warn("text: \(error); the page is drawn without labels")
            return (strings, nil)
        }
    }
}
