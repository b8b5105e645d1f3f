import CFreeType
import Raster

/// Converts FreeType glyph outlines into Raster paths.
enum GlyphOutline {
    /// Collects decomposed segments; y is flipped to point down.
    private final class Sink {
        var path = Path()
        var open = false
        func p(_ v: UnsafePointer<FT_Vector>?) -> Point {
            guard let v else { return .zero }
            return Point(Double(v.pointee.x), -Double(v.pointee.y))
        }
    }

    /// The outline of `glyph` in font units (unscaled, unhinted), y down. TrueType conic
    /// segments become quadratic curves, CFF cubic segments cubic curves; every contour is closed.
    /// An empty path for glyphs without outlines (space) or that fail to load.
    static func decompose(face: FT_Face, glyph: UInt32) -> Path {
        let flags = CFT_LOAD_NO_SCALE | CFT_LOAD_NO_HINTING | CFT_LOAD_NO_BITMAP
        guard FT_Load_Glyph(face, FT_UInt(glyph), flags) == 0,
              let slot = face.pointee.glyph, slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return Path() }
        let sink = Sink()
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in
                let s = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                if s.open { s.path.close() }
                s.path.move(to: s.p(to)); s.open = true
                return 0
            },
            line_to: { to, user in
                let s = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                s.path.line(to: s.p(to))
                return 0
            },
            conic_to: { c, to, user in
                let s = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                s.path.quad(to: s.p(to), control: s.p(c))
                return 0
            },
            cubic_to: { c1, c2, to, user in
                let s = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                s.path.cubic(to: s.p(to), control1: s.p(c1), control2: s.p(c2))
                return 0
            },
            shift: 0, delta: 0)
        let user = Unmanaged.passUnretained(sink).toOpaque()
        let err = withUnsafeMutablePointer(to: &slot.pointee.outline) { FT_Outline_Decompose($0, &funcs, user) }
        withExtendedLifetime(sink) {}
        guard err == 0 else { return Path() }
        if sink.open { sink.path.close() }
        return sink.path
    }
}
