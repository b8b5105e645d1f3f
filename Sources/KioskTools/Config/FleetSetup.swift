import Fleet
import KioskSupport
#if canImport(Glibc)
import Glibc
#endif

/// `fleet.mqtt` made ready for the client, files included: the client id (the host name when
/// unset), the password read from its file or systemd credential, the TLS files checked
/// (readable regular files holding what their name says). Used by `run` (an error: the fleet is
/// off and one line says why, the page runs) and `run --check` (an error fails the check).
public struct FleetSetup: Sendable {
    public let settings: MQTTSettings
    public let clientId: String
    public let password: String?

    /// The unit's network drop-in the docs show (config/darkmode-kiosk.service.d/mqtt-broker.conf).
    public static let dropIn = "/etc/systemd/system/darkmode-kiosk.service.d/mqtt-broker.conf"
    /// Where the .deb installs that drop-in as an example (debian/darkmode-kiosk.examples).
    public static let dropInExample = "/usr/share/doc/darkmode-kiosk/examples/mqtt-broker.conf"

    public static func make(_ s: MQTTSettings, credentialsDirectory: String?) throws(KioskError) -> FleetSetup {
        var problems: [String] = []
        let id = s.clientId ?? hostName()
        if let why = TopicLevel.problem(id) { problems.append("fleet.mqtt.clientId: the host name \(why); set clientId") }
        var password: String?
        if let file = s.passwordFile {
            password = read(file, key: "fleet.mqtt.passwordFile", &problems)
        } else if let name = s.passwordCredential {
            guard let dir = credentialsDirectory else {
                throw .input("fleet.mqtt.passwordCredential: \"\(name)\" names a systemd credential, but CREDENTIALS_DIRECTORY is not set "
                             + "(LoadCredential=\(name):FILE in the unit)")
            }
            password = read(FileIO.join(dir, name), key: "fleet.mqtt.passwordCredential", &problems)
        }
        if let file = s.caFile { check(file, key: "fleet.mqtt.caFile", holds: "CERTIFICATE", &problems) }
        if let file = s.clientCertificate { check(file, key: "fleet.mqtt.clientCertificate", holds: "CERTIFICATE", &problems) }
        if let file = s.clientKey { check(file, key: "fleet.mqtt.clientKey", holds: "PRIVATE KEY", &problems) }
        if !problems.isEmpty { throw .input(problems.joined(separator: "\n")) }
        return FleetSetup(settings: s, clientId: id, password: password)
    }

    /// The password: the file's first line (without its line end); never logged.
    private static func read(_ path: String, key: String, _ problems: inout [String]) -> String? {
        switch FileIO.readFile(at: path, limit: 4096) {
        case .bytes(let b):
            let first = b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
            var line = Array(first)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard !line.isEmpty, let text = String(validating: line, as: UTF8.self) else {
                problems.append("\(key): \(path) holds no password on its first line")
                return nil
            }
            return text
        case .notFound: problems.append("\(key): \(path): no such file")
        case .notRegularFile(let kind): problems.append("\(key): \(path) is a \(kind), expected a file")
        case .tooLarge: problems.append("\(key): \(path) is larger than 4096 bytes, expected a password")
        case .failed(let reason): problems.append("\(key): \(path) cannot be read (\(reason))")
        }
        return nil
    }

    /// A PEM file that can be read and holds a `-----BEGIN … what-----` block.
    private static func check(_ path: String, key: String, holds what: String, _ problems: inout [String]) {
        switch FileIO.readFile(at: path, limit: 1 << 20) {
        case .bytes(let b):
            let text = String(decoding: b, as: UTF8.self)
            if !text.contains("-----BEGIN ") || !text.contains("\(what)-----") {
                problems.append("\(key): \(path) holds no PEM \(what) (expected a -----BEGIN …\(what)----- block)")
            }
        case .notFound: problems.append("\(key): \(path): no such file")
        case .notRegularFile(let kind): problems.append("\(key): \(path) is a \(kind), expected a PEM file")
        case .tooLarge: problems.append("\(key): \(path) is larger than 1 MiB, expected a PEM file")
        case .failed(let reason): problems.append("\(key): \(path) cannot be read (\(reason))")
        }
    }

    /// The machine's host name (the default client id).
    public static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count - 1) == 0 else { return "kiosk" }
        return String(cString: buf)
    }

    /// `run --check`'s lines: where it connects, as whom, which topics, and what the unit needs.
    public var summary: [String] {
        let s = settings
        let t = FleetTopics(prefix: s.topicPrefix, id: clientId, groups: s.groups, discoveryPrefix: s.discoveryPrefix)
        var lines = [
            "fleet (MQTT): \(s.broker.url) as \"\(clientId)\""
                + (s.username.map { ", user \($0), password from \(s.passwordFile ?? "credential " + (s.passwordCredential ?? "?"))" } ?? ", no user name")
                + (s.broker.tls ? ", TLS verifying the broker's name against \(s.caFile ?? "the system's CA store")"
                   + (s.clientCertificate.map { ", client certificate \($0)" } ?? "") : ", plain TCP (no TLS)"),
            "fleet commands: \(t.subscriptions.joined(separator: ", ")); state \(t.state); availability \(t.availability)",
            "fleet Home Assistant discovery: " + (s.discovery ? "on (\(t.discoveryConfigs.joined(separator: ", ")))"
                                                 : "off (its configs are deleted at connection)"),
            "fleet network: the unit's IPAddressDeny=any and RestrictAddressFamilies= block the broker; allow only it with the drop-in "
                + "\(Self.dropIn) (docs/fleet.md; the .deb installs an example: copy \(Self.dropInExample)): "
                + "RestrictAddressFamilies=AF_INET AF_INET6 and IPAddressAllow="
                + (s.broker.isAddress ? s.broker.host : "<the address of \(s.broker.host)>"),
        ]
        if !s.broker.tls && !s.broker.isLoopback {
            lines.append("fleet warning: plain mqtt:// to \(s.broker.host), which is not this machine: commands and the password cross the network unencrypted; use mqtts://")
        }
        return lines
    }
}
