import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// One sd-bus connection, used from one thread only (its owner's poll loop or, for logind,
/// the frame loop). Signal matches, served objects and pending calls are kept here with their
/// handlers and freed by `close`.
///
/// Two ways to ask: `callAsync` sends and returns at once, the reply (or sd-bus's timeout
/// error) arriving through `processAll` on the owner's loop, so a slow peer delays only its
/// own caller; `call` waits up to its timeout. Likewise `addMatch` installs its rule without
/// waiting, `addMatchWaiting` waits for the bus to accept it.
public final class BusConnection {
    public let raw: OpaquePointer
    public let address: BusAddress
    private var nextID = 0
    private var handlers: [Int: (slot: OpaquePointer, handler: Unmanaged<Handler>)] = [:]
    private var calls: [Unmanaged<CallHandler>] = []

    final class Handler {
        let body: (BusMessage) -> Bool
        let installFailed: (String) -> Void
        init(_ body: @escaping (BusMessage) -> Bool, installFailed: @escaping (String) -> Void = { _ in }) {
            self.body = body
            self.installFailed = installFailed
        }
        static func from(_ userdata: UnsafeMutableRawPointer) -> Handler { Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue() }
    }

    final class CallHandler {
        let body: (Result<BusMessage, BusError>) -> Void
        var slot: OpaquePointer?
        var done = false
        init(_ body: @escaping (Result<BusMessage, BusError>) -> Void) { self.body = body }
    }

    /// A match rule's (or served subtree's) handle, for `remove`.
    public struct Match: Equatable { let id: Int }

    private init(raw: OpaquePointer, address: BusAddress) {
        self.raw = raw
        self.address = address
    }

    /// Connects. Without `fileDescriptors` (only for `.address`), peers cannot attach
    /// descriptors to their messages: each would be an open file of ours until answered.
    public static func open(_ address: BusAddress, fileDescriptors: Bool = true) -> Result<BusConnection, BusError> {
        var bus: OpaquePointer? = nil
        var r: Int32
        switch address {
        case .session: r = sd_bus_open_user(&bus)
        case .system: r = sd_bus_open_system(&bus)
        case .address(let a):
            r = sd_bus_new(&bus)
            if r >= 0 { r = sd_bus_set_address(bus, a) }
            if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
            if r >= 0 && !fileDescriptors { r = sd_bus_negotiate_fds(bus, 0) }
            if r >= 0 { r = sd_bus_start(bus) }
        }
        guard r >= 0, let bus else {
            if let bus { _ = sd_bus_unref(bus) }
            return .failure(BusError(name: "connect", "cannot connect to the \(address)", errno: r))
        }
        return .success(BusConnection(raw: bus, address: address))
    }

    public var uniqueName: String? {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_get_unique_name(raw, &p) >= 0, let p else { return nil }
        return String(cString: p)
    }

    private func keep(_ handler: Unmanaged<Handler>, _ r: Int32, _ slot: OpaquePointer?, _ what: String) -> Result<Match, BusError> {
        guard r >= 0, let slot else {
            handler.release()
            return .failure(BusError(name: "register", what, errno: r))
        }
        nextID += 1
        handlers[nextID] = (slot, handler)
        return .success(Match(id: nextID))
    }

    // MARK: Signals and objects

    /// Adds a match rule whose messages go to `body` (called from `processAll`). The AddMatch
    /// call to the bus goes out at once and its reply is not waited for; the bus handles a
    /// connection's messages in order, so a method call sent after this one reaches its peer
    /// only once the rule is in place. `installFailed` gets a line if the bus refuses it.
    @discardableResult
    public func addMatch(_ rule: String, installFailed: @escaping (String) -> Void = { _ in },
                         _ body: @escaping (BusMessage) -> Void) -> Match? {
        let handler = Unmanaged.passRetained(Handler({ body($0); return false }, installFailed: installFailed))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match_async(raw, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            _ = Handler.from(userdata).body(BusMessage(raw: m))
            return 0
        }, { m, userdata, _ in
            guard let m, let userdata, sd_bus_message_is_method_error(m, nil) > 0 else { return 0 }
            Handler.from(userdata).installFailed("AddMatch refused: \(BusConnection.error(of: m).name)")
            return 0
        }, handler.toOpaque())
        switch keep(handler, r, slot, "AddMatch \(rule)") {
        case .success(let match): return match
        case .failure(let e): installFailed(e.message); return nil
        }
    }

    /// Adds a match rule, waiting for the bus to accept it.
    @discardableResult
    public func addMatchWaiting(_ rule: String, _ body: @escaping (BusMessage) -> Void) -> Result<Match, BusError> {
        let handler = Unmanaged.passRetained(Handler { body($0); return false })
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match(raw, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            _ = Handler.from(userdata).body(BusMessage(raw: m))
            return 0
        }, handler.toOpaque())
        return keep(handler, r, slot, rule)
    }

    /// Method calls to `prefix` and every path below it go to `body`, which returns whether it
    /// answered (otherwise sd-bus replies with an unknown-method error).
    public func addObjects(under prefix: String, _ body: @escaping (BusMessage) -> Bool) -> Result<Match, BusError> {
        let handler = Unmanaged.passRetained(Handler(body))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_fallback(raw, &slot, prefix, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            return Handler.from(userdata).body(BusMessage(raw: m)) ? 1 : 0
        }, handler.toOpaque())
        return keep(handler, r, slot, prefix)
    }

    /// Removes a match rule or served subtree (RemoveMatch goes out without waiting).
    public func remove(_ match: Match) {
        guard let m = handlers.removeValue(forKey: match.id) else { return }
        _ = sd_bus_slot_unref(m.slot)
        m.handler.release()
    }

    // MARK: Method calls

    private func methodCall(_ target: BusTarget, autoStart: Bool,
                            args: (inout BusWriter) -> Void) -> Result<OpaquePointer, BusError> {
        var m: OpaquePointer? = nil
        let r = sd_bus_message_new_method_call(raw, &m, target.destination, target.path, target.interface, target.member)
        guard r >= 0, let m else { return .failure(BusError(name: "call", target.member, errno: r)) }
        if !autoStart { _ = sd_bus_message_set_auto_start(m, 0) }
        var w = BusWriter(m)
        args(&w)
        guard w.ok else {
            _ = sd_bus_message_unref(m)
            return .failure(BusError(name: "call", message: "\(target.member): arguments not accepted"))
        }
        return .success(m)
    }

    /// Sends a method call and returns at once; `reply` gets the answer, the peer's error, or
    /// sd-bus's own `org.freedesktop.DBus.Error.Timeout`/`NoReply` after `timeoutUSec`, from
    /// `processAll`. Returns an error only when the call could not be sent (then `reply` is
    /// never called).
    @discardableResult
    public func callAsync(_ target: BusTarget, timeoutUSec: UInt64, args: (inout BusWriter) -> Void = { _ in },
                          reply: @escaping (Result<BusMessage, BusError>) -> Void) -> BusError? {
        let m: OpaquePointer
        switch methodCall(target, autoStart: true, args: args) {
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
            h.body(sd_bus_message_is_method_error(m, nil) > 0 ? .failure(BusConnection.error(of: m)) : .success(BusMessage(raw: m)))
            return 0
        }, box.toOpaque(), timeoutUSec)
        guard r >= 0, let slot else {
            box.release()
            return BusError(name: "call", target.member, errno: r)
        }
        handler.slot = slot
        calls.append(box)
        return nil
    }

    /// A method call waiting at most `timeoutUSec`; `read` decodes the reply (nil: an
    /// "unexpected reply" error). Without `autoStart` a service that is not running is not
    /// started by the bus.
    public func call<T>(_ target: BusTarget, timeoutUSec: UInt64, autoStart: Bool = true,
                        args: (inout BusWriter) -> Void = { _ in }, read: (BusMessage) -> T?) -> Result<T, BusError> {
        let m: OpaquePointer
        switch methodCall(target, autoStart: autoStart, args: args) {
        case .success(let made): m = made
        case .failure(let e): return .failure(e)
        }
        defer { _ = sd_bus_message_unref(m) }
        var err = csystemd_error_null()
        defer { sd_bus_error_free(&err) }
        var reply: OpaquePointer? = nil
        let r = sd_bus_call(raw, m, timeoutUSec, &err, &reply)
        guard r >= 0, let reply else {
            return .failure(BusError(name: err.name.map { String(cString: $0) }, message: err.message.map { String(cString: $0) }, result: r))
        }
        defer { _ = sd_bus_message_unref(reply) }
        guard let v = read(BusMessage(raw: reply)) else {
            return .failure(BusError(name: "reply", message: "\(target.member): unexpected reply"))
        }
        return .success(v)
    }

    /// The error carried by an error reply.
    static func error(of m: OpaquePointer) -> BusError {
        let e = sd_bus_message_get_error(m)
        return BusError(name: e?.pointee.name.map { String(cString: $0) } ?? "error",
                        message: e?.pointee.message.map { String(cString: $0) } ?? "")
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

    // MARK: Replies and signals

    /// Replies to `call` with what `body` appends.
    @discardableResult
    public func reply(to call: BusMessage, _ body: (inout BusWriter) -> Void) -> Bool {
        replyIf(to: call) { body(&$0); return true }
    }

    /// Replies to `call` with what `body` appends when it returns true; otherwise sends nothing
    /// and returns false.
    public func replyIf(to call: BusMessage, _ body: (inout BusWriter) -> Bool) -> Bool {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_method_return(call.raw, &m) >= 0, let m else { return false }
        return send(m, body)
    }

    /// Replies to `call` with the error `name`.
    @discardableResult
    public func replyError(to call: BusMessage, _ name: String, _ message: String) -> Bool {
        var e = csystemd_error_null()
        defer { sd_bus_error_free(&e) }
        _ = sd_bus_error_set(&e, name, message)
        return sd_bus_reply_method_error(call.raw, &e) >= 0
    }

    /// Emits a signal from `path`.
    @discardableResult
    public func signal(_ path: String, _ interface: String, _ member: String, _ body: (inout BusWriter) -> Void) -> Bool {
        var m: OpaquePointer? = nil
        guard sd_bus_message_new_signal(raw, &m, path, interface, member) >= 0, let m else { return false }
        return send(m) { body(&$0); return true }
    }

    /// Fills the new message `m` and sends it (then lets go of it).
    private func send(_ m: OpaquePointer, _ body: (inout BusWriter) -> Bool) -> Bool {
        defer { _ = sd_bus_message_unref(m) }
        var w = BusWriter(m)
        guard body(&w), w.ok else { return false }
        return sd_bus_send(raw, m, nil) >= 0
    }

    // MARK: The owner's loop

    /// Dispatches everything queued; returns an error when the connection is gone.
    public func processAll() -> BusError? {
        defer { sweepCalls() }
        while true {
            let r = sd_bus_process(raw, nil)
            if r < 0 { return BusError(name: "process", "\(address)", errno: r) }
            if r == 0 { return nil }
        }
    }

    public var fd: Int32 { sd_bus_get_fd(raw) }
    public var events: Int16 { Int16(truncatingIfNeeded: max(0, sd_bus_get_events(raw))) }

    /// sd-bus's own deadline (CLOCK_MONOTONIC µs), nil when none: the earliest pending call's
    /// timeout.
    public var deadlineUSec: UInt64? {
        var t: UInt64 = 0
        guard sd_bus_get_timeout(raw, &t) >= 0, t != UInt64.max else { return nil }
        return t
    }

    /// Sends what is queued, drops every match, object and pending call, and closes.
    public func close() {
        _ = sd_bus_flush(raw)
        for (_, h) in handlers { _ = sd_bus_slot_unref(h.slot) }
        for box in calls {
            if let s = box.takeUnretainedValue().slot { _ = sd_bus_slot_unref(s) }
        }
        _ = sd_bus_flush_close_unref(raw)
        for (_, h) in handlers { h.handler.release() }
        handlers.removeAll()
        for box in calls { box.release() }
        calls.removeAll()
    }
}

/// Where a method call goes: destination, object path, interface and member.
public struct BusTarget: Equatable, Sendable {
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String

    public init(_ destination: String, _ path: String, _ interface: String, _ member: String) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }
}
