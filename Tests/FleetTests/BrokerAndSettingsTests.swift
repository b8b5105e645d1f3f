import Testing
import Fleet

/// `fleet.mqtt`'s pure checks: the broker URL and the topic levels (issue 43).
@Suite struct BrokerAndSettingsTests {
    @Test func brokerURLs() throws {
        #expect(try BrokerAddress.parse("mqtt://broker.lan").get() == BrokerAddress(host: "broker.lan", port: 1883, tls: false))
        #expect(try BrokerAddress.parse("mqtts://broker.lan").get() == BrokerAddress(host: "broker.lan", port: 8883, tls: true))
        #expect(try BrokerAddress.parse("mqtts://10.0.0.5:18883/").get() == BrokerAddress(host: "10.0.0.5", port: 18883, tls: true))
        #expect(try BrokerAddress.parse("mqtt://[::1]:1884").get() == BrokerAddress(host: "::1", port: 1884, tls: false))
        #expect(try BrokerAddress.parse("mqtt://[::1]:1884").get().url == "mqtt://[::1]:1884")
    }

    @Test(arguments: ["http://x", "mqtt://", "mqtt://x:0", "mqtt://x:65536", "mqtt://x:port", "mqtt://u:p@x",
                      "mqtt://x/topic", "mqtts://[::1", "mqtt://a b"])
    func badBrokerURLsAreRefusedWithAReason(_ url: String) {
        guard case .failure(let p) = BrokerAddress.parse(url) else { Issue.record("\(url) accepted"); return }
        #expect(!p.message.isEmpty && p.message.contains("\""), "\(p.message)")
    }

    @Test func loopbackAndAddresses() throws {
        for h in ["mqtt://localhost", "mqtt://127.0.0.1", "mqtt://127.8.9.10", "mqtt://[::1]"] {
            #expect(try BrokerAddress.parse(h).get().isLoopback, "\(h)")
        }
        for h in ["mqtt://128.0.0.1", "mqtt://broker", "mqtt://127.0.0.1.example", "mqtt://[2001:db8::1]"] {
            #expect(try !BrokerAddress.parse(h).get().isLoopback, "\(h)")
        }
        #expect(try BrokerAddress.parse("mqtt://192.0.2.1").get().isAddress)
        #expect(try !BrokerAddress.parse("mqtt://broker.lan").get().isAddress)
    }

    @Test func settingsProblemsNameTheirKeys() throws {
        var s = MQTTSettings(broker: try BrokerAddress.parse("mqtt://127.0.0.1").get())
        #expect(s.problems.isEmpty)
        s.clientId = "a/b"
        s.groups = ["lobby", "x+y", "lobby"]
        s.topicPrefix = "kiosks//x"
        s.clientCertificate = "/c.pem"
        s.passwordFile = "/p"
        let p = s.problems
        #expect(p.contains { $0.hasPrefix("clientId:") })
        #expect(p.contains { $0.hasPrefix("groups[1]:") })
        #expect(p.contains { $0.hasPrefix("groups: a group is named twice") })
        #expect(p.contains { $0.hasPrefix("topicPrefix:") })
        #expect(p.contains { $0.hasPrefix("clientCertificate and clientKey") })
        #expect(p.contains { $0.hasPrefix("username:") })
        #expect(p.contains { $0.hasPrefix("caFile/clientCertificate:") })
    }
}
