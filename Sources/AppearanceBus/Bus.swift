import CSystemd
import Glibc

/// Which bus to connect to. `.session` and `.system` follow sd-bus's defaults, which honour
/// `DBUS_SESSION_BUS_ADDRESS` and `DBUS_SYSTEM_BUS_ADDRESS`; `.address` names one explicitly
/// (the tests' private daemons).
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

/// One value read from a D-Bus message, enough for the portal and the sensor proxy.
indirect enum BusValue: Equatable {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case bool(Bool)
    case double(Double)
    case variant(BusValue)
    case array([BusValue])
    case entry(BusValue, BusValue)
    case structure([BusValue])
    case other(Character)

    /// The value inside any number of variant wrappers (old portals' `Read` wraps twice).
    var unwrapped: BusValue {
        if case .variant(let v) = self { return v.unwrapped }
        return self
    }

    var uint32: UInt32? {
        switch unwrapped {
        case .uint32(let u): return u
        case .int32(let i) where i >= 0: return UInt32(i)
        default: return nil
        }
    }

    var double: Double? {
        switch unwrapped {
        case .double(let d): return d
        case .uint32(let u): return Double(u)
        case .int32(let i): return Double(i)
        default: return nil
        }
    }

    var bool: Bool? { if case .bool(let b) = unwrapped { return b }; return nil }
    var string: String? { if case .string(let s) = unwrapped { return s }; return nil }

    /// An `a{sv}` as a dictionary.
    var dictionary: [String: BusValue]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String: BusValue] = [:]
        for item in items {
            guard case .entry(.string(let k), let v) = item else { return nil }
            out[k] = v
        }
        return out
    }
}

/// A D-Bus error reply or a transport failure.
struct BusError: Error, CustomStringConvertible {
    var name: String
    var message: String
    var description: String { message.isEmpty ? name : "\(name): \(message)" }

    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    var isNoOwner: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}

/// A borrowed sd-bus message being read.
struct BusMessage {
    let raw: OpaquePointer

    var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }

    /// Reads every remaining top-level argument.
    func readAll() -> [BusValue]? {
        var out: [BusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>? = nil
            let r = sd_bus_message_peek_type(raw, &type, &contents)
            if r < 0 { return nil }
            if r == 0 { return out }
            guard let v = readOne() else { return nil }
            out.append(v)
        }
    }

    /// Reads one complete value at the current position.
    func readOne() -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        guard sd_bus_message_peek_type(raw, &type, &contents) > 0 else { return nil }
        let t = UInt8(bitPattern: type)
        switch t {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>? = nil
            guard sd_bus_message_read_basic(raw, type, &p) > 0, let p else { return nil }
            return .string(String(cString: p))
        case UInt8(ascii: "u"):
            var u: UInt32 = 0
            guard sd_bus_message_read_basic(raw, type, &u) > 0 else { return nil }
            return .uint32(u)
        case UInt8(ascii: "i"):
            var i: Int32 = 0
            guard sd_bus_message_read_basic(raw, type, &i) > 0 else { return nil }
            return .int32(i)
        case UInt8(ascii: "b"):
            var b: Int32 = 0
            guard sd_bus_message_read_basic(raw, type, &b) > 0 else { return nil }
            return .bool(b != 0)
        case UInt8(ascii: "d"):
            var d: Double = 0
            guard sd_bus_message_read_basic(raw, type, &d) > 0 else { return nil }
            return .double(d)
        case UInt8(ascii: "v"), UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "r"):
            guard sd_bus_message_enter_container(raw, type, contents) > 0 else { return nil }
            var items: [BusValue] = []
            while true {
                var it: CChar = 0
                var ic: UnsafePointer<CChar>? = nil
                let r = sd_bus_message_peek_type(raw, &it, &ic)
                if r < 0 { return nil }
                if r == 0 { break }
                guard let v = readOne() else { return nil }
                items.append(v)
            }
            guard sd_bus_message_exit_container(raw) >= 0 else { return nil }
            switch t {
            case UInt8(ascii: "v"): return items.count == 1 ? .variant(items[0]) : nil
            case UInt8(ascii: "a"): return .array(items)
            case UInt8(ascii: "e"): return items.count == 2 ? .entry(items[0], items[1]) : nil
            default: return .structure(items)
            }
        default:
            guard sd_bus_message_skip(raw, nil) >= 0 else { return nil }
            return .other(Character(Unicode.Scalar(t)))
        }
    }
}

/// One sd-bus connection, used only on the runner's thread.
final class Bus {
    let raw: OpaquePointer
    let address: BusAddress
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<MatchHandler>] = []

    final class MatchHandler {
        let body: (BusMessage) -> Void
        init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
    }

    private init(raw: OpaquePointer, address: BusAddress) {
        self.raw = raw
        self.address = address
    }

    static func open(_ address: BusAddress) -> Result<Bus, BusError> {
        var bus: OpaquePointer? = nil
        var r: Int32
        switch address {
        case .session: r = sd_bus_open_user(&bus)
        case .system: r = sd_bus_open_system(&bus)
        case .address(let a):
            r = sd_bus_new(&bus)
            if r >= 0 { r = sd_bus_set_address(bus, a) }
            if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
            if r >= 0 { r = sd_bus_start(bus) }
        }
        guard r >= 0, let bus else {
            if let bus { _ = sd_bus_unref(bus) }
            return .failure(BusError(name: "connect", message: "cannot connect to the \(address): \(String(cString: strerror(-r)))"))
        }
        return .success(Bus(raw: bus, address: address))
    }

    var uniqueName: String? {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_get_unique_name(raw, &p) >= 0, let p else { return nil }
        return String(cString: p)
    }

    /// Adds a match rule whose messages go to `body` (called from `process`).
    func addMatch(_ rule: String, _ body: @escaping (BusMessage) -> Void) -> BusError? {
        let handler = Unmanaged.passRetained(MatchHandler(body))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match(raw, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            Unmanaged<MatchHandler>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(raw: m))
            return 0
        }, handler.toOpaque())
        guard r >= 0, let slot else {
            handler.release()
            return BusError(name: "AddMatch", message: "\(rule): \(String(cString: strerror(-r)))")
        }
        slots.append(slot)
        handlers.append(handler)
        return nil
    }

    enum Arg {
        case string(String)
    }

    /// A method call waiting up to `timeoutUSec` for the reply; `read` decodes the reply.
    func call<T>(destination: String, path: String, interface: String, member: String,
                 args: [Arg] = [], timeoutUSec: UInt64, read: (BusMessage) -> T) -> Result<T, BusError> {
        var m: OpaquePointer? = nil
        var r = sd_bus_message_new_method_call(raw, &m, destination, path, interface, member)
        guard r >= 0, let m else { return .failure(BusError(name: "call", message: "\(member): \(String(cString: strerror(-r)))")) }
        defer { _ = sd_bus_message_unref(m) }
        for a in args {
            switch a {
            case .string(let s):
                r = s.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
            }
            if r < 0 { return .failure(BusError(name: "call", message: "\(member) arguments: \(String(cString: strerror(-r)))")) }
        }
        var err = csystemd_error_null()
        var reply: OpaquePointer? = nil
        r = sd_bus_call(raw, m, timeoutUSec, &err, &reply)
        defer { sd_bus_error_free(&err) }
        guard r >= 0, let reply else {
            let name = err.name.map { String(cString: $0) } ?? "errno"
            let msg = err.message.map { String(cString: $0) } ?? String(cString: strerror(-r))
            return .failure(BusError(name: name, message: msg))
        }
        defer { _ = sd_bus_message_unref(reply) }
        return .success(read(BusMessage(raw: reply)))
    }

    /// Dispatches everything queued; returns an error when the connection is gone.
    func processAll() -> BusError? {
        while true {
            let r = sd_bus_process(raw, nil)
            if r < 0 { return BusError(name: "process", message: "\(address): \(String(cString: strerror(-r)))") }
            if r == 0 { return nil }
        }
    }

    var fd: Int32 { sd_bus_get_fd(raw) }
    var events: Int16 { Int16(truncatingIfNeeded: max(0, sd_bus_get_events(raw))) }

    /// sd-bus's own deadline (CLOCK_MONOTONIC µs), nil when none.
    var deadlineUSec: UInt64? {
        var t: UInt64 = 0
        guard sd_bus_get_timeout(raw, &t) >= 0, t != UInt64.max else { return nil }
        return t
    }

    func close() {
        for s in slots { _ = sd_bus_slot_unref(s) }
        slots.removeAll()
        _ = sd_bus_flush_close_unref(raw)
        for h in handlers { h.release() }
        handlers.removeAll()
    }
}
