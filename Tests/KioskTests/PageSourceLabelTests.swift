import Foundation
import Raster
import Testing
import Text
@testable import KioskEngine
@testable import KioskTools
import KioskSupport

/// The button while following the system, with real fonts (HarfBuzz/FreeType, as the kiosk
/// draws it): "Following System · light sensor" / "跟随系统·光线传感器" fits its capsule, which
/// stays centred. Needs fonts-inter and fonts-noto-cjk (the CI installs both).
/// `DARKMODE_DUMP_PAGES=DIR` also writes each page as DIR/page-<lang>-<source>.png to look at.
@Suite struct PageSourceLabelTests {
    static let cases: [(Language, AppearanceSourceKind?)] = Language.allCases.flatMap { lang in
        ([nil] + AppearanceSourceKind.allCases.map { Optional($0) }).map { (lang, $0) }
    }

    @Test func stringTablesGiveTheLocalizedLabels() {
        let en = PageStrings(.english), zh = PageStrings(.simplifiedChinese)
        #expect(en.followingLabel(source: .lightSensor) == "Following System · light sensor")
        #expect(en.followingLabel(source: .portal) == "Following System · desktop")
        #expect(en.followingLabel(source: .schedule) == "Following System · schedule")
        #expect(en.followingLabel(source: nil) == "Following System")
        #expect(zh.followingLabel(source: .lightSensor) == "跟随系统·光线传感器")
        #expect(zh.followingLabel(source: .portal) == "跟随系统·桌面")
        #expect(zh.followingLabel(source: .schedule) == "跟随系统·定时")
        #expect(zh.followingLabel(source: nil) == "跟随系统")
    }

    @Test(arguments: 0..<cases.count)
    func labelFitsItsCentredCapsule(index: Int) throws {
        let (language, source) = Self.cases[index]
        var warnings: [String] = []
        let text = PageText.make(language: language, warn: { warnings.append($0) })
        #expect(warnings.isEmpty, "\(warnings)")
        let typesetter = try #require(text.typesetter)
        let scale = 0.876
        let app = KioskApp(options: KioskOptions(pixelWidth: 368, pixelHeight: 800, scale: scale, reduceMotion: true,
                                                 strings: text.strings, typesetter: typesetter),
                           preference: .system,
                           system: source.map { SystemAppearance(scheme: .light, source: $0) } ?? .noPreference)
        #expect(app.buttonText == text.strings.followingLabel(source: source))
        _ = app.renderFrame(at: 0)
        if let dir = ProcessInfo.processInfo.environment["DARKMODE_DUMP_PAGES"] {
            try Data(PNG.encode(app.frame)).write(to: URL(fileURLWithPath: "\(dir)/page-\(language.rawValue)-\(source?.rawValue ?? "none").png"))
        }
        let b = app.layout.buttonPixelFrame
        #expect(abs(b.midX - 184) < 0.01, "capsule centre \(b.midX)")
        // The label's ink: pixels unlike the capsule's fill in its text rows, right of the icon.
        let frame = app.frame
        let fill = frame[Int(b.midX), Int(b.minY) + 4]
        let k = app.layout.effectiveScale
        let textStart = b.minX + (PageLayout.buttonPadding.h + PageLayout.iconSize + PageLayout.iconSpacing) * k
        var inkMinX = Int.max, inkMaxX = Int.min
        // Rows within 0.3 of the height around the middle: there the round end's hairline lies
        // right of maxX − 0.2 × radius.
        for y in Int(b.midY - 0.3 * b.height)...Int(b.midY + 0.3 * b.height) {
            for x in Int(textStart) - 2..<Int(b.maxX) - 6 where frame[x, y] != fill {
                inkMinX = min(inkMinX, x); inkMaxX = max(inkMaxX, x)
            }
        }
        #expect(inkMinX != Int.max, "no label ink in the capsule")
        // The text ends one padding before the capsule's right end (less the last glyph's side
        // bearing): the capsule grew to fit it, no more.
        let textEnd = b.maxX - PageLayout.buttonPadding.h * k
        #expect(Double(inkMaxX) <= textEnd + 1 && Double(inkMaxX) >= textEnd - 0.2 * PageLayout.calloutSize * k - 1,
                "ink ends at \(inkMaxX), text box ends at \(textEnd)")
        #expect(Double(inkMinX) >= textStart - 1 && Double(inkMinX) <= textStart + 0.2 * PageLayout.calloutSize * k,
                "ink starts at \(inkMinX), text box starts at \(textStart)")
        // Nothing of the button outside the capsule on its row.
        let page = frame[2, Int(b.midY)]
        for x in 0..<Int(b.minX) - 2 { #expect(frame[x, Int(b.midY)] == page, "x \(x)") }
        for x in Int(b.maxX) + 2..<368 { #expect(frame[x, Int(b.midY)] == page, "x \(x)") }
    }
}
