import DarkModeToggle
import Testing
@testable import KioskEngine

@Suite struct KeyBindingsTests {
    @Test(arguments: ["space", "Space", "return", "RETURN", "enter", "keypad enter", "return2"])
    func activationKeys(name: String) {
        #expect(KeyBindings.action(forKeyName: name) == .activate)
    }

    @Test(arguments: ["escape", "a", "", "tab", "spacebar"])
    func ignoredKeys(name: String) {
        #expect(KeyBindings.action(forKeyName: name) == nil)
    }
}
