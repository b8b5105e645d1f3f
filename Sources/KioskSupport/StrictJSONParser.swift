/// Where and why a JSON text is not valid.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line and column (column counts bytes) of the offending place.
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Stricter than `JSONSerialization` on purpose: `NaN`, `Infinity`, comments, trailing
/// commas, duplicate object keys, invalid UTF-8, unescaped control characters and numbers
/// beyond the range of `Double` are all errors with a line and column. Nesting deeper than
/// `maxDepth` is an error rather than a stack overflow. A leading UTF-8 byte-order mark is
/// skipped.
public struct StrictJSONParser {
    public static let maxDepth = 128

    private let bytes: [UInt8]
    private var index: Int
    private var line = 1
    private var lineStart = 0

    /// Parses one complete JSON document (surrounding whitespace allowed).
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var p = StrictJSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.index = 3; p.lineStart = 3 }
        p.skipWhitespace()
        guard p.index < bytes.count else { throw p.error("no JSON value (the text is empty)") }
        let value = try p.parseValue(depth: 0)
        p.skipWhitespace()
        guard p.index == bytes.count else { throw p.error("unexpected \(p.describeCurrent()) after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
    }

    private func error(_ reason: String, at position: Int? = nil) -> JSONSyntaxError {
        let pos = position ?? index
        return JSONSyntaxError(line: line, column: pos - lineStart + 1, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func describeCurrent() -> String {
        guard let c = current else { return "end of text" }
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x\(String(c, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        while let c = current {
            switch c {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A: index += 1; line += 1; lineStart = index
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth) levels") }
        guard let c = current else { throw error("unexpected end of text, expected a value") }
        switch c {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            // Say what was found: only the words NaN and Infinity get the number hint.
            var end = index
            while end < bytes.count, isIdentifierByte(bytes[end]), end - index < 24 { end += 1 }
            let word = String(decoding: bytes[index..<end], as: UTF8.self)
            if word == "NaN" || word == "Infinity" { throw error("NaN and Infinity are not JSON numbers") }
            throw error("unexpected '\(word)', expected a value")
        default:
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        let start = index
        for b in word.utf8 {
            guard current == b else { throw error("invalid literal, expected '\(word)'", at: start) }
            index += 1
        }
        if let c = current, isIdentifierByte(c) { throw error("invalid literal, expected '\(word)'", at: start) }
    }

    private func isIdentifierByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        if current == UInt8(ascii: "-") {
            index += 1
            if current == UInt8(ascii: "I") { throw error("NaN and Infinity are not JSON numbers", at: start) }
        }
        while let c = current, (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D {
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard JSONNumber.isValidSyntax(text) else { throw error("malformed number '\(text)'", at: start) }
        guard let n = JSONNumber(text: text) else { throw error("number '\(text)' is out of range", at: start) }
        return n
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1  // opening quote
        var out: [UInt8] = []
        var segmentStart = index
        while true {
            guard let c = current else { throw error("unterminated string", at: start) }
            if c == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[segmentStart..<index])
                index += 1
                break
            }
            if c < 0x20 { throw error("control character 0x\(String(c, radix: 16, uppercase: true)) inside a string (escape it)") }
            if c == UInt8(ascii: "\\") {
                out.append(contentsOf: bytes[segmentStart..<index])
                try parseEscape(into: &out)
                segmentStart = index
                continue
            }
            index += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: start)
        }
        return s
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeStart = index
        index += 1
        guard let e = current else { throw error("unterminated escape") }
        index += 1
        switch e {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate escape", at: escapeStart)
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate escape", at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate escape", at: escapeStart)
            }
            guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape", at: escapeStart) }
            out.append(contentsOf: Array(String(Character(u)).utf8))
        default:
            throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: escapeStart)
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let c = current else { throw error("unterminated \\u escape") }
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            if try endOfElement(closing: "]", in: "array") { return .array(items) }
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var object = JSONObject()
        var seen = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()) in object, expected a key in double quotes")
            }
            let keyStart = index
            let key = try parseString()
            guard seen.insert(key).inserted else { throw error("duplicate key \"\(key)\"", at: keyStart) }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()) after key \"\(key)\", expected ':'") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue(depth: depth + 1)
            if try endOfElement(closing: "}", in: "object") { return .object(object) }
        }
    }

    /// After an element of an array or object: true at the closing bracket (consumed), false
    /// after a comma that another element follows.
    private mutating func endOfElement(closing: Unicode.Scalar, in container: String) throws(JSONSyntaxError) -> Bool {
        let close = UInt8(ascii: closing)
        skipWhitespace()
        guard let c = current, c == UInt8(ascii: ",") || c == close else {
            throw error("unexpected \(describeCurrent()) in \(container), expected ',' or '\(closing)'")
        }
        index += 1
        if c == close { return true }
        skipWhitespace()
        if current == close { throw error("trailing comma in \(container)") }
        return false
    }
}
