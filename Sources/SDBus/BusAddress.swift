/// Which bus to connect to. `.session` and `.system` follow sd-bus's defaults, which honour
/// `DBUS_SESSION_BUS_ADDRESS` and `DBUS_SYSTEM_BUS_ADDRESS`; `.address` names one explicitly
/// (an accessibility bus, the tests' private daemons).
public enum BusAddress: Equatable, Sendable, CustomStringConvertible {
    case session
    case system
    case address(String)

    public var description: String {
        switch self {
        case .session: return "session bus"
        case .system: return "system bus"
        case .address(let a): return "bus \(a)"
        }
    }
}
