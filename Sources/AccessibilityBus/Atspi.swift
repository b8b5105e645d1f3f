/// AT-SPI2's numbers and names (at-spi2-core's `atspi-constants.h` and `xml/*.xml`), only those
/// the kiosk's tree uses.
enum Atspi {
    /// Where every accessible object lives; the application's root, and a null reference.
    static let objectPrefix = "/org/a11y/atspi/accessible"
    static let rootPath = "/org/a11y/atspi/accessible/root"
    static let nullPath = "/org/a11y/atspi/null"
    static let cachePath = "/org/a11y/atspi/cache"
    static let registryName = "org.a11y.atspi.Registry"

    static let accessible = "org.a11y.atspi.Accessible"
    static let application = "org.a11y.atspi.Application"
    static let component = "org.a11y.atspi.Component"
    static let action = "org.a11y.atspi.Action"
    static let socket = "org.a11y.atspi.Socket"
    static let cache = "org.a11y.atspi.Cache"
    static let objectEvent = "org.a11y.atspi.Event.Object"
    static let windowEvent = "org.a11y.atspi.Event.Window"
    static let properties = "org.freedesktop.DBus.Properties"

    /// The accessibility bus's launcher on the session bus, and its enabled switch.
    static let busName = "org.a11y.Bus"
    static let busPath = "/org/a11y/bus"
    static let busInterface = "org.a11y.Bus"
    static let statusInterface = "org.a11y.Status"

    /// Whether an accessibility bus address handed over by `org.a11y.Bus.GetAddress` may be
    /// connected to: Unix sockets only ("unix:path=…", "unix:abstract=…", several separated by
    /// ";"), as at-spi-bus-launcher gives. Never "unixexec:" (sd-bus would run its program) nor
    /// "tcp:" or anything else.
    static func isSocketAddress(_ address: String) -> Bool {
        let entries = address.split(separator: ";")
        return !entries.isEmpty && entries.allSatisfy { $0.hasPrefix("unix:") }
    }

    /// `AtspiRole` values.
    enum Role: UInt32 {
        case frame = 23
        case pushButton = 43
        case toggleButton = 62
        case application = 75

        /// The role's name as `GetRoleName` gives it (libatspi's spelling).
        var name: String {
            switch self {
            case .frame: return "frame"
            case .pushButton: return "push button"
            case .toggleButton: return "toggle button"
            case .application: return "application"
            }
        }
    }

    /// `AtspiStateType` values: state n is bit n % 32 of word n / 32 in `GetState`'s `au`.
    enum State: Int, CaseIterable {
        case active = 1
        case checked = 4
        case enabled = 8
        case focusable = 11
        case focused = 12
        case pressed = 20
        case sensitive = 24
        case showing = 25
        case visible = 30
        case checkable = 41

        /// The name `StateChanged` events carry.
        var eventName: String {
            switch self {
            case .active: return "active"
            case .checked: return "checked"
            case .enabled: return "enabled"
            case .focusable: return "focusable"
            case .focused: return "focused"
            case .pressed: return "pressed"
            case .sensitive: return "sensitive"
            case .showing: return "showing"
            case .visible: return "visible"
            case .checkable: return "checkable"
            }
        }
    }

    /// A set of states as `GetState` returns it: two 32-bit words.
    static func words(_ states: Set<State>) -> [UInt32] {
        var w: [UInt32] = [0, 0]
        for s in states { w[s.rawValue / 32] |= 1 << UInt32(s.rawValue % 32) }
        return w
    }

    /// `AtspiCoordType`.
    enum Coordinates: UInt32 {
        case screen = 0, window = 1, parent = 2
    }
}
