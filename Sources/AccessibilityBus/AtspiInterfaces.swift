/// What the provider serves on each object, as data: every interface's methods with their
/// argument signatures, and its properties with their types. One table drives the checks a call
/// passes before it is answered (the object, the interface, the method, the signature), the
/// properties (`Get`, `GetAll`, `Set`) and `Introspect`, so what is announced and what is
/// answered cannot drift apart. Signatures from at-spi2-core's `xml/*.xml`. Pure.
struct DBusMethod: Equatable {
    var name: String
    /// The arguments a call must carry, as one D-Bus signature ("iiu"; "" for none).
    var input: String
    var output: String
}

struct DBusProperty: Equatable {
    var name: String
    var type: String
    var writable: Bool = false
}

struct DBusInterface: Equatable {
    var name: String
    var methods: [DBusMethod]
    var properties: [DBusProperty] = []

    func method(_ name: String) -> DBusMethod? { methods.first { $0.name == name } }
    func property(_ name: String) -> DBusProperty? { properties.first { $0.name == name } }
}

/// Why a call is refused before it reaches its method: each is one D-Bus error.
enum DBusRefusal: Equatable, Error {
    case unknownObject(path: String)
    case unknownInterface(String, path: String)
    case unknownMethod(String, interface: String, path: String)
    case invalidArgs(String)
    case unknownProperty(String, interface: String)
    case readOnly(String, interface: String)

    var name: String {
        switch self {
        case .unknownObject: return "org.freedesktop.DBus.Error.UnknownObject"
        case .unknownInterface: return "org.freedesktop.DBus.Error.UnknownInterface"
        case .unknownMethod: return "org.freedesktop.DBus.Error.UnknownMethod"
        case .invalidArgs: return "org.freedesktop.DBus.Error.InvalidArgs"
        case .unknownProperty: return "org.freedesktop.DBus.Error.UnknownProperty"
        case .readOnly: return "org.freedesktop.DBus.Error.PropertyReadOnly"
        }
    }

    var message: String {
        switch self {
        case .unknownObject(let p): return "no object at \(p)"
        case .unknownInterface(let i, let p): return "\(p) has no interface \(i.isEmpty ? "(none given)" : i)"
        case .unknownMethod(let m, let i, let p): return "\(p) has no method \(m) in \(i.isEmpty ? "any of its interfaces" : i)"
        case .invalidArgs(let s): return s
        case .unknownProperty(let n, let i): return "\(i) has no property \(n)"
        case .readOnly(let n, let i): return "\(i).\(n) is read-only"
        }
    }
}

extension Atspi {
    static let introspectable = "org.freedesktop.DBus.Introspectable"

    static let accessibleInterface = DBusInterface(name: accessible, methods: [
        DBusMethod(name: "GetChildAtIndex", input: "i", output: "(so)"),
        DBusMethod(name: "GetChildren", input: "", output: "a(so)"),
        DBusMethod(name: "GetIndexInParent", input: "", output: "i"),
        DBusMethod(name: "GetRelationSet", input: "", output: "a(ua(so))"),
        DBusMethod(name: "GetRole", input: "", output: "u"),
        DBusMethod(name: "GetRoleName", input: "", output: "s"),
        DBusMethod(name: "GetLocalizedRoleName", input: "", output: "s"),
        DBusMethod(name: "GetState", input: "", output: "au"),
        DBusMethod(name: "GetAttributes", input: "", output: "a{ss}"),
        DBusMethod(name: "GetApplication", input: "", output: "(so)"),
        DBusMethod(name: "GetInterfaces", input: "", output: "as"),
    ], properties: [
        DBusProperty(name: "Name", type: "s"), DBusProperty(name: "Description", type: "s"),
        DBusProperty(name: "Parent", type: "(so)"), DBusProperty(name: "ChildCount", type: "i"),
        DBusProperty(name: "Locale", type: "s"), DBusProperty(name: "AccessibleId", type: "s"),
        DBusProperty(name: "HelpText", type: "s"),
    ])

    static let applicationInterface = DBusInterface(name: application, methods: [
        DBusMethod(name: "GetLocale", input: "u", output: "s"),
    ], properties: [
        DBusProperty(name: "ToolkitName", type: "s"), DBusProperty(name: "Version", type: "s"),
        DBusProperty(name: "AtspiVersion", type: "s"), DBusProperty(name: "Id", type: "i", writable: true),
    ])

    static let componentInterface = DBusInterface(name: component, methods: [
        DBusMethod(name: "Contains", input: "iiu", output: "b"),
        DBusMethod(name: "GetAccessibleAtPoint", input: "iiu", output: "(so)"),
        DBusMethod(name: "GetExtents", input: "u", output: "(iiii)"),
        DBusMethod(name: "GetPosition", input: "u", output: "ii"),
        DBusMethod(name: "GetSize", input: "", output: "ii"),
        DBusMethod(name: "GetLayer", input: "", output: "u"),
        DBusMethod(name: "GetMDIZOrder", input: "", output: "n"),
        DBusMethod(name: "GrabFocus", input: "", output: "b"),
        DBusMethod(name: "GetAlpha", input: "", output: "d"),
    ])

    static let actionInterface = DBusInterface(name: action, methods: [
        DBusMethod(name: "GetDescription", input: "i", output: "s"),
        DBusMethod(name: "GetName", input: "i", output: "s"),
        DBusMethod(name: "GetLocalizedName", input: "i", output: "s"),
        DBusMethod(name: "GetKeyBinding", input: "i", output: "s"),
        DBusMethod(name: "GetActions", input: "", output: "a(sss)"),
        DBusMethod(name: "DoAction", input: "i", output: "b"),
    ], properties: [DBusProperty(name: "NActions", type: "i")])

    static let propertiesInterface = DBusInterface(name: properties, methods: [
        DBusMethod(name: "Get", input: "ss", output: "v"),
        DBusMethod(name: "GetAll", input: "s", output: "a{sv}"),
        DBusMethod(name: "Set", input: "ssv", output: ""),
    ])

    static let introspectableInterface = DBusInterface(name: introspectable, methods: [
        DBusMethod(name: "Introspect", input: "", output: "s"),
    ])

    static let cacheInterface = DBusInterface(name: cache, methods: [
        DBusMethod(name: "GetItems", input: "", output: "a((so)(so)(so)iiassusau)"),
    ])

    /// Answered by sd-bus itself (listed in `Introspect`).
    static let peerInterface = DBusInterface(name: "org.freedesktop.DBus.Peer", methods: [
        DBusMethod(name: "Ping", input: "", output: ""),
        DBusMethod(name: "GetMachineId", input: "", output: "s"),
    ])

    /// The standard interfaces every served object also has (sd-bus answers `org.freedesktop.DBus.Peer`).
    static let standardInterfaces = [propertiesInterface, introspectableInterface]

    /// Resolves a call to `member` of `interface` (empty: not given, as D-Bus allows: the first of
    /// the object's interfaces that has it) with arguments of `signature` on an object that serves
    /// `served`: the method, or why it is refused.
    static func resolve(path: String, interface: String, member: String, signature: String,
                        served: [DBusInterface]) -> Result<(DBusInterface, DBusMethod), DBusRefusal> {
        let all = served + standardInterfaces
        let candidates: [DBusInterface]
        if interface.isEmpty {
            candidates = all.filter { $0.method(member) != nil }
        } else {
            guard let i = all.first(where: { $0.name == interface }) else { return .failure(.unknownInterface(interface, path: path)) }
            candidates = [i]
        }
        guard let i = candidates.first, let m = i.method(member) else {
            return .failure(.unknownMethod(member, interface: interface, path: path))
        }
        guard signature == m.input else {
            return .failure(.invalidArgs("\(i.name).\(m.name) takes (\(m.input)), not (\(signature))"))
        }
        return .success((i, m))
    }

    /// The interfaces whose properties `GetAll(interface)` lists on an object serving `served`
    /// ("" asks for all of them, as the D-Bus specification allows).
    static func propertyInterfaces(_ interface: String, path: String, served: [DBusInterface]) -> Result<[DBusInterface], DBusRefusal> {
        if interface.isEmpty { return .success(served) }
        if let i = (served + standardInterfaces).first(where: { $0.name == interface }) { return .success([i]) }
        return .failure(.unknownInterface(interface, path: path))
    }

    /// The property `Get`/`Set` names, or why there is none (`Set`: read-only ones, and a value
    /// whose type is not the property's, are refused too).
    static func property(_ name: String, of interface: String, path: String, served: [DBusInterface],
                         settingType: String? = nil) -> Result<DBusProperty, DBusRefusal> {
        guard let i = (served + standardInterfaces).first(where: { $0.name == interface }) else {
            return .failure(.unknownInterface(interface, path: path))
        }
        guard let p = i.property(name) else { return .failure(.unknownProperty(name, interface: interface)) }
        if let t = settingType {
            guard p.writable else { return .failure(.readOnly(name, interface: interface)) }
            guard t == p.type else { return .failure(.invalidArgs("\(interface).\(name) is of type \(p.type), not \(t)")) }
        }
        return .success(p)
    }

    /// `Introspect`'s XML for an object serving `interfaces` with child nodes `children`.
    static func introspection(interfaces: [DBusInterface], children: [String]) -> String {
        var x = "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        x += " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n"
        for i in interfaces + standardInterfaces + [peerInterface] {
            x += " <interface name=\"\(i.name)\">\n"
            for m in i.methods {
                x += "  <method name=\"\(m.name)\">\n"
                for t in signatureParts(m.input) { x += "   <arg type=\"\(t)\" direction=\"in\"/>\n" }
                for t in signatureParts(m.output) { x += "   <arg type=\"\(t)\" direction=\"out\"/>\n" }
                x += "  </method>\n"
            }
            for p in i.properties {
                x += "  <property name=\"\(p.name)\" type=\"\(p.type)\" access=\"\(p.writable ? "readwrite" : "read")\"/>\n"
            }
            x += " </interface>\n"
        }
        for c in children { x += " <node name=\"\(c)\"/>\n" }
        return x + "</node>\n"
    }

    /// A signature split into its complete types ("ii(so)a{ss}" → "i", "i", "(so)", "a{ss}").
    /// The signatures here are the table's own (well formed).
    static func signatureParts(_ s: String) -> [String] {
        var out: [String] = []
        var current = ""
        var depth = 0
        for c in s {
            current.append(c)
            switch c {
            case "(", "{": depth += 1
            case ")", "}": depth -= 1
            default: break
            }
            if depth == 0 && c != "a" {
                out.append(current)
                current = ""
            }
        }
        return out
    }
}
