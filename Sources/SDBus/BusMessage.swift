import CSystemd

/// A borrowed sd-bus message being read: its header, then its arguments in order, either as
/// typed basic values (`string()`, `uint32()`, …) or as `BusValue`s (`readOne`, `readAll`).
public struct BusMessage {
    public let raw: OpaquePointer

    public init(raw: OpaquePointer) { self.raw = raw }

    public var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
    public var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }
    /// The whole message's signature ("iiu"; "" without arguments).
    public var signature: String { sd_bus_message_get_signature(raw, 1).map { String(cString: $0) } ?? "" }
    /// Whether this is the signal `interface.member`.
    public func isSignal(_ interface: String, _ member: String) -> Bool { sd_bus_message_is_signal(raw, interface, member) > 0 }

    // MARK: Typed reads (nil when the next argument is not of that type)

    private func basic<T>(_ type: Character, _ initial: T) -> T? {
        var v = initial
        return sd_bus_message_read_basic(raw, CChar(type.asciiValue!), &v) > 0 ? v : nil
    }
    private func text(_ type: Character) -> String? {
        var p: UnsafePointer<CChar>? = nil
        guard sd_bus_message_read_basic(raw, CChar(type.asciiValue!), &p) > 0, let p else { return nil }
        return String(cString: p)
    }

    public func string() -> String? { text("s") }
    public func object() -> String? { text("o") }
    public func int32() -> Int32? { basic("i", Int32(0)) }
    public func uint32() -> UInt32? { basic("u", UInt32(0)) }
    public func bool() -> Bool? { basic("b", Int32(0)).map { $0 != 0 } }
    /// A Unix descriptor (`h`), owned by the message: duplicate it to keep it.
    public func unixFD() -> Int32? { basic("h", Int32(-1)) }

    /// An object reference `(so)`.
    public func reference() -> (bus: String, path: String)? {
        inside("r", "so") { m in m.string().flatMap { b in m.object().map { (b, $0) } } }
    }
    /// A variant holding one value of type `type` ("b", "s", "i"), read by `read`.
    public func variant<T>(_ type: String, _ read: (BusMessage) -> T?) -> T? { inside("v", type, read) }

    /// The container (`a`, `r`, `e`, `v`) of signature `contents` at the current position,
    /// read by `read`; nil when the next argument is not that container.
    public func inside<T>(_ type: Character, _ contents: String, _ read: (BusMessage) -> T?) -> T? {
        guard sd_bus_message_enter_container(raw, CChar(type.asciiValue!), contents) > 0 else { return nil }
        defer { _ = sd_bus_message_exit_container(raw) }
        return read(self)
    }

    /// Steps over the next argument of type `type` (e.g. "v").
    public func skip(_ type: String) { _ = sd_bus_message_skip(raw, type) }

    /// The type held by the next argument when it is a variant ("i" for `<int32 5>`), else nil.
    public func variantContents() -> String? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        guard sd_bus_message_peek_type(raw, &type, &contents) > 0, type == CChar(UInt8(ascii: "v")), let contents else { return nil }
        return String(cString: contents)
    }

    // MARK: Values of any type

    /// Reads every remaining argument at this level.
    public func readAll() -> [BusValue]? {
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
    public func readOne() -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        guard sd_bus_message_peek_type(raw, &type, &contents) > 0 else { return nil }
        let t = UInt8(bitPattern: type)
        switch Character(Unicode.Scalar(t)) {
        case "s", "o", "g": return text(Character(Unicode.Scalar(t))).map(BusValue.string)
        case "u": return uint32().map(BusValue.uint32)
        case "i": return int32().map(BusValue.int32)
        case "b": return bool().map(BusValue.bool)
        case "d": return basic("d", Double(0)).map(BusValue.double)
        case "v", "a", "e", "r": return readContainer(type, contents)
        default:
            guard sd_bus_message_skip(raw, nil) >= 0 else { return nil }
            return .other(Character(Unicode.Scalar(t)))
        }
    }

    private func readContainer(_ type: CChar, _ contents: UnsafePointer<CChar>?) -> BusValue? {
        guard sd_bus_message_enter_container(raw, type, contents) > 0 else { return nil }
        guard let items = readAll(), sd_bus_message_exit_container(raw) >= 0 else { return nil }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "v"): return items.count == 1 ? .variant(items[0]) : nil
        case UInt8(ascii: "a"): return .array(items)
        case UInt8(ascii: "e"): return items.count == 2 ? .entry(items[0], items[1]) : nil
        default: return .structure(items)
        }
    }
}
