import Foundation
import Raster
import Testing
@testable import DarkModeToggle

/// Golden images of the component (transparent around the track), rendered through the
/// cached path the kiosk uses.
///
/// Tolerance: each channel within 2/255, and at most 0.5 % of pixels differing at all.
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
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens/\(file)").path
        if ProcessInfo.processInfo.environment["DARKMODE_UPDATE_GOLDENS"] == "1" {
            try Data(PNG.encode(image)).write(to: URL(fileURLWithPath: source), options: .atomic)
            return
        }
        guard let path = Bundle.module.path(forResource: file, ofType: nil, inDirectory: "Goldens") else {
            Issue.record("missing golden \(file): run with DARKMODE_UPDATE_GOLDENS=1 once and commit it")
            return
        }
        // PNG stores straight alpha; compare after the same round trip.
        let golden = try PNG.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let ours = try PNG.decode(PNG.encode(image))
        #expect(golden.width == ours.width && golden.height == ours.height)
        var differing = 0, worst = 0
        for y in 0..<ours.height {
            for x in 0..<ours.width {
                let a = golden.color(x: x, y: y), b = ours.color(x: x, y: y)
                let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
                if d > 0 { differing += 1 }
                worst = max(worst, d)
            }
        }
        #expect(worst <= 2, "\(file): a channel differs by \(worst)/255")
        #expect(Double(differing) <= 0.005 * Double(ours.width * ours.height), "\(file): \(differing) pixels differ")
    }
}
