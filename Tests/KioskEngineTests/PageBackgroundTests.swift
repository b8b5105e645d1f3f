import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// Background images for light and dark: placement (cover, contain), scaled once per page size,
/// cross-faded with the page, behind everything, and blurred behind the button's capsule.
@Suite struct PageBackgroundTests {
    static let red: UInt32 = 0xFF28_28C8     // (200, 40, 40)
    static let blue: UInt32 = 0xFFA0_2814    // (20, 40, 160)
    static let green: UInt32 = 0xFF30_B030   // (48, 176, 48)
    static let yellow: UInt32 = 0xFF30_E0F0  // (240, 224, 48)

    /// An image whose left half is `left` and right half `right`.
    static func halves(_ w: Int, _ h: Int, _ left: UInt32, _ right: UInt32) -> Pixmap {
        let p = Pixmap(width: w, height: h)
        for y in 0..<h { for x in 0..<w { p[x, y] = x < w / 2 ? left : right } }
        return p
    }

    static func app(_ w: Int = 640, _ h: Int = 480, background: PageBackground?, preference: AppearancePreference = .light,
                    highContrast: Bool = false) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: w, pixelHeight: h, scale: 1, reduceMotion: true, highContrast: highContrast,
                                       background: background),
                 preference: preference)
    }

    static func rgb(_ p: UInt32) -> [Int] { [Int(p & 0xFF), Int((p >> 8) & 0xFF), Int((p >> 16) & 0xFF)] }

    @Test func coverFillsThePageAndCutsTheOverflow() {
        // A 4:3 image on a 16:9 page: scaled by the width, the top and bottom cut equally.
        let p = PageBackground.placement(imageWidth: 400, imageHeight: 300, pageWidth: 1600, pageHeight: 900, fit: .cover)
        #expect(p.destination == IntRect(x: 0, y: 0, width: 1600, height: 900))
        #expect(p.source == Rect(x: 0, y: 37.5, width: 400, height: 225))
        // Portrait page: scaled by the height, the sides cut.
        let q = PageBackground.placement(imageWidth: 400, imageHeight: 300, pageWidth: 300, pageHeight: 600, fit: .cover)
        #expect(q.source == Rect(x: 125, y: 0, width: 150, height: 300))
    }

    @Test func containFitsInsideAndCentres() {
        let p = PageBackground.placement(imageWidth: 400, imageHeight: 300, pageWidth: 1600, pageHeight: 900, fit: .contain)
        #expect(p.source == Rect(x: 0, y: 0, width: 400, height: 300))
        #expect(p.destination == IntRect(x: 200, y: 0, width: 1200, height: 900))
    }

    /// The image is behind everything: the page corners show it (not the page colour), in
    /// light and in dark, and the labels, toggles and button are still drawn over it.
    @Test func imagesShowInTheirAppearance() {
        let bg = PageBackground(light: Self.halves(64, 48, Self.red, Self.blue), dark: Self.halves(64, 48, Self.green, Self.yellow))
        let light = Self.app(background: bg, preference: .light)
        _ = light.renderFrame(at: 0)
        #expect(light.frame[2, 2] == Self.red && light.frame[637, 477] == Self.blue)
        let dark = Self.app(background: bg, preference: .dark)
        _ = dark.renderFrame(at: 0)
        #expect(dark.frame[2, 2] == Self.green && dark.frame[637, 477] == Self.yellow)
        // The toggles are drawn on top: their centres are not the image.
        for a in [light, dark] {
            for c in [PageControl.original, .vivid] {
                let f = a.frame(of: c)
                let px = a.frame[Int(f.midX), Int(f.midY)]
                #expect(![Self.red, Self.blue, Self.green, Self.yellow].contains(px), "\(c) centre shows the image")
            }
        }
    }

    /// A missing variant shows the page colour in that appearance; a transparent image shows
    /// the page colour through.
    @Test func missingVariantAndTransparencyShowThePageColour() {
        let clear = Pixmap(width: 8, height: 8)
        let a = Self.app(background: PageBackground(light: clear, dark: nil), preference: .light)
        _ = a.renderFrame(at: 0)
        let pageLight = ColorSets.standard[.pageBackground].light.premultiplied8.packed
        #expect(a.frame[3, 3] == pageLight)
        let b = Self.app(background: PageBackground(light: clear, dark: nil), preference: .dark)
        _ = b.renderFrame(at: 0)
        #expect(b.frame[3, 3] == ColorSets.standard[.pageBackground].dark.premultiplied8.packed)
    }

    /// The cross-fade runs between the two images with the page: half-way, a corner is half
    /// of each; at rest, exactly the other image.
    @Test func crossFadesWithThePage() {
        let bg = PageBackground(light: Self.halves(64, 48, Self.red, Self.red), dark: Self.halves(64, 48, Self.blue, Self.blue))
        let a = KioskApp(options: KioskOptions(pixelWidth: 400, pixelHeight: 300, background: bg), preference: .light)
        _ = a.renderFrame(at: 0)
        #expect(a.frame[1, 1] == Self.red)
        #expect(a.choosePreference(.dark, at: 1) != nil)
        var mid: [Int] = []
        for i in 0...40 {
            let t = 1 + Double(i) / 60
            _ = a.renderFrame(at: t)
            let d = a.darkness(at: t)
            let got = Self.rgb(a.frame[1, 1]), want = zip(Self.rgb(Self.red), Self.rgb(Self.blue)).map { Double($0) * (1 - d) + Double($1) * d }
            for (g, w) in zip(got, want) { #expect(abs(Double(g) - w) <= 1.5, "t=\(t) d=\(d): \(got) vs \(want)") }
            if abs(d - 0.5) < 0.1 { mid = got }
        }
        #expect(!mid.isEmpty && mid != Self.rgb(Self.red) && mid != Self.rgb(Self.blue))
        _ = a.renderFrame(at: 3)
        #expect(a.frame[1, 1] == Self.blue)
    }

    /// Scaling happens once per page size (both images), not per frame: a cross-fade and
    /// ambient frames add nothing; a resize scales again, and so does another pair of page
    /// colours (high contrast).
    @Test func scaledOncePerPageSize() {
        let bg = PageBackground(light: Self.halves(33, 21, Self.red, Self.blue), dark: Self.halves(33, 21, Self.green, Self.yellow))
        let a = KioskApp(options: KioskOptions(pixelWidth: 320, pixelHeight: 240, background: bg), preference: .light)
        for i in 0..<90 {
            if i == 10 { _ = a.choosePreference(.dark, at: Double(i) / 60) }
            _ = a.renderFrame(at: Double(i) / 60)
        }
        #expect(a.backgroundScalings == 2)
        #expect(a.backdropBlurs == 2)  // the material's two backdrops, also once
        a.resize(pixelWidth: 240, pixelHeight: 320, scale: 1)
        for i in 90..<120 { _ = a.renderFrame(at: Double(i) / 60) }
        #expect(a.backgroundScalings == 4 && a.backdropBlurs == 4)
        a.setHighContrast(true)
        _ = a.renderFrame(at: 3)
        #expect(a.backgroundScalings == 6)
        #expect(a.frame[1, 1] != ColorSets.standard[.pageBackground].highContrastDark.premultiplied8.packed)
    }

    /// The material blurs the image behind the capsule: with the red/blue boundary running
    /// through the button's centre, the capsule's centre mixes both (blurred), while the page
    /// just above the capsule keeps the hard edge.
    @Test func materialBlursTheImageBehindTheCapsule() {
        let bg = PageBackground(light: Self.halves(640, 480, Self.red, Self.blue), dark: nil)
        let a = Self.app(background: bg)
        _ = a.renderFrame(at: 0)
        let b = a.layout.buttonPixelFrame
        // Inside the capsule, 3.5 px either side of the boundary: the tinted material over a
        // hard edge would differ by 0.4 × 180 = 72 in red (the light tint covers 60 %); blurred
        // with σ = 10 px both sides hold much of the other colour, so they differ far less
        // (about 20), but still some (it is a blur, not a flat fill).
        let y = Int(b.minY + 6)
        let left = Self.rgb(a.frame[316, y]), right = Self.rgb(a.frame[323, y])
        #expect(left[0] - right[0] > 5 && left[0] - right[0] < 36, "capsule red \(left) vs \(right): not a blurred edge")
        #expect(right[2] - left[2] > 5 && right[2] - left[2] < 36, "capsule blue \(left) vs \(right): not a blurred edge")
        // Outside (above) the capsule the edge is sharp.
        let above = Int(b.minY) - 6
        #expect(a.frame[316, above] == Self.red && a.frame[323, above] == Self.blue)
        // Without the image the capsule is the flat material.
        let plain = Self.app(background: nil)
        _ = plain.renderFrame(at: 0)
        #expect(plain.frame[316, y] == plain.frame[323, y])
    }
}
