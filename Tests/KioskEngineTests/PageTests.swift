import DarkModeToggle
import Foundation
import Raster
import Testing
@testable import KioskEngine

/// The page: layout (column, side by side, scaled to fit), both toggles, the button, keyboard
/// focus, colour sets and shaping only on change.
@Suite struct PageTests {
    func app(_ w: Int = 1280, _ h: Int = 800, scale: Double = 1, preference: AppearancePreference = .light,
             typesetter: LabelTypesetter? = nil) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: w, pixelHeight: h, scale: scale, typesetter: typesetter),
                 preference: preference)
    }

    func tap(_ app: KioskApp, _ control: PageControl, at t: Double, id: Int = 1) -> KioskOutput? {
        let f = app.frame(of: control)
        let p = Point(f.midX, f.midY)
        _ = app.handle(PointerEvent(id: id, phase: .down, location: p, timestamp: t))
        return app.handle(PointerEvent(id: id, phase: .up, location: p, timestamp: t + 0.05))
    }

    @Test func columnAsContentViewLaysItOut() {
        let l = PageLayout(pixelWidth: 1280, pixelHeight: 800, scale: 1, toggleWidth: 260)
        #expect(l.arrangement == .column)
        #expect(l.contentScale == 1)
        let o = l.frame(of: .original), v = l.frame(of: .vivid), b = l.buttonFrame
        // Label box 22, spacing 12, toggle 160, spacing 24, next label …
        #expect(abs(o.minY - (l.originalLabelBox.maxY + 12)) <= 1)
        #expect(abs(l.vividLabelBox.minY - (o.maxY + 24)) < 1e-9 + 1)
        #expect(abs(b.minY - (v.maxY + 24)) <= 1)
        #expect(o.width == 260 && o.height == 160)
        #expect(abs(o.midX - 640) <= 1 && abs(v.midX - 640) <= 1 && abs(b.midX - 640) < 1e-9)
    }

    @Test func landscapePanelPutsTheGroupsSideBySide() {
        let l = PageLayout(pixelWidth: 800, pixelHeight: 480, scale: 1, toggleWidth: 260)
        #expect(l.arrangement == .row)
        #expect(l.contentScale == 1)
        #expect(l.frame(of: .original).minY == l.frame(of: .vivid).minY)
        #expect(l.frame(of: .original).maxX < l.frame(of: .vivid).minX)
    }

    /// An 800×480 panel turned 90° at scale 2 (240 × 400 pt): the content is scaled down and
    /// nothing is cut.
    @Test func tooSmallScalesTheContentDownToFit() {
        let l = PageLayout(pixelWidth: 480, pixelHeight: 800, scale: 2, toggleWidth: 260)
        #expect(l.contentScale < 1)
        let page = Rect(x: 0, y: 0, width: 240, height: 400)
        for c in PageControl.allCases {
            let f = l.frame(of: c)
            #expect(f.minX >= page.minX && f.maxX <= page.maxX + 0.5 && f.minY >= page.minY && f.maxY <= page.maxY + 0.5, "\(c) \(f)")
        }
        #expect(l.originalLabelBox.minY >= 0)
    }

    @Test func tapOnEitherToggleCommitsAndTheOtherFollows() {
        let a = app()
        #expect(tap(a, .vivid, at: 1) == .preferenceChanged(.dark))
        #expect(a.visualState(of: .vivid, at: 5).appearance == 1)
        #expect(a.visualState(of: .original, at: 5).appearance == 1)
        #expect(tap(a, .original, at: 6) == .preferenceChanged(.light))
        #expect(a.visualState(of: .vivid, at: 10).appearance == 0)
        #expect(a.commitCount == 2)
    }

    /// What the loop's latency ledger counts: a pointer holding a control (a toggle pressed or
    /// dragged, the button pressed), not one on the page's background.
    @Test func holdsControlWhileAToggleOrTheButtonIsPressed() {
        let a = app()
        for control in [PageControl.original, .vivid, .button] {
            let f = a.frame(of: control)
            _ = a.handle(PointerEvent(id: 3, phase: .down, location: Point(f.midX, f.midY), timestamp: 1))
            #expect(a.holdsControl(pointer: 3), "pressed on \(control)")
            #expect(!a.holdsControl(pointer: 4))
            _ = a.handle(PointerEvent(id: 3, phase: .move, location: Point(f.midX + 30, f.midY), timestamp: 1.05))
            #expect(a.holdsControl(pointer: 3), "moved on \(control)")
            _ = a.handle(PointerEvent(id: 3, phase: .cancel, location: Point(f.midX + 30, f.midY), timestamp: 1.1))
            #expect(!a.holdsControl(pointer: 3), "after the cancel on \(control)")
        }
        _ = a.handle(PointerEvent(id: 5, phase: .down, location: Point(2, 2), timestamp: 2))
        #expect(!a.holdsControl(pointer: 5), "a finger on the background holds nothing")
        _ = a.handle(PointerEvent(id: 5, phase: .move, location: Point(a.frame(of: .original).midX, a.frame(of: .original).midY), timestamp: 2.1))
        #expect(!a.holdsControl(pointer: 5), "nor after moving over a toggle")
    }

    @Test func buttonStoresSystemAndChangesItsLabel() {
        let a = app(preference: .dark)
        #expect(a.buttonText == "Use System Setting")
        #expect(tap(a, .button, at: 1) == .preferenceChanged(.system))
        #expect(a.followsSystem)
        #expect(!a.isDarkMode)  // no preference resolves to light
        #expect(a.buttonText == "Following System")
        #expect(a.pageAccessibilitySummary.contains("Follow System Appearance: On"))
        #expect(tap(a, .button, at: 3) == nil)  // already following
        // A tap that leaves the capsule before lifting does nothing.
        let b = app(preference: .dark), f = b.frame(of: .button)
        _ = b.handle(PointerEvent(id: 2, phase: .down, location: Point(f.midX, f.midY), timestamp: 1))
        #expect(b.handle(PointerEvent(id: 2, phase: .up, location: Point(f.midX, f.maxY + 40), timestamp: 1.1)) == nil)
        #expect(b.appearancePreference == .dark)
    }

    /// The window title's line: all three controls' accessibility label and value, in focus
    /// order, through a tap on a toggle, a tap on the button and another language.
    @Test func titleLineCarriesAllThreeControls() {
        let a = app(preference: .system)
        #expect(a.pageAccessibilitySummary
            == "Dark Mode (Original): Off · Dark Mode (Vivid): Off · Follow System Appearance: On")
        #expect(tap(a, .vivid, at: 1) == .preferenceChanged(.dark))
        #expect(a.pageAccessibilitySummary
            == "Dark Mode (Original): On · Dark Mode (Vivid): On · Follow System Appearance: Off")
        #expect(tap(a, .button, at: 3) == .preferenceChanged(.system))
        #expect(a.pageAccessibilitySummary
            == "Dark Mode (Original): Off · Dark Mode (Vivid): Off · Follow System Appearance: On")
        a.setStrings(PageStrings(original: "原版", vivid: "鲜明", useSystemSetting: "使用系统设置",
                                 followingSystem: "跟随系统", followSystemAppearance: "跟随系统外观"))
        #expect(a.pageAccessibilitySummary == "Dark Mode (原版): Off · Dark Mode (鲜明): Off · 跟随系统外观: On")
        // The systemd STATUS= line keeps its one-toggle form.
        #expect(a.statusSummary == "Dark Mode: Off (following system)")
    }

    @Test func tabMovesFocusAndSpaceActivatesTheFocusedControl() {
        let a = app(preference: .light)
        #expect(a.focus == .original && !a.focusVisible)
        #expect(a.handleKey(named: "Tab", at: 1) == nil)
        #expect(a.focus == .vivid && a.focusVisible)
        #expect(a.handleKey(named: "Tab", at: 1.1) == nil)
        #expect(a.focus == .button)
        #expect(a.handleKey(named: "space", at: 1.2) == .preferenceChanged(.system))
        #expect(a.handleKey(named: "Tab", shift: true, at: 2) == nil)
        #expect(a.focus == .vivid)
        #expect(a.handleKey(named: "Left", at: 2.1) == nil)
        #expect(a.focus == .original)
        #expect(a.handleKey(named: "Return", at: 2.2) == .preferenceChanged(.dark))
        #expect(a.handleKey(named: "Up", at: 3) == nil)
        #expect(a.focus == .button)
        #expect(a.handleKey(named: "F13", at: 3) == nil)
    }

    @Test func focusRingIsDrawnAroundTheFocusedControl() {
        let a = app(400, 700)
        _ = a.renderFrame(at: 0)
        let before = a.frame.clone()
        _ = a.handleKey(named: "Tab", at: 0.1)  // to Vivid
        let dirty = a.renderFrame(at: 0.2)
        #expect(dirty == [a.frame.bounds])
        // Pixels changed just outside the vivid track, not around the button.
        let v = a.frame(of: .vivid), b = a.frame(of: .button)
        func changed(_ r: Rect) -> Int {
            var n = 0
            for y in max(0, Int(r.minY))..<min(700, Int(r.maxY)) {
                for x in max(0, Int(r.minX))..<min(400, Int(r.maxX)) where a.frame[x, y] != before[x, y] { n += 1 }
            }
            return n
        }
        #expect(changed(Rect(x: v.minX - 8, y: v.minY, width: 6, height: v.height)) > 0)
        #expect(changed(Rect(x: b.minX - 10, y: b.minY - 10, width: b.width + 20, height: b.height + 20)) == 0)
    }

    @Test func labelsAreShapedOnlyWhenTheyChange() {
        let t = EstimatingTypesetter(drawsBoxes: true)
        let a = app(typesetter: t)
        let first = t.shapeCount
        for i in 0..<120 { _ = a.renderFrame(at: Double(i) / 60) }
        #expect(t.shapeCount == first)
        _ = tap(a, .button, at: 3)  // the button's words change
        _ = a.renderFrame(at: 3.2)
        #expect(t.shapeCount == first + 1)
        a.resize(pixelWidth: 1280, pixelHeight: 800, scale: 2)
        #expect(t.shapeCount == first + 4)
    }

    /// WCAG 2 contrast ratio of `fg` composited over `bg`.
    static func contrast(_ fg: Color, _ bg: Color) -> Double {
        func ch(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        func lum(_ c: Color) -> Double { 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b) }
        let a = fg.a
        let mixed = Color(r: fg.r * a + bg.r * (1 - a), g: fg.g * a + bg.g * (1 - a), b: fg.b * a + bg.b * (1 - a))
        let l1 = lum(mixed), l2 = lum(bg)
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }

    @Test func highContrastLabelsReachAAA() {
        let c = ColorSets.standard
        for dark in [false, true] {
            let hc = c.resolve(darkness: dark ? 1 : 0, highContrast: true)
            let normal = c.resolve(darkness: dark ? 1 : 0, highContrast: false)
            for name in [ColorName.label, .buttonLabel] {
                let ratio = Self.contrast(hc[name], hc[.pageBackground])
                #expect(ratio >= 7, "\(name) dark=\(dark): \(ratio)")
                #expect(ratio > Self.contrast(normal[name], normal[.pageBackground]))
            }
        }
        // The later app's values.
        #expect(c[.pageBackground].light.premultiplied8 == Color(r255: 235, g255: 246, b255: 255).premultiplied8)
        #expect(c[.pageBackground].dark.premultiplied8 == Color(r255: 66, g255: 66, b255: 66).premultiplied8)
        #expect(c[.label].light.a == 0.68 && c[.label].dark.a == 0.82)
    }

    @Test func crossFadeMovesEveryNamedColourAtOnce() {
        let a = app(preference: .light)
        let start = a.colors(at: 0)
        _ = tap(a, .original, at: 1)
        let mid = a.colors(at: 1.3), end = a.colors(at: 3)
        for name in ColorName.allCases where ColorSets.standard[name].light != ColorSets.standard[name].dark {
            #expect(mid[name] != start[name] && mid[name] != end[name], "\(name)")
            #expect(end[name] == ColorSets.standard[name].dark, "\(name)")
        }
    }

    @Test func materialIsBuiltOncePerThemeAndSize() {
        let a = app(400, 700)
        for i in 0..<60 { _ = a.renderFrame(at: Double(i) / 60) }
        #expect(a.materialBuilds == 1)
        _ = tap(a, .original, at: 1.1)
        for i in 0..<90 { _ = a.renderFrame(at: 1.1 + Double(i) / 60) }
        let afterFade = a.materialBuilds
        #expect(afterFade > 1)  // the backdrop follows the page colour during the fade
        for i in 0..<60 { _ = a.renderFrame(at: 3 + Double(i) / 60) }
        #expect(a.materialBuilds == afterFade)
    }
}
