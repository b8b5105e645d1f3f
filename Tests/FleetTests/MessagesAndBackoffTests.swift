import Testing
import Fleet

/// The state JSON, Home Assistant's discovery configs, the reconnect backoff (issue 43).
@Suite struct MessagesAndBackoffTests {
    let topics = FleetTopics(prefix: "darkmode-kiosk", id: "k1", groups: [], discoveryPrefix: "homeassistant")

    @Test func stateJSON() {
        var s = FleetState(preference: .system, dark: true, source: "portal", version: "1.2.3")
        s.uptime = 12.345
        #expect(s.json.text == #"{"preference":"system","shown":"dark","source":"portal","display":"on","version":"1.2.3","uptime":12.3}"#)
        s.frames = FrameStatistics.of([16, 17, 16, 40])
        #expect(s.json.text.hasSuffix(#""frames":{"count":4,"p50Milliseconds":16,"p99Milliseconds":40,"overBudget":1}}"#), "\(s.json.text)")
        var t = s
        t.uptime = 99
        t.frames = nil
        #expect(!t.differsInSubstance(from: s))
        t.dark = false
        #expect(t.differsInSubstance(from: s))
    }

    @Test func frameStatistics() throws {
        #expect(FrameStatistics.of([]) == nil)
        let f = try #require(FrameStatistics.of((1...100).map(Double.init)))
        #expect(f.count == 100 && f.p50Milliseconds == 50 && f.p99Milliseconds == 99 && f.overBudget == 100 - 25)
    }

    @Test func jsonEscapes() {
        #expect(FleetJSON.string("a\"b\\c\n\u{1}").text == #""a\"b\\c\n\u0001""#)
        #expect(FleetJSON.object([("x", .array([.int(1), .bool(false), .null]))]).text == #"{"x":[1,false,null]}"#)
    }

    @Test func discoveryConfigsHoldWhatHomeAssistantNeeds() {
        let select = Discovery.selectConfig(topics, version: "1.2.3").text
        for part in [#""command_topic":"darkmode-kiosk/k1/appearance/set""#, #""state_topic":"darkmode-kiosk/k1/state""#,
                     #""options":["system","light","dark"]"#, #""availability_topic":"darkmode-kiosk/k1/availability""#,
                     #""payload_available":"online""#, #""payload_not_available":"offline""#, #""unique_id":"darkmode-kiosk-k1-appearance""#,
                     #""sw_version":"1.2.3""#, #""model":"DarkModeKiosk""#, #""identifiers":["darkmode-kiosk-k1"]"#] {
            #expect(select.contains(part), "\(part) in \(select)")
        }
        let sensor = Discovery.binarySensorConfig(topics, version: "1.2.3").text
        for part in [#""payload_on":"dark""#, #""payload_off":"light""#, #""value_template":"{{ value_json.shown }}""#,
                     #""unique_id":"darkmode-kiosk-k1-dark""#] {
            #expect(sensor.contains(part), "\(part) in \(sensor)")
        }
        let screen = Discovery.switchConfig(topics, version: "1.2.3").text
        for part in [#""command_topic":"darkmode-kiosk/k1/display/set""#, #""payload_on":"on""#, #""payload_off":"sleep""#,
                     #""state_on":"on""#, #""state_off":"asleep""#, #""value_template":"{{ value_json.display }}""#,
                     #""unique_id":"darkmode-kiosk-k1-display""#, #""availability_topic":"darkmode-kiosk/k1/availability""#,
                     #""identifiers":["darkmode-kiosk-k1"]"#] {
            #expect(screen.contains(part), "\(part) in \(screen)")
        }
        let on = Discovery.messages(topics, version: "1", enabled: true)
        #expect(on.map(\.topic) == topics.discoveryConfigs && on.allSatisfy { !$0.payload.isEmpty })
        let off = Discovery.messages(topics, version: "1", enabled: false)
        #expect(off.map(\.topic) == topics.discoveryConfigs && off.allSatisfy { $0.payload.isEmpty })
    }

    @Test func backoffDoublesToAMinuteJitteredAndResets() {
        var b = ReconnectBackoff()
        #expect((0..<8).map { _ in b.nextDelay(random: 0) } == [1, 2, 4, 8, 16, 32, 60, 60])
        b.reset()
        #expect(b.nextDelay(random: 0.999999) > 0.75 && b.nextDelay(random: 1) == 1.5)
        var c = ReconnectBackoff()
        for _ in 0..<100 { _ = c.nextDelay(random: 0.5) }
        #expect(c.nextDelay(random: 0.5) == 60 * 0.875)
    }
}
