import DarkModeToggle

/// The host's keyboard map: key names as SDL spells them (case-insensitive; traces use the same
/// names) to the toggle's actions. The component itself knows actions, not keys.
public enum KeyBindings {
    /// The action for the key called `name`, or nil when the toggle ignores that key.
    public static func action(forKeyName name: String) -> ToggleKeyAction? {
        switch name.lowercased() {
        case "space", "return", "enter", "keypad enter", "return2": return .activate
        default: return nil
        }
    }
}

/// What a key does on the page.
public enum PageKeyAction: Equatable, Sendable {
    case focusNext, focusPrevious, activate
}

extension KeyBindings {
    /// The page's action for a key name (SDL spelling): Tab / Shift-Tab and the arrow keys move
    /// the focus, Space / Return activate the focused control.
    public static func pageAction(forKeyName name: String, shift: Bool = false) -> PageKeyAction? {
        switch name.lowercased() {
        case "tab": return shift ? .focusPrevious : .focusNext
        case "right", "down": return .focusNext
        case "left", "up": return .focusPrevious
        default: return action(forKeyName: name) == .activate ? .activate : nil
        }
    }
}
