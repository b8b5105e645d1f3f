import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// The appearance contract: preference (system/light/dark) resolved against the system input.
@Suite struct AppearanceStateTests {
    /// Colours compared as the frame stores them (8-bit), not as the mix's doubles.
    func px(_ c: Color) -> UInt32 { c.premultiplied8.packed }

    let options = KioskOptions(pixelWidth: 400, pixelHeight: 300)

    func tapToggle(_ app: KioskApp, at t: Double) -> KioskOutput? {
        let c = Point(app.toggleFrame.midX, app.toggleFrame.midY)
        _ = app.handle(PointerEvent(id: 1, phase: .down, location: c, timestamp: t))
        return app.handle(PointerEvent(id: 1, phase: .up, location: c, timestamp: t + 0.05))
    }

    @Test(arguments: [(AppearancePreference.system, ColorScheme.noPreference, false),
                      (.system, .light, false), (.system, .dark, true),
                      (.light, .dark, false), (.dark, .light, true), (.dark, .noPreference, true)])
    func effectiveModeAtStart(preference: AppearancePreference, scheme: ColorScheme, dark: Bool) {
        let app = KioskApp(options: options, preference: preference,
                           system: SystemAppearance(scheme: scheme, source: scheme == .noPreference ? nil : .portal))
        #expect(app.isDarkMode == dark)
        #expect(app.appearancePreference == preference)
        #expect(px(app.pageColor(at: 0)) == px(options.theme.pageColor(isDark: dark)))
    }

    @Test func tapStoresAFixedMode() {
        let app = KioskApp(options: options, preference: .system)
        #expect(tapToggle(app, at: 1) == .preferenceChanged(.dark))
        #expect(app.appearancePreference == .dark)
        #expect(app.isDarkMode)
        #expect(tapToggle(app, at: 3) == .preferenceChanged(.light))
        #expect(app.appearancePreference == .light)
    }

    @Test func keyActivationStoresAFixedMode() {
        let app = KioskApp(options: options, preference: .light)
        #expect(app.handle(KeyEvent(action: .activate, timestamp: 1)) == .preferenceChanged(.dark))
        #expect(app.handle(KeyEvent(action: nil, timestamp: 2)) == nil)
    }

    @Test func systemChangeAnimatesOnlyWhileFollowing() {
        let app = KioskApp(options: options, preference: .system)
        app.setSystemAppearance(SystemAppearance(scheme: .dark, source: .lightSensor), at: 1)
        #expect(app.isDarkMode)
        #expect(app.appearancePreference == .system)
        // It animates like a tap: the page is between the two colours mid-fade, dark at the end.
        #expect(px(app.pageColor(at: 1.25)) != px(options.theme.dark) && px(app.pageColor(at: 1.25)) != px(options.theme.light))
        #expect(px(app.pageColor(at: 3)) == px(options.theme.dark))
        #expect(app.isSettled(at: 5))

        let fixed = KioskApp(options: options, preference: .light)
        fixed.setSystemAppearance(SystemAppearance(scheme: .dark, source: .portal), at: 1)
        #expect(!fixed.isDarkMode)
        #expect(fixed.systemAppearance.scheme == .dark)
        #expect(px(fixed.pageColor(at: 3)) == px(options.theme.light))
        // Choosing "system" later picks the remembered system input up.
        #expect(fixed.choosePreference(.system, at: 4) == .preferenceChanged(.system))
        #expect(fixed.isDarkMode)
        #expect(fixed.choosePreference(.system, at: 5) == nil)  // no change, nothing to save
    }

    @Test func externalPreferenceChangeAnimatesAndSavesNothing() {
        let app = KioskApp(options: options, preference: .light)
        app.setAppearancePreference(.dark, at: 1)
        #expect(app.isDarkMode)
        #expect(app.appearancePreference == .dark)
        #expect(px(app.pageColor(at: 3)) == px(options.theme.dark))
    }

    @Test func summaries() {
        let app = KioskApp(options: options, preference: .system,
                           system: SystemAppearance(scheme: .dark, source: .portal))
        #expect(app.accessibilitySummary == "Dark Mode: On (following system)")
        #expect(app.statusSummary == app.accessibilitySummary)
        _ = tapToggle(app, at: 1)
        #expect(app.accessibilitySummary == "Dark Mode: Off")
    }
}
