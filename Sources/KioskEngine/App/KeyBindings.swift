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
