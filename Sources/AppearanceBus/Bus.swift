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

/// One sd-bus connection, used only on the runner's thread. Nothing here waits for a peer:
/// match rules are installed with `sd_bus_add_match_async` and method calls go out with
/// `sd_bus_call_async`, their replies (or sd-bus's timeout error) arriving through `process`
/// on the runner's poll loop, so one slow peer delays only its own source (issue 32, item 15).
/// `callBlocking` is kept for the stop path (ReleaseLight) only.
final class Bus {
    let raw: OpaquePointer
    let address: BusAddress
    private var nextID = 0
    private var matches: [Int: (slot: OpaquePointer, handler: Unmanaged<MatchHandler>)] = [:]
    private var calls: [Unmanaged<CallHandler>] = []

    final class MatchHandler {
        let body: (BusMessage) -> Void
        let installFailed: (String) -> Void
        init(_ body: @escaping (BusMessage) -> Void, installFailed: @escaping (String) -> Void) {
            self.body = body
            self.installFailed = installFailed
        }
    }

    final class CallHandler {
        let body: (Result<BusMessage, BusError>) -> Void
        var slot: OpaquePointer?
        var done = false
        init(_ body: @escaping (Result<BusMessage, BusError>) -> Void) { self.body = body }
    }

    /// A match rule's handle, for `removeMatch`.
    struct Match: Equatable { let id: Int }

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

    /// Adds a match rule whose messages go to `body` (called from `process`). The AddMatch
    /// call to the bus goes out at once and its reply is not waited for; the bus handles a
    /// connection's messages in order, so a method call sent after this one reaches its peer
    /// only once the rule is in place. `installFailed` gets a line if the bus refuses it.
    @discardableResult
    func addMatch(_ rule: String, installFailed: @escaping (String) -> Void = { _ in },
                  _ body: @escaping (BusMessage) -> Void) -> Match? {
        let handler = Unmanaged.passRetained(MatchHandler(body, installFailed: installFailed))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match_async(raw, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            Unmanaged<MatchHandler>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(raw: m))
            return 0
        }, { m, userdata, _ in
            guard let m, let userdata, sd_bus_message_is_method_error(m, nil) > 0 else { return 0 }
            let e = sd_bus_message_get_error(m)
            let name = e?.pointee.name.map { String(cString: $0) } ?? "error"
            Unmanaged<MatchHandler>.fromOpaque(userdata).takeUnretainedValue().installFailed("AddMatch refused: \(name)")
            return 0
        }, handler.toOpaque())
        guard r >= 0, let slot else {
            handler.release()
            installFailed("AddMatch \(rule): \(String(cString: strerror(-r)))")
            return nil
        }
        nextID += 1
        matches[nextID] = (slot, handler)
        return Match(id: nextID)
    }

    /// Removes a match rule (RemoveMatch goes out without waiting).
    func removeMatch(_ match: Match) {
        guard let m = matches.removeValue(forKey: match.id) else { return }
        _ = sd_bus_slot_unref(m.slot)
        m.handler.release()
    }

    enum Arg {
        case string(String)
    }

    private func methodCall(destination: String, path: String, interface: String, member: String,
                            args: [Arg]) -> Result<OpaquePointer, BusError> {
        var m: OpaquePointer? = nil
        var r = sd_bus_message_new_method_call(raw, &m, destination, path, interface, member)
        guard r >= 0, let m else { return .failure(BusError(name: "call", message: "\(member): \(String(cString: strerror(-r)))")) }
        for a in args {
            switch a {
            case .string(let s):
                r = s.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) }
            }
            if r < 0 {
                _ = sd_bus_message_unref(m)
                return .failure(BusError(name: "call", message: "\(member) arguments: \(String(cString: strerror(-r)))"))
            }
        }
        return .success(m)
    }

    /// Sends a method call and returns at once; `reply` gets the answer, the peer's error, or
    /// sd-bus's own `org.freedesktop.DBus.Error.Timeout`/`NoReply` after `timeoutUSec`, from
    /// `process` on the runner thread. Returns an error only when the call could not be sent
    /// (then `reply` is never called).
    @discardableResult
    func callAsync(destination: String, path: String, interface: String, member: String, args: [Arg] = [],
                   timeoutUSec: UInt64, reply: @escaping (Result<BusMessage, BusError>) -> Void) -> BusError? {
        let m: OpaquePointer
        switch methodCall(destination: destination, path: path, interface: interface, member: member, args: args) {
        case .success(let made): m = made
        case .failure(let e): return e
        }
        defer { _ = sd_bus_message_unref(m) }
        let handler = CallHandler(reply)
        let box = Unmanaged.passRetained(handler)
        var slot: OpaquePointer? = nil
        let r = sd_bus_call_async(raw, &slot, m, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            let h = Unmanaged<CallHandler>.fromOpaque(userdata).takeUnretainedValue()
            h.done = true
            if sd_bus_message_is_method_error(m, nil) > 0 {
                let e = sd_bus_message_get_error(m)
                h.body(.failure(BusError(name: e?.pointee.name.map { String(cString: $0) } ?? "error",
                                         message: e?.pointee.message.map { String(cString: $0) } ?? "")))
            } else {
                h.body(.success(BusMessage(raw: m)))
            }
            return 0
        }, box.toOpaque(), timeoutUSec)
        guard r >= 0, let slot else {
            box.release()
            return BusError(name: "call", message: "\(member): \(String(cString: strerror(-r)))")
        }
        handler.slot = slot
        calls.append(box)
        return nil
    }

    /// Frees the slots of calls whose reply was delivered (not from inside a callback).
    private func sweepCalls() {
        guard calls.contains(where: { $0.takeUnretainedValue().done }) else { return }
        calls.removeAll { box in
            let h = box.takeUnretainedValue()
            guard h.done else { return false }
            if let s = h.slot { _ = sd_bus_slot_unref(s) }
            box.release()
            return true
        }
    }

    /// A method call waiting up to `timeoutUSec` for the reply, for the stop path only
    /// (nothing else runs then); `read` decodes the reply.
    func callBlocking<T>(destination: String, path: String, interface: String, member: String,
                         args: [Arg] = [], timeoutUSec: UInt64, read: (BusMessage) -> T) -> Result<T, BusError> {
        let m: OpaquePointer
        switch methodCall(destination: destination, path: path, interface: interface, member: member, args: args) {
        case .success(let made): m = made
        case .failure(let e): return .failure(e)
        }
        defer { _ = sd_bus_message_unref(m) }
        var err = csystemd_error_null()
        var reply: OpaquePointer? = nil
        let r = sd_bus_call(raw, m, timeoutUSec, &err, &reply)
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
        defer { sweepCalls() }
        while true {
            let r = sd_bus_process(raw, nil)
            if r < 0 { return BusError(name: "process", message: "\(address): \(String(cString: strerror(-r)))") }
            if r == 0 { return nil }
        }
    }

    var fd: Int32 { sd_bus_get_fd(raw) }
    var events: Int16 { Int16(truncatingIfNeeded: max(0, sd_bus_get_events(raw))) }

    /// sd-bus's own deadline (CLOCK_MONOTONIC µs), nil when none: the earliest pending call's
    /// timeout.
    var deadlineUSec: UInt64? {
        var t: UInt64 = 0
        guard sd_bus_get_timeout(raw, &t) >= 0, t != UInt64.max else { return nil }
        return t
    }

    func close() {
        for (_, m) in matches { _ = sd_bus_slot_unref(m.slot) }
        for box in calls {
            if let s = box.takeUnretainedValue().slot { _ = sd_bus_slot_unref(s) }
        }
        _ = sd_bus_flush_close_unref(raw)
        for (_, m) in matches { m.handler.release() }
        matches.removeAll()
        for box in calls { box.release() }
        calls.removeAll()
    }
}

/// The unique name owning a well-known name, followed across owner changes: `GetNameOwner`
/// at start (sent without waiting) and `NameOwnerChanged` from the bus itself after. Signals
/// that claim to come from the bus but do not (a unicast spoof) are dropped: the handler
/// checks the sender, not only the match rule.
final class NameOwnerWatch {
    static let busName = "org.freedesktop.DBus"
    let name: String
    /// The owner now; nil while nobody owns the name (or before the first answer).
    private(set) var owner: String?
    /// True once GetNameOwner answered (or failed): the owner is known.
    private(set) var known = false

    init(name: String) { self.name = name }

    /// Starts following; `changed(owner, first)` runs on each change of owner and once for
    /// the first answer (`first` true). Returns an error line when a request could not be sent.
    func start(_ bus: Bus, timeoutUSec: UInt64, log: @escaping (String) -> Void,
               spoofed: @escaping (String) -> Void, changed: @escaping (String?, Bool) -> Void) {
        let rule = "type='signal',sender='\(Self.busName)',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(name)'"
        bus.addMatch(rule, installFailed: log) { [weak self] m in
            guard let self else { return }
            guard m.sender == Self.busName else { spoofed(m.sender ?? "?"); return }
            guard let args = m.readAll(), args.count == 3, args[0].string == self.name, let new = args[2].string else { return }
            let next: String? = new.isEmpty ? nil : new
            let first = !self.known
            self.known = true
            if next != self.owner || first {
                self.owner = next
                changed(next, first)
            }
        }
        let sent = bus.callAsync(destination: Self.busName, path: "/org/freedesktop/DBus", interface: Self.busName,
                                 member: "GetNameOwner", args: [.string(name)], timeoutUSec: timeoutUSec) { [weak self] r in
            // Applied in arrival order: the bus answers after any NameOwnerChanged it sent us
            // before, so this answer is at least as new as those.
            guard let self else { return }
            let next: String?
            switch r {
            case .success(let m): next = m.readOne()?.string
            case .failure: next = nil // NameHasNoOwner (or the bus did not answer)
            }
            let first = !self.known
            self.known = true
            if next != self.owner || first {
                self.owner = next
                changed(next, first)
            }
        }
        if let sent { log("GetNameOwner(\(name)): \(sent)"); known = true; changed(nil, true) }
    }
}
