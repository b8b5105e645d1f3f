/// One value read from a D-Bus message (`BusMessage.readOne`), enough for the portal, the
/// sensor proxy and the GNOME keys.
public indirect enum BusValue: Equatable, Sendable {
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
    public var unwrapped: BusValue {
        if case .variant(let v) = self { return v.unwrapped }
        return self
    }

    public var uint32: UInt32? {
        switch unwrapped {
        case .uint32(let u): return u
        case .int32(let i) where i >= 0: return UInt32(i)
        default: return nil
        }
    }

    public var double: Double? {
        switch unwrapped {
        case .double(let d): return d
        case .uint32(let u): return Double(u)
        case .int32(let i): return Double(i)
        default: return nil
        }
    }

    public var bool: Bool? { if case .bool(let b) = unwrapped { return b }; return nil }
    public var string: String? { if case .string(let s) = unwrapped { return s }; return nil }

    /// An `a{sv}` as a dictionary.
    public var dictionary: [String: BusValue]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String: BusValue] = [:]
        for item in items {
            guard case .entry(.string(let k), let v) = item else { return nil }
            out[k] = v
        }
        return out
    }
}
