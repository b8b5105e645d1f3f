#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus error reply, or a local failure (connecting, building or sending a message, the
/// connection gone): `name` is the D-Bus error name, or a short word for the step that failed
/// ("connect", "call", "process", "register", "reply").
public struct BusError: Error, Equatable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// A failed sd-bus call returning `-errno` (`result`), in step `name` about `what`:
    /// "what: No such file or directory".
    public init(name: String, _ what: String, errno result: Int32) {
        self.init(name: name, message: "\(what): \(Self.describe(errno: -result))")
    }

    /// sd-bus's error (a reply's, or a failed `sd_bus_call`'s); without a name, the errno
    /// `result` (negative) describes it.
    public init(name: String?, message: String?, result: Int32) {
        self.init(name: name ?? "errno", message: message ?? Self.describe(errno: -result))
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"

    /// Nobody owns the destination (the service is not running and was not started).
    public var isNoOwner: Bool { name == Self.serviceUnknown || name == Self.nameHasNoOwner }

    /// `strerror` of a positive errno.
    public static func describe(errno e: Int32) -> String { String(cString: strerror(e)) }
}
