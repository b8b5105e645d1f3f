import KioskEngine
import Raster

/// A rectangle on the screen in screen pixels (AT-SPI's screen coordinates).
public struct ScreenRect: Equatable, Sendable {
    public var x: Int32, y: Int32, width: Int32, height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public func contains(x px: Int32, y py: Int32) -> Bool {
        px >= x && py >= y && Int64(px) < Int64(x) + Int64(width) && Int64(py) < Int64(y) + Int64(height)
    }
}

/// What the provider exposes at one moment: the page's controls (from the page model) and where
/// the window and each control are on the screen (from the host, which knows the window's
/// position, the rotation and the scale).
public struct AccessibleSnapshot: Equatable, Sendable {
    /// The application's and the frame's name.
    public var title: String
    public var page: PageAccessibility
    /// The window on the screen.
    public var window: ScreenRect
    /// Each control on the screen, in `page.controls` order.
    public var controls: [ScreenRect]

    public init(title: String, page: PageAccessibility, window: ScreenRect, controls: [ScreenRect]) {
        self.title = title
        self.page = page
        self.window = window
        self.controls = controls
    }
}

/// The AT-SPI tree of a snapshot: application → frame → the page's controls. Node 0 is the
/// application (the root object), 1 the frame, 2… the controls in focus order. Pure: the
/// provider answers method calls and derives events from it.
struct AccessibleTree: Equatable {
    struct Node: Equatable {
        var role: Atspi.Role
        var name: String
        var states: Set<Atspi.State>
        var parent: Int?
        var children: [Int]
        /// On the screen (nil: the application, which has no extents).
        var rect: ScreenRect?
        /// The page control behind a control node.
        var control: PageControl?
        /// Its one action ("toggle", "click"), if any.
        var action: String?
    }

    static let application = 0
    static let frame = 1

    let snapshot: AccessibleSnapshot
    let nodes: [Node]

    init(_ s: AccessibleSnapshot) {
        snapshot = s
        var nodes = [
            Node(role: .application, name: s.title, states: [], parent: nil, children: [Self.frame], rect: nil),
            Node(role: .frame, name: s.title, states: [.active, .showing, .visible, .enabled, .sensitive],
                 parent: Self.application, children: [], rect: s.window),
        ]
        for (i, c) in s.page.controls.enumerated() {
            var states: Set<Atspi.State> = [.enabled, .sensitive, .visible, .showing, .focusable]
            if c.control == s.page.focus { states.insert(.focused) }
            let toggle = c.kind == .toggle
            if toggle {
                states.insert(.checkable)
                // GTK marks an on toggle button CHECKED, AccessKit PRESSED: both, for either reader.
                if c.isOn { states.formUnion([.checked, .pressed]) }
            }
            nodes.append(Node(role: toggle ? .toggleButton : .pushButton, name: c.name, states: states, parent: Self.frame,
                              children: [], rect: i < s.controls.count ? s.controls[i] : nil, control: c.control,
                              action: toggle ? "toggle" : "click"))
            nodes[Self.frame].children.append(nodes.count - 1)
        }
        self.nodes = nodes
    }

    /// The object path of node `id`.
    static func path(_ id: Int) -> String { id == application ? Atspi.rootPath : "\(Atspi.objectPrefix)/\(id)" }

    /// The node an object path names, if any: exactly a path `path(_:)` makes ("…/root", or
    /// "…/<id>" in canonical decimal: no sign, no leading zero, nothing after), of a node that
    /// exists. "…/02", "…/+2", "…/2/" name nothing.
    func node(at path: String) -> Int? {
        guard let id = Self.nodeID(inPath: path), id < nodes.count else { return nil }
        return id
    }

    /// The id a path names, whether or not the node exists (see `node(at:)`). Pure.
    static func nodeID(inPath path: String) -> Int? {
        if path == Atspi.rootPath { return application }
        let prefix = Atspi.objectPrefix + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let digits = path.utf8.dropFirst(prefix.utf8.count)
        // At most 9 digits: any id the tree can have, and never an overflow.
        guard (1...9).contains(digits.count), digits.first != UInt8(ascii: "0"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// Where the origin of AT-SPI coordinates `type` is on the screen: screen (0) at (0, 0);
    /// window (1) and parent (2) at the window's corner (every object with extents is the frame,
    /// whose parent, the application, has none, or a control, whose parent is the frame). nil
    /// when `type` is none of them.
    func origin(_ type: UInt32) -> (x: Int64, y: Int64)? {
        switch Atspi.Coordinates(rawValue: type) {
        case .screen: return (0, 0)
        case .window, .parent: return (Int64(snapshot.window.x), Int64(snapshot.window.y))
        case nil: return nil
        }
    }

    /// A point given relative to `origin`, on the screen. The sum is taken in 64 bits; a point
    /// beyond the 32-bit screen that AT-SPI can describe is outside every object: nil.
    static func screenPoint(x: Int32, y: Int32, origin: (x: Int64, y: Int64)) -> (x: Int32, y: Int32)? {
        guard let sx = Int32(exactly: Int64(x) + origin.x), let sy = Int32(exactly: Int64(y) + origin.y) else { return nil }
        return (sx, sy)
    }

    /// Node `id`'s extents relative to `origin` (the application's: an empty rectangle at the
    /// origin), each coordinate in 64 bits and then clamped to the 32 bits AT-SPI carries.
    func extents(of id: Int, origin: (x: Int64, y: Int64)) -> ScreenRect {
        guard let r = nodes[id].rect else { return ScreenRect(x: 0, y: 0, width: 0, height: 0) }
        return ScreenRect(x: Int32(clamping: Int64(r.x) - origin.x), y: Int32(clamping: Int64(r.y) - origin.y),
                          width: r.width, height: r.height)
    }

    /// The node of a page control.
    func node(of control: PageControl) -> Int? { nodes.firstIndex { $0.control == control } }

    /// The deepest node at a screen point below `id` (itself when no child holds it; nil when
    /// not even it does).
    func node(atX x: Int32, y: Int32, in id: Int) -> Int? {
        for c in nodes[id].children where nodes[c].rect?.contains(x: x, y: y) == true { return c }
        return nodes[id].rect?.contains(x: x, y: y) == true ? id : nil
    }

    /// One change a screen reader is told about.
    enum Event: Equatable {
        case state(node: Int, Atspi.State, Bool)
        case name(node: Int, String)
    }

    /// What changed from `old` to this tree, in the order a screen reader needs it: the focus
    /// leaves and arrives first (a reader speaks a state change only on the focused control),
    /// then names, then the checked/pressed states. Nothing for what did not change.
    func events(from old: AccessibleTree) -> [Event] {
        guard old.nodes.count == nodes.count else { return [] }
        var out: [Event] = []
        for (i, n) in nodes.enumerated() where old.nodes[i].states.contains(.focused) && !n.states.contains(.focused) {
            out.append(.state(node: i, .focused, false))
        }
        for (i, n) in nodes.enumerated() where !old.nodes[i].states.contains(.focused) && n.states.contains(.focused) {
            out.append(.state(node: i, .focused, true))
        }
        for (i, n) in nodes.enumerated() where old.nodes[i].name != n.name {
            out.append(.name(node: i, n.name))
        }
        for (i, n) in nodes.enumerated() {
            for s in [Atspi.State.checked, .pressed] where old.nodes[i].states.contains(s) != n.states.contains(s) {
                out.append(.state(node: i, s, n.states.contains(s)))
            }
        }
        return out
    }
}
