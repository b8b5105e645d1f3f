import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// What the live sources change on the page besides the mode: the button names the source
/// that drives it, and the desktop's contrast / reduced-motion hints switch the colour set and
/// the motion at runtime unless the options force them.
@Suite struct SystemSourceTests {
    func px(_ c: Color) -> UInt32 { c.premultiplied8.packed }

    func app(preference: AppearancePreference = .system, system: SystemAppearance = .noPreference,
             highContrast: Bool = false, reduceMotion: Bool = false, strings: PageStrings = .english,
             typesetter: LabelTypesetter? = nil, width: Int = 1280) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: width, pixelHeight: 800, reduceMotion: reduceMotion, highContrast: highContrast,
                                       strings: strings, typesetter: typesetter),
                 preference: preference, system: system)
    }

    static let chinese = PageStrings(original: "原版", vivid: "鲜明", useSystemSetting: "使用系统设置", followingSystem: "跟随系统",
                                     followingSystemVia: "跟随系统·{source}",
                                     sourceNames: [.portal: "桌面", .lightSensor: "光线传感器", .schedule: "定时"],
                                     followSystemAppearance: "跟随系统外观")

    // MARK: The button names the source

    @Test func buttonLabelFollowsTheSource() {
        let a = app()
        #expect(a.buttonText == "Following System")  // no source states a scheme: nothing after a dot
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .lightSensor), at: 1)
        #expect(a.buttonText == "Following System · light sensor")
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .portal), at: 2)
        #expect(a.buttonText == "Following System · desktop")
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .schedule), at: 3)
        #expect(a.buttonText == "Following System · schedule")
        a.setSystemAppearance(.noPreference, at: 4)
        #expect(a.buttonText == "Following System")
        // The English words are the ones the Appearance module reports.
        for kind in AppearanceSourceKind.allCases {
            let s = SystemAppearance(scheme: .dark, source: kind)
            #expect(PageStrings.english.followingLabel(source: kind) == s.followingLabel)
        }
        #expect(PageStrings.english.followingLabel(source: nil) == SystemAppearance.noPreference.followingLabel)
    }

    @Test func fixedPreferenceShowsUseSystemSettingWhateverTheSource() {
        let a = app(preference: .dark, system: SystemAppearance(scheme: .light, source: .schedule))
        #expect(a.buttonText == "Use System Setting")
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .lightSensor), at: 1)
        #expect(a.buttonText == "Use System Setting")
        // Choosing the system shows the remembered source at once.
        #expect(a.choosePreference(.system, at: 2) == .preferenceChanged(.system))
        #expect(a.buttonText == "Following System · light sensor")
        // A toggle tap leaves the system again.
        let f = a.frame(of: .original)
        _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: 3))
        _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: 3.05))
        #expect(a.buttonText == "Use System Setting")
    }

    @Test func labelIsLocalized() {
        let a = app(strings: Self.chinese)
        #expect(a.buttonText == "跟随系统")
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .lightSensor), at: 1)
        #expect(a.buttonText == "跟随系统·光线传感器")
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .portal), at: 2)
        #expect(a.buttonText == "跟随系统·桌面")
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .schedule), at: 3)
        #expect(a.buttonText == "跟随系统·定时")
        // A template may put the source anywhere, or more than once.
        var s = PageStrings.english
        s.followingSystemVia = "{source} ({source}) drives"
        #expect(s.followingLabel(source: .schedule) == "schedule (schedule) drives")
    }

    /// The label is shaped only when its words change: a mode flip from the same source keeps
    /// the shaped label; a new source shapes it once.
    @Test func labelIsReshapedOnlyWhenItsTextChanges() {
        let t = EstimatingTypesetter()
        let a = app(system: SystemAppearance(scheme: .light, source: .portal), typesetter: t)
        _ = a.renderFrame(at: 0)
        let shapes = t.shapeCount, button = a.labelShapeCounts[2]
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .portal), at: 1)
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .portal), at: 2)
        for i in 0..<60 { _ = a.renderFrame(at: 2 + Double(i) / 60) }
        #expect(t.shapeCount == shapes)
        #expect(a.labelShapeCounts[2] == button)
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .lightSensor), at: 4)
        for i in 0..<30 { _ = a.renderFrame(at: 4 + Double(i) / 60) }
        #expect(t.shapeCount == shapes + 1)
        #expect(a.labelShapeCounts == [1, 1, button + 1])
        // The same source again (a level crossing back): nothing reshaped.
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .lightSensor), at: 5)
        #expect(t.shapeCount == shapes + 1)
        // Hints alone change no words.
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .lightSensor, hints: AccessibilityHints(highContrast: true)), at: 6)
        #expect(t.shapeCount == shapes + 1)
        // Unchanged words do not even lay the page out again: once settled, the same report
        // repeated redraws only what moves (the toggles' ambient loops), not the whole page.
        for i in 0..<90 { _ = a.renderFrame(at: 6 + Double(i) / 60) }
        a.setSystemAppearance(a.systemAppearance, at: 8)
        let dirty = a.renderFrame(at: 8)
        #expect(!dirty.isEmpty && !dirty.contains(a.frame.bounds), "\(dirty)")
    }

    /// The capsule grows with the longer label and stays centred; the whole page is redrawn
    /// once (the button's words are static content), and the toggles do not move.
    @Test func capsuleGrowsAndStaysCentred() {
        let a = app(typesetter: EstimatingTypesetter(drawsBoxes: true))
        _ = a.renderFrame(at: 0)
        let before = a.frame(of: .button), original = a.frame(of: .original)
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .lightSensor), at: 1)
        let after = a.frame(of: .button)
        #expect(after.width > before.width + 50, "\(before.width) → \(after.width)")
        #expect(abs(after.midX - 640) < 1e-9 && abs(before.midX - 640) < 1e-9)
        #expect(after.minY == before.minY && after.height == before.height)
        #expect(a.frame(of: .original) == original)
        #expect(a.renderFrame(at: 1) == [a.frame.bounds])
        // Then only what moves: nothing (light stays light, ambient loops aside).
        let next = a.renderFrame(at: 1 + 1.0 / 60)
        #expect(!next.contains(a.frame.bounds))
    }

    /// On a narrow page the longest label still fits: the content scales down, nothing is cut.
    @Test func longLabelFitsANarrowPage() {
        let a = app(system: SystemAppearance(scheme: .dark, source: .lightSensor), width: 320)
        let b = a.frame(of: .button)
        #expect(b.minX >= 0 && b.maxX <= 320 + 0.5, "\(b)")
        #expect(abs(b.midX - 160) < 1e-6)
    }

    // MARK: Contrast and reduced motion from the desktop

    @Test func contrastHintSwitchesTheColourSetAtRuntime() {
        let a = app(reduceMotion: true)  // no ambient loops: the page is at rest between changes
        let normal = a.options.colors[.pageBackground]
        _ = a.renderFrame(at: 0)
        #expect(!a.highContrast)
        #expect(a.frame.color(x: 2, y: 2) == normal.light.premultiplied8)
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(highContrast: true)), at: 1)
        #expect(a.highContrast)
        // Immediate: the next frame redraws the whole page in the high-contrast variant. A host
        // that sleeps while nothing moves is told it needs that frame.
        #expect(a.needsFrames)
        #expect(a.renderFrame(at: 1) == [a.frame.bounds])
        #expect(a.frame.color(x: 2, y: 2) == normal.highContrastLight.premultiplied8)
        #expect(px(a.colors(at: 1)[.label]) == px(a.options.colors[.label].highContrastLight))
        #expect(!a.needsFrames)
        // The portal drops the key (or leaves): back to the normal set.
        a.setSystemAppearance(.noPreference, at: 2)
        #expect(!a.highContrast)
        #expect(a.needsFrames)
        #expect(a.renderFrame(at: 2) == [a.frame.bounds])
        #expect(a.frame.color(x: 2, y: 2) == normal.light.premultiplied8)
        // Explicit "normal" from the desktop.
        a.setSystemAppearance(SystemAppearance(scheme: .dark, source: .portal, hints: AccessibilityHints(highContrast: false)), at: 3)
        #expect(!a.highContrast)
    }

    @Test func contrastHintAppliesWhateverThePreference() {
        let a = app(preference: .dark)
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .portal, hints: AccessibilityHints(highContrast: true)), at: 1)
        #expect(a.highContrast && a.isDarkMode)
        #expect(px(a.pageColor(at: 5)) == px(a.options.colors[.pageBackground].highContrastDark))
    }

    @Test func forcedHighContrastIgnoresTheHint() {
        let a = app(highContrast: true)
        #expect(a.highContrast)
        a.setSystemAppearance(SystemAppearance(scheme: .light, source: .portal, hints: AccessibilityHints(highContrast: false)), at: 1)
        #expect(a.highContrast)
        #expect(px(a.pageColor(at: 1)) == px(a.options.colors[.pageBackground].highContrastLight))
    }

    @Test func hintsAtStartApply() {
        let a = app(system: SystemAppearance(scheme: .dark, source: .portal,
                                             hints: AccessibilityHints(highContrast: true, reducedMotion: true)))
        #expect(a.highContrast && a.reduceMotion)
        #expect(px(a.pageColor(at: 0)) == px(a.options.colors[.pageBackground].highContrastDark))
        _ = a.renderFrame(at: 0)
        #expect(!a.needsFrames)  // reduced motion: no ambient loops, the page is at rest
    }

    @Test func reducedMotionHintStopsAndRestartsTheLoopsAndShortensAnimations() {
        let a = app(preference: .light)
        _ = a.renderFrame(at: 0)
        #expect(!a.reduceMotion && a.needsFrames)  // ambient loops run
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(reducedMotion: true)), at: 1)
        #expect(a.reduceMotion)
        #expect(a.needsFrames)  // one frame: the loops stop at their rest values
        #expect(!a.renderFrame(at: 1).isEmpty)
        #expect(!a.needsFrames)
        // A tap now animates the reduced way: a 0.2 s ease, settled well before a spring would be.
        #expect(a.setDarkMode(true, at: 2) == .preferenceChanged(.dark))
        #expect(a.isSettled(at: 2.25))
        #expect(a.visualState(at: 2.25).position == 1)
        // Back to full motion: the loops run again, the next tap springs.
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(reducedMotion: false)), at: 3)
        #expect(!a.reduceMotion)
        _ = a.renderFrame(at: 3)
        #expect(a.needsFrames)
        let f = a.frame(of: .original)
        _ = a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: 4))
        _ = a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: 4.05))
        #expect(!a.isDarkMode)
        #expect(!a.isSettled(at: 4.3))
    }

    @Test func forcedReduceMotionIgnoresTheHint() {
        let a = app(reduceMotion: true)
        _ = a.renderFrame(at: 0)
        a.setSystemAppearance(SystemAppearance(scheme: .noPreference, source: nil, hints: AccessibilityHints(reducedMotion: false)), at: 1)
        #expect(a.reduceMotion)
        #expect(!a.needsFrames)  // nothing changed: the loops stay still
    }
}
