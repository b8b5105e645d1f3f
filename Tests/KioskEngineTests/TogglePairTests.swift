import DarkModeToggle
import Raster
import Testing
@testable import KioskEngine

/// The named controls: a toggle slot is its control and style, a pair is read and changed by
/// name, and the page model names each toggle's frame and label (no index to get wrong).
@Suite struct TogglePairTests {
    @Test func slotsNameTheirControlStyleAndOther() {
        #expect(ToggleSlot.original.control == .original && ToggleSlot.vivid.control == .vivid)
        #expect(ToggleSlot.original.style == .original && ToggleSlot.vivid.style == .vivid)
        #expect(ToggleSlot.original.other == .vivid && ToggleSlot.vivid.other == .original)
        #expect(PageControl.allCases.map(\.toggle) == [.original, .vivid, nil])
        for slot in ToggleSlot.allCases { #expect(slot.control.toggle == slot) }
    }

    @Test func pairReadsAndChangesByName() {
        var pair = TogglePair { $0 == .original ? 1 : 2 }
        #expect(pair.original == 1 && pair.vivid == 2)
        #expect(pair[.original] == 1 && pair[.vivid] == 2)
        pair[.vivid] += 40
        #expect(pair == TogglePair(original: 1, vivid: 42))
        #expect(pair.map { $0 * 2 } == TogglePair(original: 2, vivid: 84))
        #expect(pair.both == [1, 42])
        #expect(pair.allSatisfy { $0 > 0 } && !pair.allSatisfy { $0 > 1 })
        #expect(TogglePair(both: 7) == TogglePair(original: 7, vivid: 7))
    }

    @Test func modelNamesEachToggle() {
        let app = KioskApp(options: KioskOptions(pixelWidth: 1280, pixelHeight: 800, scale: 1), preference: .light)
        // A tap on the Vivid switches both (the other follows) and focuses the Vivid.
        let f = app.frame(of: .vivid)
        let p = Point(f.midX, f.midY)
        _ = app.handle(PointerEvent(id: 1, phase: .down, location: p, timestamp: 0))
        #expect(app.handle(PointerEvent(id: 1, phase: .up, location: p, timestamp: 0.05)) == .preferenceChanged(.dark))
        let model = app.pageModel(at: 2)
        #expect(model.togglesOn == TogglePair(both: true))
        #expect(model.focus == .vivid)
        let names = model.accessibility.controls.map(\.name)
        #expect(names == ["Dark Mode (Original)", "Dark Mode (Vivid)", "Use System Setting"])
        #expect(model.layout.labelBox(of: .original) == model.layout.originalLabelBox)
        #expect(model.layout.labelBox(of: .vivid) == model.layout.vividLabelBox)
    }
}
