/// Where the broker is: `mqtt://HOST[:PORT]` (plain TCP, port 1883) or `mqtts://HOST[:PORT]`
/// (TLS, port 8883); an IPv6 address in brackets (`mqtts://[2001:db8::1]:8883`). No path, no
/// user information (the password comes from a file, never from the URL).
public struct BrokerAddress: Equatable, Sendable {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// What a broker URL must look like (for error messages).
    public static let expectation = "a broker URL mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"

    /// Parses `url`; the reason when it is not a broker URL.
    public static func parse(_ url: String) -> Result<BrokerAddress, FleetConfigProblem> {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtts://") { tls = true; rest = url.dropFirst(8) }
        else if url.hasPrefix("mqtt://") { tls = false; rest = url.dropFirst(7) }
        else { return .failure(.init("expected \(expectation), found \"\(url)\"")) }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains("@") { return .failure(.init("\"\(url)\": no user name or password in the URL (use username and passwordFile)")) }
        if authority.contains("/") || authority.contains("?") || authority.contains("#") {
            return .failure(.init("\"\(url)\": a broker URL has no path (expected \(expectation))"))
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(.init("\"\(url)\": unclosed '[' in the host")) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(.init("\"\(url)\": expected ':PORT' after ']'")) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:".contains($0)) }) else {
            return .failure(.init("\"\(url)\": no usable host name or address"))
        }
        var port = tls ? 8883 : 1883
        if let p = portText {
            guard let n = Int(p), (1...65535).contains(n) else { return .failure(.init("\"\(url)\": port \"\(p)\" is not 1…65535")) }
            port = n
        }
        return .success(BrokerAddress(host: String(host), port: port, tls: tls))
    }

    /// The URL again (`mqtts://host:8883`).
    public var url: String {
        (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// True for `localhost`, 127.0.0.0/8 and ::1: plain MQTT there never leaves the machine.
    public var isLoopback: Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// True when the host is written as an IPv4 or IPv6 address (not a name to resolve).
    public var isAddress: Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// One problem with the `fleet.mqtt` settings, as a message (the config decoder prefixes the key).
public struct FleetConfigProblem: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
