import CSystemd
import Glibc

/// Appends arguments to an sd-bus message being built (C's variadic `sd_bus_message_append` is
/// out of Swift's reach: one basic value or container at a time). Failures are remembered and
/// make the message unsendable (`ok`).
struct WireWriter {
    let raw: OpaquePointer
    private(set) var ok = true

    init(_ raw: OpaquePointer) { self.raw = raw }

    private mutating func check(_ r: Int32) { if r < 0 { ok = false } }

    mutating func string(_ s: String) { check(s.withCString { sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "s")), $0) }) }
    mutating func object(_ s: String) { check(s.withCString { sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "o")), $0) }) }
    mutating func int32(_ v: Int32) { var v = v; check(sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "i")), &v)) }
    mutating func uint32(_ v: UInt32) { var v = v; check(sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "u")), &v)) }
    mutating func int16(_ v: Int16) { var v = v; check(sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "n")), &v)) }
    mutating func double(_ v: Double) { var v = v; check(sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "d")), &v)) }
    mutating func bool(_ b: Bool) { var v: Int32 = b ? 1 : 0; check(sd_bus_message_append_basic(raw, CChar(UInt8(ascii: "b")), &v)) }

    /// A container (`a`, `r`, `e`, `v`) with the given contents signature, filled by `body`.
    mutating func container(_ type: Character, _ contents: String, _ body: (inout WireWriter) -> Void) {
        check(sd_bus_message_open_container(raw, CChar(type.asciiValue!), contents))
        body(&self)
        check(sd_bus_message_close_container(raw))
    }

    /// An object reference `(so)`.
    mutating func reference(_ bus: String, _ path: String) {
        container("r", "so") { $0.string(bus); $0.object(path) }
    }
}

/// Reads basic arguments of a received message, in order.
struct WireReader {
    let raw: OpaquePointer

    func string() -> String? {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return nil }
        return String(cString: p)
    }
    func object() -> String? {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "o")), &p) > 0, let p else { return nil }
        return String(cString: p)
    }
    /// An object reference `(so)`.
    func reference() -> (bus: String, path: String)? {
        guard sd_bus_message_enter_container(raw, CChar(UInt8(ascii: "r")), "so") > 0 else { return nil }
        defer { _ = sd_bus_message_exit_container(raw) }
        guard let b = string(), let p = object() else { return nil }
        return (b, p)
    }
    func int32() -> Int32? {
        var v: Int32 = 0
        return sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "i")), &v) > 0 ? v : nil
    }
    func uint32() -> UInt32? {
        var v: UInt32 = 0
        return sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "u")), &v) > 0 ? v : nil
    }
    /// A variant holding one basic value of type `type` ("b", "s", "i"), read by `read`.
    func variant<T>(_ type: String, _ read: (WireReader) -> T?) -> T? {
        guard sd_bus_message_enter_container(raw, CChar(UInt8(ascii: "v")), type) > 0 else { return nil }
        defer { _ = sd_bus_message_exit_container(raw) }
        return read(self)
    }
    /// The whole message's signature ("iiu"; "" without arguments).
    var signature: String { sd_bus_message_get_signature(raw, 1).map { String(cString: $0) } ?? "" }
    /// The type held by the next argument when it is a variant ("i" for `<int32 5>`), else nil.
    func variantContents() -> String? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        guard sd_bus_message_peek_type(raw, &type, &contents) > 0, type == CChar(UInt8(ascii: "v")), let contents else { return nil }
        return String(cString: contents)
    }
    func bool() -> Bool? {
        var v: Int32 = 0
        return sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "b")), &v) > 0 ? v != 0 : nil
    }
}

/// One sd-bus connection owned by the provider's thread.
final class WireBus {
    let raw: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<Handler>] = []

    final class Handler {
        let body: (OpaquePointer) -> Bool
        init(_ body: @escaping (OpaquePointer) -> Bool) { self.body = body }
    }

    private init(_ raw: OpaquePointer) { self.raw = raw }

    /// The user's session bus (nil address, `DBUS_SESSION_BUS_ADDRESS`), or the bus at `address`.
    static func open(address: String?) -> Result<WireBus, WireError> {
        var bus: OpaquePointer? = nil
        var r: Int32
        if let address {
            r = sd_bus_new(&bus)
            if r >= 0 { r = sd_bus_set_address(bus, address) }
            if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
            // No file descriptors: nothing here takes one, and each a caller attaches would be
            // an open file of the kiosk's (its limit) until the message is answered.
            if r >= 0 { r = sd_bus_negotiate_fds(bus, 0) }
            if r >= 0 { r = sd_bus_start(bus) }
        } else {
            r = sd_bus_open_user(&bus)
        }
        guard r >= 0, let bus else {
            if let bus { _ = sd_bus_unref(bus) }
            return .failure(WireError(name: "connect", message: "cannot connect to \(address ?? "the session bus"): \(String(cString: strerror(-r)))"))
        }
        return .success(WireBus(bus))
    }

    var uniqueName: String {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_get_unique_name(raw, &p) >= 0, let p else { return "" }
        return String(cString: p)
    }

    private func keep(_ handler: Unmanaged<Handler>, _ r: Int32, _ slot: OpaquePointer?, _ what: String) -> WireError? {
        guard r >= 0, let slot else {
            handler.release()
            return WireError(name: "register", message: "\(what): \(String(cString: strerror(-r)))")
        }
        slots.append(slot)
        handlers.append(handler)
        return nil
    }

    /// Method calls to `prefix` and every path below it go to `body`, which returns whether it
    /// answered (otherwise sd-bus replies with an unknown-method error).
    func addObjects(under prefix: String, _ body: @escaping (OpaquePointer) -> Bool) -> WireError? {
        let h = Unmanaged.passRetained(Handler(body))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_fallback(raw, &slot, prefix, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            return Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().body(m) ? 1 : 0
        }, h.toOpaque())
        return keep(h, r, slot, prefix)
    }

    /// Signals matching `rule` go to `body`.
    func addMatch(_ rule: String, _ body: @escaping (OpaquePointer) -> Void) -> WireError? {
        let h = Unmanaged.passRetained(Handler { body($0); return false })
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match(raw, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            _ = Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().body(m)
            return 0
        }, h.toOpaque())
        return keep(h, r, slot, rule)
    }

    /// A method call waiting at most `timeoutUSec`; `read` decodes the reply.
    /// Without `autoStart` a service that is not running is not started by the bus (the
    /// accessibility bus launcher is only used when something else started it).
    func call<T>(_ destination: String, _ path: String, _ interface: String, _ member: String, timeoutUSec: UInt64,
                 autoStart: Bool = true, args: (inout WireWriter) -> Void = { _ in }, read: (WireReader) -> T?) -> Result<T, WireError> {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_method_call(raw, &m, destination, path, interface, member) >= 0, let m else {
            return .failure(WireError(name: "call", message: member))
        }
        defer { _ = sd_bus_message_unref(m) }
        if !autoStart { _ = sd_bus_message_set_auto_start(m, 0) }
        var w = WireWriter(m)
        args(&w)
        guard w.ok else { return .failure(WireError(name: "call", message: "\(member) arguments")) }
        var err = csystemd_error_null()
        var reply: OpaquePointer? = nil
        let r = sd_bus_call(raw, m, timeoutUSec, &err, &reply)
        defer { sd_bus_error_free(&err) }
        guard r >= 0, let reply else {
            return .failure(WireError(name: err.name.map { String(cString: $0) } ?? "errno",
                                      message: err.message.map { String(cString: $0) } ?? String(cString: strerror(-r))))
        }
        defer { _ = sd_bus_message_unref(reply) }
        guard let v = read(WireReader(raw: reply)) else {
            return .failure(WireError(name: "reply", message: "\(member): unexpected reply"))
        }
        return .success(v)
    }

    /// Replies to `call` with what `body` appends.
    @discardableResult
    func reply(to call: OpaquePointer, _ body: (inout WireWriter) -> Void) -> Bool {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_method_return(call, &m) >= 0, let m else { return false }
        defer { _ = sd_bus_message_unref(m) }
        var w = WireWriter(m)
        body(&w)
        guard w.ok else { return false }
        return sd_bus_send(raw, m, nil) >= 0
    }

    /// Replies to `call` with what `body` appends when it returns true; otherwise sends nothing
    /// and returns false.
    func replyIf(to call: OpaquePointer, _ body: (inout WireWriter) -> Bool) -> Bool {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_method_return(call, &m) >= 0, let m else { return false }
        defer { _ = sd_bus_message_unref(m) }
        var w = WireWriter(m)
        guard body(&w), w.ok else { return false }
        return sd_bus_send(raw, m, nil) >= 0
    }

    /// Replies to `call` with the error `name`.
    @discardableResult
    func replyError(to call: OpaquePointer, _ name: String, _ message: String) -> Bool {
        var e = csystemd_error_null()
        defer { sd_bus_error_free(&e) }
        _ = sd_bus_error_set(&e, name, message)
        return sd_bus_reply_method_error(call, &e) >= 0
    }

    /// Emits a signal from `path`.
    @discardableResult
    func signal(_ path: String, _ interface: String, _ member: String, _ body: (inout WireWriter) -> Void) -> Bool {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_signal(raw, &m, path, interface, member) >= 0, let m else { return false }
        defer { _ = sd_bus_message_unref(m) }
        var w = WireWriter(m)
        body(&w)
        guard w.ok else { return false }
        return sd_bus_send(raw, m, nil) >= 0
    }

    /// Dispatches everything queued; an error when the connection is gone.
    func processAll() -> WireError? {
        while true {
            let r = sd_bus_process(raw, nil)
            if r < 0 { return WireError(name: "process", message: String(cString: strerror(-r))) }
            if r == 0 { return nil }
        }
    }

    var fd: Int32 { sd_bus_get_fd(raw) }
    var events: Int16 { Int16(truncatingIfNeeded: max(0, sd_bus_get_events(raw))) }
    var deadlineUSec: UInt64? {
        var t: UInt64 = 0
        guard sd_bus_get_timeout(raw, &t) >= 0, t != UInt64.max else { return nil }
        return t
    }

    /// Flushes what is queued (at most `timeoutUSec`) and closes.
    func close() {
        _ = sd_bus_flush(raw)
        for s in slots { _ = sd_bus_slot_unref(s) }
        slots.removeAll()
        _ = sd_bus_close_unref(raw)
        for h in handlers { h.release() }
        handlers.removeAll()
    }
}

struct WireError: Error, CustomStringConvertible {
    var name: String
    var message: String
    var description: String { message.isEmpty ? name : "\(name): \(message)" }
    var isNoOwner: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}
