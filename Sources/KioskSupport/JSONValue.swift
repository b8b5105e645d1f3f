/// A JSON document as parsed by `StrictJSONParser`: objects keep their member order and
/// numbers keep their source text, so a file can be rewritten without disturbing keys this
/// program does not know (the preferences file relies on that).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short noun for messages: "a string", "an array", …
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var doubleValue: Double? { if case .number(let n) = self { return n.value } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
}

/// A JSON number: its text exactly as written (RFC 8259 grammar, always finite) and its value.
public struct JSONNumber: Equatable, Sendable {
    public let text: String
    public let value: Double

    /// Parses strict JSON number text; nil for anything else (including NaN, Infinity and
    /// numbers too large for a Double).
    public init?(text: String) {
        guard JSONNumber.isValidSyntax(text), let v = Double(text), v.isFinite else { return nil }
        self.text = text
        self.value = v
    }

    /// The shortest text that reads back as exactly `value`; nil for NaN or infinities.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        var t = "\(value)"
        if t.hasSuffix(".0") { t.removeLast(2) }  // 1.0 → 1, keeps JSON tidy
        self.text = t
        self.value = value
    }

    /// The number when it is an integer that fits `Int`, else nil.
    public var intValue: Int? {
        guard value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    static func isValidSyntax(_ text: String) -> Bool {
        var it = Array(text.utf8)[...]
        func digit(_ c: UInt8?) -> Bool { c.map { $0 >= 48 && $0 <= 57 } ?? false }
        if it.first == UInt8(ascii: "-") { it = it.dropFirst() }
        guard let first = it.first, digit(first) else { return false }
        if first == UInt8(ascii: "0") { it = it.dropFirst() } else { while digit(it.first) { it = it.dropFirst() } }
        if it.first == UInt8(ascii: ".") {
            it = it.dropFirst()
            guard digit(it.first) else { return false }
            while digit(it.first) { it = it.dropFirst() }
        }
        if it.first == UInt8(ascii: "e") || it.first == UInt8(ascii: "E") {
            it = it.dropFirst()
            if it.first == UInt8(ascii: "+") || it.first == UInt8(ascii: "-") { it = it.dropFirst() }
            guard digit(it.first) else { return false }
            while digit(it.first) { it = it.dropFirst() }
        }
        return it.isEmpty
    }
}

/// One `"key": value` pair of an object.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object with its members in source order. Keys are unique (the parser rejects
/// duplicates).
public struct JSONObject: Equatable, Sendable {
    public private(set) var members: [JSONMember]

    public init(_ members: [JSONMember] = []) {
        self.members = members
    }

    public var keys: [String] { members.map(\.key) }

    /// The value for `key`; setting replaces it in place (keeping its position) or appends it;
    /// setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let i?, let v?): members[i].value = v
            case (let i?, nil): members.remove(at: i)
            case (nil, let v?): members.append(JSONMember(key: key, value: v))
            case (nil, nil): break
            }
        }
    }
}
