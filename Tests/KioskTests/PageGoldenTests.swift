import Foundation
import GoldenSupport
import Raster
import Testing
@testable import KioskEngine
@testable import KioskTools
import KioskSupport

/// The whole page as `render --page` draws it, at the screenshots' geometry (368 × 800 px,
/// 0.876 px per pt): light, dark, high contrast and Chinese. Needs fonts-inter and
/// fonts-noto-cjk (the CI installs both).
/// Regenerate deliberately with `DARKMODE_UPDATE_GOLDENS=1 swift test --filter PageGoldenTests`.
@Suite struct PageGoldenTests {
    static let cases: [(file: String, flags: [String])] = [
        ("page-light.png", ["--light"]),
        ("page-dark.png", ["--dark"]),
        ("page-high-contrast-light.png", ["--light", "--high-contrast"]),
        ("page-high-contrast-dark.png", ["--dark", "--high-contrast"]),
        ("page-zh-Hans-system.png", ["--appearance", "system", "--lang", "zh-Hans"]),
        // Background images (PageGoldens/background: two 32×18 PNGs and the config naming
        // them relative to itself), scaled to cover the page; the material blurs them.
        ("page-background-light.png", ["--light", "--config", "@background/kiosk.json"]),
        ("page-background-dark.png", ["--dark", "--config", "@background/kiosk.json"]),
    ]

    /// A resource of the test bundle's PageGoldens folder.
    static func resource(_ name: String) throws -> String {
        let folder = name.split(separator: "/").dropLast().joined(separator: "/"), file = String(name.split(separator: "/").last!)
        guard let p = Bundle.module.path(forResource: file, ofType: nil, inDirectory: folder.isEmpty ? "PageGoldens" : "PageGoldens/\(folder)") else {
            throw KioskError.input("missing test resource PageGoldens/\(name)")
        }
        return p
    }

    @Test(arguments: 0..<7)
    func matchesGolden(index: Int) throws {
        let (file, given) = Self.cases[index]
        let flags = try given.map { $0.hasPrefix("@") ? try Self.resource(String($0.dropFirst())) : $0 }
        guard case .render(let o) = try CommandLineParser.parse(["render", "--out", "x.png", "--page", "368x800", "--scale", "0.876"] + flags + (flags.contains("--lang") ? [] : ["--lang", "en"])) else {
            Issue.record("not a render command"); return
        }
        #expect(o.isPageRender)
        var warnings: [String] = []
        let image = try RenderCommand.pageImage(o, environment: [:], warn: { warnings.append($0) })
        #expect(warnings.isEmpty, "\(warnings)")
        try expectMatchesGolden(image, file: file,
                                sourceFolder: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PageGoldens").path,
                                bundled: Bundle.module.path(forResource: file, ofType: nil, inDirectory: "PageGoldens"))
    }

    /// The goldens differ where they should: dark vs light page, Chinese vs English labels.
    @Test func variantsDiffer() throws {
        func render(_ flags: [String]) throws -> Pixmap {
            guard case .render(let o) = try CommandLineParser.parse(["render", "--out", "x.png", "--page", "368x800", "--scale", "0.876"] + flags) else {
                throw KioskError.usage("parse")
            }
            return try RenderCommand.pageImage(o, warn: { _ in })
        }
        let light = try render(["--light", "--lang", "en"]), zh = try render(["--light", "--lang", "zh-Hans"])
        let hc = try render(["--light", "--high-contrast", "--lang", "en"])
        // Page background at a corner: light (235,246,255) vs high contrast white.
        #expect(light.color(x: 2, y: 2).unpremultiplied == StraightRGBA8(r: 235, g: 246, b: 255, a: 255))
        #expect(hc.color(x: 2, y: 2).unpremultiplied == StraightRGBA8(r: 255, g: 255, b: 255, a: 255))
        // The label rows differ between the languages; the toggles do not.
        let l = PageLayout(pixelWidth: 368, pixelHeight: 800, scale: 0.876, toggleWidth: 260)
        let y = Int(l.originalLabelBox.midY * 0.876)
        #expect((0..<368).contains { light[$0, y] != zh[$0, y] })
    }
}
