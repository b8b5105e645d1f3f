/// The config's `fleet.mqtt` (off when absent): the broker, who the kiosk is, its secrets'
/// files, and its topics (docs/fleet.md).
public struct MQTTSettings: Equatable, Sendable {
    public var broker: BrokerAddress
    /// The MQTT client id and the kiosk's topic level; nil: the machine's host name.
    public var clientId: String?
    public var username: String?
    /// A file holding the password (its first line); never on the command line.
    public var passwordFile: String?
    /// The name of a systemd credential (`LoadCredential=NAME:…`): the password is
    /// `$CREDENTIALS_DIRECTORY/NAME`.
    public var passwordCredential: String?
    /// PEM file of the CA(s) the broker's certificate must chain to (mqtts://); nil: the
    /// system's CA store (/etc/ssl/certs).
    public var caFile: String?
    public var clientCertificate: String?
    public var clientKey: String?
    public var topicPrefix: String = "darkmode-kiosk"
    public var groups: [String] = []
    public var discovery: Bool = true
    public var discoveryPrefix: String = "homeassistant"

    public init(broker: BrokerAddress) { self.broker = broker }

    /// The checks that need no file: topic levels, the certificate and key named together, the
    /// password's one source; one message per problem, each naming its key under `fleet.mqtt`.
    public var problems: [String] {
        var p: [String] = []
        if let id = clientId, let why = TopicLevel.problem(id) { p.append("clientId: \(why)") }
        if let why = TopicPath.problem(topicPrefix) { p.append("topicPrefix: \(why)") }
        if let why = TopicPath.problem(discoveryPrefix) { p.append("discoveryPrefix: \(why)") }
        for (i, g) in groups.enumerated() { if let why = TopicLevel.problem(g) { p.append("groups[\(i)]: \(why)") } }
        if Set(groups).count != groups.count { p.append("groups: a group is named twice") }
        if (clientCertificate == nil) != (clientKey == nil) {
            p.append("clientCertificate and clientKey: name both or neither")
        }
        if passwordFile != nil && passwordCredential != nil {
            p.append("passwordFile and passwordCredential: name one source of the password, not both")
        }
        if (passwordFile != nil || passwordCredential != nil) && username == nil {
            p.append("username: a password is given without a user name")
        }
        if !broker.tls && (caFile != nil || clientCertificate != nil) {
            p.append("caFile/clientCertificate: set for a plain mqtt:// broker (use mqtts:// for TLS)")
        }
        if let c = passwordCredential, c.isEmpty || c.contains("/") || c == "." || c == ".." {
            p.append("passwordCredential: expected a credential name (no '/'), found \"\(c)\"")
        }
        return p
    }
}

/// One level of a topic (a client id, a group): not empty, no '/', '+', '#' or NUL, at most
/// 64 characters.
public enum TopicLevel {
    public static func problem(_ s: String) -> String? {
        if s.isEmpty { return "expected a topic level (not empty)" }
        if s.utf8.count > 64 { return "\"\(s)\" is longer than 64 bytes" }
        if s.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\u{0}" }) {
            return "\"\(s)\" may not hold '/', '+' or '#'"
        }
        return nil
    }
}

/// A topic prefix: levels joined by '/', none empty, no wildcards.
public enum TopicPath {
    public static func problem(_ s: String) -> String? {
        if s.isEmpty { return "expected a topic prefix (not empty)" }
        if s.hasPrefix("$") { return "\"\(s)\" may not begin with '$' (the broker's own topics)" }
        for level in s.split(separator: "/", omittingEmptySubsequences: false) {
            if level.isEmpty { return "\"\(s)\" has an empty level (a leading, trailing or double '/')" }
            if level.contains(where: { $0 == "+" || $0 == "#" || $0 == "\u{0}" }) { return "\"\(s)\" may not hold '+' or '#'" }
        }
        return nil
    }
}
