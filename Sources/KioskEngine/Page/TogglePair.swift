import DarkModeToggle

/// One of the page's two toggles. `PageControl` names all three controls in focus order; a
/// `ToggleSlot` is a toggle only, so code about toggles cannot be handed the button.
public enum ToggleSlot: CaseIterable, Sendable {
    case original, vivid

    /// The control it is on the page.
    public var control: PageControl { self == .original ? .original : .vivid }
    /// The style it draws in.
    public var style: ToggleStyle { self == .original ? .original : .vivid }
    /// The other toggle (it follows a commit on this one).
    public var other: ToggleSlot { self == .original ? .vivid : .original }
}

extension PageControl {
    /// The toggle this control is, or nil for the button.
    public var toggle: ToggleSlot? {
        switch self {
        case .original: return .original
        case .vivid: return .vivid
        case .button: return nil
        }
    }
}

/// A value for each toggle, by name: the Original's and the Vivid's side by side. A struct of
/// two fields rather than an array, so the page model (made every frame) allocates nothing for
/// it and no index can be out of range or mean the wrong toggle.
public struct TogglePair<Value> {
    public var original: Value
    public var vivid: Value

    public init(original: Value, vivid: Value) {
        self.original = original
        self.vivid = vivid
    }

    /// Each toggle's value made by `make` (the Original's first).
    public init(_ make: (ToggleSlot) throws -> Value) rethrows {
        original = try make(.original)
        vivid = try make(.vivid)
    }

    /// The same value for both toggles.
    public init(both value: Value) {
        original = value
        vivid = value
    }

    public subscript(_ slot: ToggleSlot) -> Value {
        get { slot == .original ? original : vivid }
        // In place: a mutating call through the subscript (an interaction handling an event)
        // does not copy the value first.
        _modify {
            if slot == .original { yield &original } else { yield &vivid }
        }
    }

    public func map<T>(_ transform: (Value) throws -> T) rethrows -> TogglePair<T> {
        TogglePair<T>(original: try transform(original), vivid: try transform(vivid))
    }

    /// Both values, the Original's first.
    public var both: [Value] { [original, vivid] }

    public func allSatisfy(_ predicate: (Value) throws -> Bool) rethrows -> Bool {
        try predicate(original) && predicate(vivid)
    }
}

extension TogglePair: Equatable where Value: Equatable {}
extension TogglePair: Sendable where Value: Sendable {}

/// The page's shaped labels: each toggle's headline and the button's words (nil: not shaped).
public struct PageLabels {
    public var headlines: TogglePair<TypesetLabel?>
    public var button: TypesetLabel?

    public init(headlines: TogglePair<TypesetLabel?>, button: TypesetLabel?) {
        self.headlines = headlines
        self.button = button
    }

    /// No label shaped yet.
    public init() {
        self.init(headlines: TogglePair(both: nil), button: nil)
    }
}
