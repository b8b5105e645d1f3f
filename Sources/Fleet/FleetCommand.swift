/// The appearance a command asks for: the payload `system`, `light` or `dark`.
public enum FleetAppearance: String, CaseIterable, Equatable, Sendable {
    case system, light, dark
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
        case .unknownWord(let w): return "mqtt: ignored \"\(w)\" on \(t) (expected system, light or dark); nothing changed"
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

    /// The choice a message carries (`length`: the payload's size; the bytes are only looked at
    /// when it is within `maxPayload`). Surrounding white space is allowed, case is not ignored
    /// (`Dark` is an unknown word: the topics are a protocol, not prose). A retained message is
    /// refused: it would be delivered again at every subscription, undoing later taps.
    public static func parse(topic: String, length: Int, payload: @autoclosure () -> [UInt8], retained: Bool, topics: FleetTopics)
        -> Result<(FleetAppearance, FleetTopics.Addressee), PayloadProblem> {
        guard let to = topics.route(topic) else { return .failure(.wrongTopic(topic)) }
        if length > maxPayload { return .failure(.tooLarge(bytes: length)) }
        if retained { return .failure(.retained) }
        guard let text = String(validating: payload(), as: UTF8.self) else { return .failure(.notText) }
        let word = text.trimmingWhitespace
        guard let choice = FleetAppearance(rawValue: word) else { return .failure(.unknownWord(printable(word, limit: 40))) }
        return .success((choice, to))
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
