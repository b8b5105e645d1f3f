import Appearance
import DarkModeToggle
import KioskEngine
import KioskSupport

/// Which coordinate space a trace event's x/y are in.
public enum TraceSpace: String, Equatable, Sendable {
    /// Window pixels (the default).
    case window
    /// Points in the Original toggle's own frame, (0,0) at its top-left (`"in": "toggle"`).
    case toggle
    /// Points in the Vivid toggle's frame (`"in": "vivid"`).
    case vivid
    /// Points in the button capsule's frame (`"in": "button"`).
    case button

    /// The page control whose frame the points are in (nil: window pixels).
    public var control: PageControl? {
        switch self {
        case .window: return nil
        case .toggle: return .original
        case .vivid: return .vivid
        case .button: return .button
        }
    }
}

/// One line of an input trace.
public enum TraceEvent: Equatable, Sendable {
    case pointer(id: Int, phase: PointerPhase, x: Double, y: Double, device: PointerDevice, space: TraceSpace, t: Double)
    /// A key by SDL key name, lowercased.
    case key(name: String, t: Double)
    /// The system's appearance changes (what the live sources would report in the kiosk):
    /// `{"t": 1, "type": "system", "scheme": "dark", "source": "portal"}`.
    case system(SystemAppearance, t: Double)

    /// The event's time in seconds.
    public var time: Double {
        switch self {
        case .pointer(_, _, _, _, _, _, let t), .key(_, let t), .system(_, let t): return t
        }
    }

    /// The event as one trace line (compact JSON, no newline) that `TraceReader` reads back
    /// exactly: numbers are written in Swift's shortest round-trip form.
    public var jsonLine: String {
        func num(_ d: Double) -> JSONValue { .number(JSONNumber(d)!) }
        var o = JSONObject()
        switch self {
        case .pointer(let id, let phase, let x, let y, let device, let space, let t):
            o["t"] = num(t)
            o["type"] = .string(phase.rawValue)
            o["id"] = num(Double(id))
            o["x"] = num(x)
            o["y"] = num(y)
            o["device"] = .string(device.rawValue)
            if space != .window { o["in"] = .string(space.rawValue) }
        case .key(let name, let t):
            o["t"] = num(t)
            o["type"] = .string("key")
            o["key"] = .string(name)
        case .system(let a, let t):
            o["t"] = num(t)
            o["type"] = .string("system")
            o["scheme"] = .string(a.scheme.rawValue)
            if let source = a.source { o["source"] = .string(source.rawValue) }
            if let b = a.hints.highContrast { o["highContrast"] = .bool(b) }
            if let b = a.hints.reducedMotion { o["reducedMotion"] = .bool(b) }
        }
        return JSONWriter.compact(.object(o))
    }
}

/// Reads input traces: JSON lines of
/// `{"t": 0.0, "type": "down"|"move"|"up"|"cancel", "id": 0, "x": 10, "y": 20, "device": "touch"|"mouse"}`
/// (optional `"in": "toggle"`, `"vivid"`, `"button"` or `"window"`; `device` defaults to touch) or
/// `{"t": 0.5, "type": "key", "key": "space"}` or a system appearance change
/// `{"t": 1.0, "type": "system", "scheme": "dark"|"light"|"no-preference", "source": "portal"|"light-sensor"|"schedule"}`
/// (`source` required for light and dark, not allowed for no-preference; optional
/// `"highContrast"` and `"reducedMotion"` booleans are the desktop portal's `contrast` and
/// `reduced-motion`, left out when the portal does not publish them).
///
/// Blank lines and lines whose first non-blank character is `#` are skipped. Every other line
/// must be one JSON object with exactly the keys above. Errors name the file, the 1-based line
/// number and the problem: malformed JSON, an unknown `type`, `device` or `in`, a missing,
/// unknown or ill-typed field, a non-integral or negative `id`, a coordinate with magnitude
/// over 1e6, a negative time or one over `maxTime`, or a time earlier than the previous line's
/// (equal times are fine).
///
/// The reader checks form, not meaning: an `up` or `move` without a preceding `down`, or a
/// second `down` for a live id, is passed through; the interaction engine ignores pointer
/// events for ids that have no live sequence.
public enum TraceReader {
    public static let maxCoordinate = 1e6
    /// One day: a replay runs 60 Hz frames up to the last event, so a typo like 1e9 would
    /// otherwise mean years of virtual frames.
    public static let maxTime = 86_400.0
    /// Largest pointer id accepted.
    public static let maxID = Int(Int32.max)
    /// Largest trace file accepted (bytes).
    public static let sizeLimit = 512 * 1024 * 1024

    /// Reads and parses the trace file at `path`. Throws an input error (exit 2).
    public static func read(path: String) throws(KioskError) -> [TraceEvent] {
        switch FileIO.readFile(at: path, limit: sizeLimit) {
        case .bytes(let bytes): return try parse(bytes, file: path)
        case .notFound: throw .input("trace file \(path): no such file")
        case .notRegularFile(let kind): throw .input("trace file \(path): is a \(kind), expected a JSON-lines file")
        case .tooLarge: throw .input("trace file \(path): larger than \(sizeLimit) bytes")
        case .failed(let reason): throw .input("trace file \(path): cannot be read (\(reason))")
        }
    }

    /// Parses trace text; `file` names it in messages.
    public static func parse(_ text: String, file: String) throws(KioskError) -> [TraceEvent] {
        try parse(Array(text.utf8), file: file)
    }

    /// Parses trace bytes (UTF-8); `file` names it in messages.
    public static func parse(_ bytes: [UInt8], file: String) throws(KioskError) -> [TraceEvent] {
        var events: [TraceEvent] = []
        var lastTime = -Double.infinity
        var lineNumber = 0
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            defer { start = end + 1 }
            var line = bytes[start..<end]
            while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line = line.dropLast() }
            while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
            if line.isEmpty || line.first == UInt8(ascii: "#") {
                if end == bytes.count { break }
                continue
            }
            let event: TraceEvent
            do {
                event = try parseLine(Array(line))
            } catch {
                throw .input("trace file \(file), line \(lineNumber): \(error.message)")
            }
            if event.time < lastTime {
                throw .input("trace file \(file), line \(lineNumber): time \(event.time) is earlier than the previous event's \(lastTime) (times must not decrease)")
            }
            lastTime = event.time
            events.append(event)
            if end == bytes.count { break }
        }
        return events
    }

    private struct LineError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// One line: a JSON object whose `type` says which event it is, and `t` when.
    private static func parseLine(_ bytes: [UInt8]) throws(LineError) -> TraceEvent {
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch {
            throw LineError("not valid JSON (column \(error.column): \(error.reason))")
        }
        guard case .object(let o) = value else { throw LineError("expected a JSON object, found \(value.kindDescription)") }
        guard let typeValue = o["type"] else { throw LineError("missing \"type\"") }
        guard let type = typeValue.stringValue else { throw LineError("\"type\" must be a string, found \(typeValue.kindDescription)") }
        let t = try number(o, "t", limit: maxTime, what: "a time in seconds")
        guard t >= 0 else { throw LineError("\"t\" must not be negative, found \(t)") }
        switch type {
        case "key": return try keyEvent(o, t: t)
        case "system": return try systemEvent(o, t: t)
        default:
            guard let phase = PointerPhase(rawValue: type) else {
                throw LineError("unknown type \(JSONWriter.quoted(type)), expected down, move, up, cancel, key or system")
            }
            return try pointerEvent(o, phase: phase, t: t)
        }
    }

    /// `{"type": "key", "key": NAME}`: an SDL key name.
    private static func keyEvent(_ o: JSONObject, t: Double) throws(LineError) -> TraceEvent {
        try onlyKeys(o, ["t", "type", "key"])
        guard let kv = o["key"] else { throw LineError("missing \"key\" (an SDL key name such as \"space\")") }
        guard let name = kv.stringValue, !name.isEmpty else {
            throw LineError("\"key\" must be a non-empty string (an SDL key name), found \(kv.kindDescription)")
        }
        return .key(name: name.lowercased(), t: t)
    }

    /// `{"type": "system", "scheme": …, "source": …, "highContrast": …, "reducedMotion": …}`:
    /// what the appearance sources say; a source with every scheme but "no-preference".
    private static func systemEvent(_ o: JSONObject, t: Double) throws(LineError) -> TraceEvent {
        try onlyKeys(o, ["t", "type", "scheme", "source", "highContrast", "reducedMotion"])
        guard let sv = o["scheme"] else { throw LineError("missing \"scheme\" (\"dark\", \"light\" or \"no-preference\")") }
        guard let ss = sv.stringValue, let scheme = ColorScheme(rawValue: ss) else {
            throw LineError("unknown scheme \(describe(sv)), expected \"dark\", \"light\" or \"no-preference\"")
        }
        let sourceNames = AppearanceSourceKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        var source: AppearanceSourceKind?
        if let v = o["source"] {
            guard let name = v.stringValue, let k = AppearanceSourceKind(rawValue: name) else {
                throw LineError("unknown source \(describe(v)), expected one of \(sourceNames)")
            }
            source = k
        }
        if scheme == .noPreference, source != nil {
            throw LineError("\"source\" must be left out with scheme \"no-preference\" (no source drives it)")
        }
        if scheme != .noPreference, source == nil {
            throw LineError("missing \"source\" (which source says \(ss): \(sourceNames))")
        }
        var hints = AccessibilityHints()
        for key in ["highContrast", "reducedMotion"] {
            guard let v = o[key] else { continue }
            guard let b = v.boolValue else { throw LineError("\"\(key)\" must be true or false, found \(v.kindDescription)") }
            if key == "highContrast" { hints.highContrast = b } else { hints.reducedMotion = b }
        }
        return .system(SystemAppearance(scheme: scheme, source: source, hints: hints), t: t)
    }

    /// `{"type": down|move|up|cancel, "id": N, "x": X, "y": Y, "device": …, "in": …}`.
    private static func pointerEvent(_ o: JSONObject, phase: PointerPhase, t: Double) throws(LineError) -> TraceEvent {
        try onlyKeys(o, ["t", "type", "id", "x", "y", "device", "in"])
        guard let idValue = o["id"] else { throw LineError("missing \"id\" (the pointer id)") }
        guard case .number(let idNumber) = idValue, let id = idNumber.intValue, (0...maxID).contains(id) else {
            throw LineError("\"id\" must be a whole number in 0…\(maxID), found \(describe(idValue))")
        }
        let x = try number(o, "x", limit: maxCoordinate, what: "a coordinate")
        let y = try number(o, "y", limit: maxCoordinate, what: "a coordinate")
        var device = PointerDevice.touch
        if let dv = o["device"] {
            guard let s = dv.stringValue, let d = PointerDevice(rawValue: s) else {
                throw LineError("unknown device \(describe(dv)), expected \"touch\" or \"mouse\"")
            }
            device = d
        }
        var space = TraceSpace.window
        if let sv = o["in"] {
            guard let s = sv.stringValue, let sp = TraceSpace(rawValue: s) else {
                throw LineError("unknown \"in\" value \(describe(sv)), expected \"toggle\", \"vivid\", \"button\" or \"window\"")
            }
            space = sp
        }
        return .pointer(id: id, phase: phase, x: x, y: y, device: device, space: space, t: t)
    }

    private static func number(_ o: JSONObject, _ key: String, limit: Double, what: String) throws(LineError) -> Double {
        guard let v = o[key] else { throw LineError("missing \"\(key)\" (\(what))") }
        guard case .number(let n) = v else { throw LineError("\"\(key)\" must be a number, found \(v.kindDescription)") }
        guard abs(n.value) <= limit else { throw LineError("\"\(key)\" is out of range: \(n.text) (magnitude at most \(JSONNumber(limit)!.text))") }
        return n.value
    }

    private static func onlyKeys(_ o: JSONObject, _ allowed: Set<String>) throws(LineError) {
        if let extra = o.keys.first(where: { !allowed.contains($0) }) {
            throw LineError("unknown field \(JSONWriter.quoted(extra)) (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private static func describe(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return JSONWriter.quoted(s)
        case .number(let n): return n.text
        default: return v.kindDescription
        }
    }
}
