import CFreeType
import Foundation
import Raster
@testable import Text

/// One FontLibrary per test process would be nicer, but fonts are cheap to reopen and tests run
/// in parallel; each test makes its own (the library is not thread-safe).
func makeFonts(language: String? = nil, fallback: Bool = true) throws -> FontSet {
    try FontLibrary().fontSet(family: "Inter", weight: .semibold, language: language, fallback: fallback)
}

/// Where Debian's fonts-noto-cjk puts the pan-CJK sans (CI installs the package).
let notoCJKPath = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
var notoCJKInstalled: Bool { FileManager.default.fileExists(atPath: notoCJKPath) }

/// FreeType's own rendering of a glyph (unhinted, its smooth rasterizer), the test oracle:
/// coverage bytes and the bitmap's offset from the pen (y down).
struct FreeTypeBitmap {
    var left: Int, top: Int, width: Int, height: Int
    var coverage: [UInt8]
    var sum: Int { coverage.reduce(0) { $0 + Int($1) } }
}

func freeTypeRender(_ face: FontFace, glyph: UInt32, pixelSize: Double, phase: Int) -> FreeTypeBitmap? {
    let ft = face.ftFace
    guard FT_Set_Char_Size(ft, 0, FT_F26Dot6((pixelSize * 64).rounded()), 72, 72) == 0,
          FT_Load_Glyph(ft, FT_UInt(glyph), CFT_LOAD_NO_HINTING | CFT_LOAD_NO_BITMAP) == 0,
          let slot = ft.pointee.glyph else { return nil }
    FT_Outline_Translate(&slot.pointee.outline, FT_Pos(phase * 64 / GlyphRenderer.phases), 0)
    guard FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return nil }
    let bm = slot.pointee.bitmap
    let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
    var cov = [UInt8](repeating: 0, count: w * h)
    for y in 0..<h { for x in 0..<w { cov[y * w + x] = bm.buffer[y * pitch + x] } }
    // The face's size is shared with shaping: force the next shaping call to set it again.
    face.invalidateSize()
    return FreeTypeBitmap(left: Int(slot.pointee.bitmap_left), top: -Int(slot.pointee.bitmap_top),
                          width: w, height: h, coverage: cov)
}

/// Area and perimeter (pixels) of a path under `t`, from a fine flattening (0.0005 px) and the
/// shoelace formula: an independent measure of what the decomposed outline encloses.
func areaAndPerimeter(_ path: Path, _ t: Transform) -> (area: Double, perimeter: Double) {
    var edges: [Edge] = []
    Flattener.edges(of: path, transform: t, tolerance: 0.0005, into: &edges)
    var a = 0.0, p = 0.0
    for e in edges {
        a += e.x0 * e.y1 - e.x1 * e.y0
        p += ((e.x1 - e.x0) * (e.x1 - e.x0) + (e.y1 - e.y0) * (e.y1 - e.y0)).squareRoot()
    }
    return (abs(a) / 2, p)
}

/// Bounding box of pixels that differ from `background` (nil when none do).
func inkBounds(_ pix: Pixmap, background: UInt32, in rect: IntRect) -> IntRect? {
    var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
    let r = rect.intersection(pix.bounds)
    for y in r.minY..<r.maxY {
        for x in r.minX..<r.maxX where pix[x, y] != background {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
    }
    guard minX <= maxX else { return nil }
    return IntRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
}
