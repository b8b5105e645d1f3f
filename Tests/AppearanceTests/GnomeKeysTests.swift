import Appearance
import Testing

/// The GNOME accessibility keys fill in what the portal's appearance keys do not say.
@Suite struct GnomeKeysTests {
    @Test func absentPortalKeysComeFromGnome() {
        var g = GnomeAccessibilityKeys()
        let known = [g.apply(namespace: GnomeAccessibilityKeys.a11yInterface, key: "high-contrast", bool: true),
                     g.apply(namespace: GnomeAccessibilityKeys.interface, key: "enable-animations", bool: false),
                     g.apply(namespace: GnomeAccessibilityKeys.interface, key: "gtk-theme", bool: true)]
        #expect(known == [true, true, false])
        #expect(g.filling(AccessibilityHints()) == AccessibilityHints(highContrast: true, reducedMotion: true))
        g.apply(namespace: GnomeAccessibilityKeys.interface, key: "enable-animations", bool: true)
        #expect(g.filling(AccessibilityHints()).reducedMotion == false)
    }

    @Test func thePortalsOwnKeysWin() {
        let g = GnomeAccessibilityKeys(highContrast: true, enableAnimations: false)
        #expect(g.filling(AccessibilityHints(highContrast: false, reducedMotion: false))
                == AccessibilityHints(highContrast: false, reducedMotion: false))
    }

    @Test func nothingKnownIsNothingSaid() {
        #expect(GnomeAccessibilityKeys().filling(AccessibilityHints()) == AccessibilityHints())
        // A key whose value is not a boolean counts as absent.
        var g = GnomeAccessibilityKeys(highContrast: true)
        g.apply(namespace: GnomeAccessibilityKeys.a11yInterface, key: "high-contrast", bool: nil)
        #expect(g.highContrast == nil)
    }
}

/// The text-scaling-factor (a double) becomes the text-size hint when the portal says nothing.
@Suite struct GnomeTextScaleTests {
    @Test func textScalingFactorIsTheTextScaleHint() {
        var g = GnomeAccessibilityKeys()
        let taken = [g.apply(namespace: GnomeAccessibilityKeys.interface, key: "text-scaling-factor", double: 1.5),
                     g.apply(namespace: GnomeAccessibilityKeys.interface, key: "enable-animations", double: 2)]
        #expect(taken == [true, false])
        #expect(g.filling(AccessibilityHints()).textScale == 1.5)
        #expect(g.enableAnimations == nil)
    }
}
