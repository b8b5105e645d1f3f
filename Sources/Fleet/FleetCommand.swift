/// The appearance a command asks for: the payload `system`, `light` or `dark`.
public enum FleetAppearance: String, CaseIterable, Equatable, Sendable {
    case system, light, dark
}

/// What a display command asks for: the payload `on` (wake the screen, as a touch does) or
/// `sleep` (the screen's sleep now, until a touch or `on`).
public enum FleetDisplay: String, CaseIterable, Equatable, Sendable {
    case on, sleep
}

/// One command: to the appearance or to the display.
public enum FleetOrder: Equatable, Sendable {
    case appearance(FleetAppearance)
    case display(FleetDisplay)

    /// The payload word, as it came.
    public var word: String {
        switch self {
        case .appearance(let a): return a.rawValue
        case .display(let d): return d.rawValue
        }
    }
}

/// Why a message changed nothing (one rate-limited line each, keyed by the case).
public enum PayloadProblem: Error, Equatable, Sendable {
    case tooLarge(bytes: Int)
    case unknownWord(String)
    case notText
    case retained
    case wrongTopic(String)

    /// The rate limiter's key: one cause per kind.
    public var key: String {
        switch self {
        case .tooLarge: return "mqtt payload too large"
        case .unknownWord: return "mqtt payload unknown"
        case .notText: return "mqtt payload not text"
        case .retained: return "mqtt retained command"
        case .wrongTopic: return "mqtt wrong topic"
        }
    }

    /// The line, naming the topic.
    public func line(topic: String) -> String {
        let t = FleetCommand.printable(topic, limit: 120)
        switch self {
        case .tooLarge(let n): return "mqtt: ignored a \(n)-byte payload on \(t) (over \(FleetCommand.maxPayload) bytes); nothing changed"
        case .unknownWord(let w):
            let expected = topic.hasSuffix("/display/set") ? "on or sleep" : "system, light or dark"
            return "mqtt: ignored \"\(w)\" on \(t) (expected \(expected)); nothing changed"
        case .notText: return "mqtt: ignored a payload that is not UTF-8 text on \(t); nothing changed"
        case .retained: return "mqtt: ignored a retained command on \(t) (a command is sent without retain: a retained one would come back at every reconnect); nothing changed"
        case .wrongTopic: return "mqtt: ignored a message on \(t), not a command topic of this kiosk; nothing changed"
        }
    }
}

/// Parsing of one arriving command (pure): topic and payload in, the choice or the problem out.
public enum FleetCommand {
    /// Payloads over this many bytes are refused unread.
    public static let maxPayload = 1024

    /// The order a message carries (`length`: the payload's size; the bytes are only looked at
    /// when it is within `maxPayload`). Surrounding white space is allowed, case is not ignored
    /// (`Dark` is an unknown word: the topics are a protocol, not prose). A retained message is
    /// refused: it would be delivered again at every subscription, undoing later taps.
    public static func parse(topic: String, length: Int, payload: @autoclosure () -> [UInt8], retained: Bool, topics: FleetTopics)
        -> Result<(FleetOrder, FleetTopics.Addressee), PayloadProblem> {
        guard let (to, subject) = topics.route(topic) else { return .failure(.wrongTopic(topic)) }
        if length > maxPayload { return .failure(.tooLarge(bytes: length)) }
        if retained { return .failure(.retained) }
        guard let text = String(validating: payload(), as: UTF8.self) else { return .failure(.notText) }
        let word = text.trimmingWhitespace
        let order: FleetOrder?
        switch subject {
        case .appearance: order = FleetAppearance(rawValue: word).map(FleetOrder.appearance)
        case .display: order = FleetDisplay(rawValue: word).map(FleetOrder.display)
        }
        guard let order else { return .failure(.unknownWord(printable(word, limit: 40))) }
        return .success((order, to))
    }

    /// `s` cut to `limit` characters, control characters as '?', for a log line.
    public static func printable(_ s: String, limit: Int) -> String {
        var out = String(s.prefix(limit).map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7f) ? "?" : $0 })
        if s.count > limit { out += "…" }
        return out
    }
}

extension String {
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
