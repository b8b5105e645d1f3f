import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// The desktop's text-scaling-factor (the `textScale` hint) makes the labels larger: shaped at
/// the larger size, given taller lines and a wider, taller button; the page still fits.
@Suite struct TextScaleTests {
    func app(width: Int = 1280, height: Int = 800, textScale: Double? = nil) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: width, pixelHeight: height, typesetter: EstimatingTypesetter(drawsBoxes: true)),
                 preference: .light, system: SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(textScale: textScale)))
    }

    @Test func largerTextGrowsTheLabelsAndTheButtonLive() {
        let a = app()
        _ = a.renderFrame(at: 0)
        let button = a.frame(of: .button), label = a.layout.originalLabelBox
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(textScale: 1.5)), at: 1)
        #expect(a.textScale == 1.5)
        let bigger = a.frame(of: .button)
        // The label's width (estimated: proportional to the size) and the line heights grow by 1.5.
        #expect(abs(a.layout.originalLabelBox.width - label.width * 1.5) < 1e-9)
        #expect(abs(a.layout.originalLabelBox.height - label.height * 1.5) < 1e-9)
        #expect(bigger.width > button.width + 40 && bigger.height > button.height, "\(button) → \(bigger)")
        #expect(abs(bigger.midX - 640) < 1e-9)
        // The whole page is drawn again at once.
        #expect(a.renderFrame(at: 1) == [a.frame.bounds])
        // Back to the standard size: the same layout as before.
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(textScale: 1)), at: 2)
        #expect(a.frame(of: .button) == button && a.layout.originalLabelBox == label)
    }

    @Test func theLargestTextStillFits() {
        let a = app(width: 480, height: 640, textScale: 3)
        for c in PageControl.allCases {
            let f = a.frame(of: c)
            #expect(f.minX >= 0 && f.maxX <= 480 + 0.5 && f.minY >= 0 && f.maxY <= 640 + 0.5, "\(c): \(f)")
        }
        #expect(a.layout.contentScale < 1)
    }

    @Test func unusableFactorsAreTheStandardSize() {
        #expect(app(textScale: .nan).textScale == 1)
        #expect(app(textScale: 0).textScale == 1)
        #expect(app(textScale: -2).textScale == 1)
        #expect(app(textScale: 10).textScale == 3)
        #expect(app().textScale == 1)
    }
}
