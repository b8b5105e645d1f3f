import Foundation
import GoldenSupport
import Raster
import Testing
@testable import DarkModeToggle

/// Golden images of the component (transparent around the track), rendered through the
/// cached path the kiosk uses.
///
/// Tolerance (`expectMatchesGolden`, test-only target GoldenSupport): each channel within 2/255,
/// and at most 0.5 % of pixels differing at all.
/// Why not exact: coverage is accumulated in Float and blurs run in Float; on another CPU
/// (aarch64 kiosk boards fuse multiply-adds) the last bit of a few sums can differ and move a
/// rounded 8-bit value by one, and a shadow pixel can round twice. A real change to the art
/// (a colour, a position, a missing layer) moves far more pixels by far more than that.
/// Regenerate deliberately with `DARKMODE_UPDATE_GOLDENS=1 swift test --filter GoldenTests`.
@Suite struct GoldenTests {
    static let cases: [(width: Int, progress: Double, time: Double?)] = {
        var c: [(Int, Double, Double?)] = []
        for w in [130, 260] { for p in [0, 0.5, 1] { for t in [nil, 1.2] as [Double?] { c.append((w, p, t)) } } }
        return c
    }()

    static func name(_ w: Int, _ p: Double, _ t: Double?) -> String {
        "toggle-w\(w)-p\(String(format: "%.1f", p))-\(t.map { "t\($0)" } ?? "static").png"
    }

    static func render(_ w: Int, _ p: Double, _ t: Double?) -> Pixmap {
        let renderer = ToggleRenderer(width: Double(w), scale: 1)
        let pix = Pixmap(width: w, height: Int((Double(w) * 80 / 130).rounded()))
        let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: t ?? 0, reduceMotion: t == nil))
        renderer.draw(frame, on: Canvas(pix), origin: (0, 0))
        return pix
    }

    @Test(arguments: 0..<12)
    func matchesGolden(index: Int) throws {
        let (w, p, t) = Self.cases[index]
        let file = Self.name(w, p, t)
        let image = Self.render(w, p, t)
        try expectMatchesGolden(image, file: file,
                                sourceFolder: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens").path,
                                bundled: Bundle.module.path(forResource: file, ofType: nil, inDirectory: "Goldens"))
    }

    /// Every golden drawn by each copy of the span kernels (`Kernels`): the portable baseline and,
    /// where the CPU has it, the x86-64-v3 copy the kiosk picks at start. The two give the same
    /// bytes, and each matches the golden.
    static func packed(_ p: Pixmap) -> [UInt32] { (0..<p.height).flatMap { y in (0..<p.width).map { p[$0, y] } } }

    @Test func bothKernelCopiesDrawTheGoldensBitForBit() throws {
        defer { Kernels.choose(Kernels.best) }
        let levels = Kernels.Level.allCases.filter { $0 == .baseline || Kernels.avx2Available }
        for index in 0..<Self.cases.count {
            let (w, p, t) = Self.cases[index]
            let file = Self.name(w, p, t)
            var images: [Pixmap] = []
            for level in levels {
                #expect(Kernels.choose(level))
                images.append(Self.render(w, p, t))
                try expectMatchesGolden(images.last!, file: file,
                                        sourceFolder: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens").path,
                                        bundled: Bundle.module.path(forResource: file, ofType: nil, inDirectory: "Goldens"))
            }
            for other in images.dropFirst() {
                #expect(Self.packed(other) == Self.packed(images[0]), "\(file): the kernel copies draw different bytes")
            }
        }
    }
}
