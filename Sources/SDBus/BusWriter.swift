import CSystemd

/// Appends arguments to an sd-bus message being built (C's variadic `sd_bus_message_append` is
/// out of Swift's reach: one basic value or container at a time). Failures are remembered and
/// make the message unsendable (`ok`).
public struct BusWriter {
    public let raw: OpaquePointer
    public private(set) var ok = true

    init(_ raw: OpaquePointer) { self.raw = raw }

    private mutating func check(_ r: Int32) { if r < 0 { ok = false } }
    private mutating func basic<T>(_ type: Character, _ value: T) {
        var v = value
        check(sd_bus_message_append_basic(raw, CChar(type.asciiValue!), &v))
    }
    private mutating func text(_ type: Character, _ s: String) {
        check(s.withCString { sd_bus_message_append_basic(raw, CChar(type.asciiValue!), $0) })
    }

    public mutating func string(_ s: String) { text("s", s) }
    public mutating func object(_ s: String) { text("o", s) }
    public mutating func int32(_ v: Int32) { basic("i", v) }
    public mutating func uint32(_ v: UInt32) { basic("u", v) }
    public mutating func int16(_ v: Int16) { basic("n", v) }
    public mutating func double(_ v: Double) { basic("d", v) }
    public mutating func bool(_ b: Bool) { basic("b", Int32(b ? 1 : 0)) }

    /// A container (`a`, `r`, `e`, `v`) with the given contents signature, filled by `body`.
    public mutating func container(_ type: Character, _ contents: String, _ body: (inout BusWriter) -> Void) {
        check(sd_bus_message_open_container(raw, CChar(type.asciiValue!), contents))
        body(&self)
        check(sd_bus_message_close_container(raw))
    }

    /// An object reference `(so)`.
    public mutating func reference(_ bus: String, _ path: String) {
        container("r", "so") { $0.string(bus); $0.object(path) }
    }
}
