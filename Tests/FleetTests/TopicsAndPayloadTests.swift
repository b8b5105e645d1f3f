import Testing
import Fleet

/// Topic routing and command payloads (issue 43): only the kiosk's own and its groups' command
/// topics, `system`/`light`/`dark` only, nothing over 1 KiB, no retained commands.
@Suite struct TopicsAndPayloadTests {
    let topics = FleetTopics(prefix: "darkmode-kiosk", id: "hall-1", groups: ["lobby", "east"], discoveryPrefix: "homeassistant")

    @Test func topicsOfOneKiosk() {
        #expect(topics.subscriptions == ["darkmode-kiosk/hall-1/appearance/set", "darkmode-kiosk/hall-1/display/set",
                                         "darkmode-kiosk/group/lobby/appearance/set", "darkmode-kiosk/group/lobby/display/set",
                                         "darkmode-kiosk/group/east/appearance/set", "darkmode-kiosk/group/east/display/set"])
        #expect(topics.state == "darkmode-kiosk/hall-1/state")
        #expect(topics.availability == "darkmode-kiosk/hall-1/availability")
        #expect(topics.discoveryConfigs == ["homeassistant/select/hall-1/appearance/config",
                                            "homeassistant/binary_sensor/hall-1/dark/config",
                                            "homeassistant/switch/hall-1/display/config"])
    }

    @Test func routing() {
        func route(_ t: String) -> String? { topics.route(t).map { "\($0.to) \($0.subject)" } }
        #expect(route("darkmode-kiosk/hall-1/appearance/set") == "kiosk appearance")
        #expect(route("darkmode-kiosk/hall-1/display/set") == "kiosk display")
        #expect(route("darkmode-kiosk/group/east/appearance/set") == "group(\"east\") appearance")
        #expect(route("darkmode-kiosk/group/lobby/display/set") == "group(\"lobby\") display")
        #expect(route("darkmode-kiosk/group/west/appearance/set") == nil)
        #expect(route("darkmode-kiosk/group/west/display/set") == nil)
        #expect(route("darkmode-kiosk/hall-2/appearance/set") == nil)
        #expect(route("darkmode-kiosk/hall-2/display/set") == nil)
        #expect(route("darkmode-kiosk/hall-1/state") == nil)
    }

    @Test func displayCommands() throws {
        let own = "darkmode-kiosk/hall-1/display/set"
        #expect(try parse(own, "sleep").get() == (.display(.sleep), .kiosk))
        #expect(try parse("darkmode-kiosk/group/east/display/set", "on\n").get() == (.display(.on), .group("east")))
        // Each topic takes its own words only.
        #expect(throws: PayloadProblem.unknownWord("dark")) { try parse(own, "dark").get() }
        #expect(throws: PayloadProblem.unknownWord("sleep")) { try parse("darkmode-kiosk/hall-1/appearance/set", "sleep").get() }
        #expect(PayloadProblem.unknownWord("off").line(topic: own).contains("expected on or sleep"))
        #expect(throws: PayloadProblem.retained) { try parse(own, "sleep", retained: true).get() }
    }

    func parse(_ topic: String, _ text: String, retained: Bool = false) -> Result<(FleetOrder, FleetTopics.Addressee), PayloadProblem> {
        let bytes = Array(text.utf8)
        return FleetCommand.parse(topic: topic, length: bytes.count, payload: bytes, retained: retained, topics: topics)
    }

    @Test func goodCommands() throws {
        let own = "darkmode-kiosk/hall-1/appearance/set"
        for word in ["system", "light", "dark"] {
            let (order, to) = try parse(own, word).get()
            #expect(order == .appearance(FleetAppearance(rawValue: word)!) && order.word == word && to == .kiosk)
        }
        let (c, to) = try parse("darkmode-kiosk/group/lobby/appearance/set", " dark\n").get()
        #expect(c == .appearance(.dark) && to == .group("lobby"))
    }

    @Test func badCommandsChangeNothingAndSayWhy() {
        let own = "darkmode-kiosk/hall-1/appearance/set"
        #expect(throws: PayloadProblem.unknownWord("Dark")) { try parse(own, "Dark").get() }
        #expect(throws: PayloadProblem.unknownWord("")) { try parse(own, "").get() }
        #expect(throws: PayloadProblem.tooLarge(bytes: 1025)) { try parse(own, String(repeating: "d", count: 1025)).get() }
        #expect(throws: PayloadProblem.retained) { try parse(own, "dark", retained: true).get() }
        #expect(throws: PayloadProblem.wrongTopic("x/y")) { try parse("x/y", "dark").get() }
        #expect(throws: PayloadProblem.notText) {
            try FleetCommand.parse(topic: own, length: 2, payload: [0xff, 0xfe], retained: false, topics: topics).get()
        }
        // An oversized payload is refused by its length, unread.
        var read = false
        _ = FleetCommand.parse(topic: own, length: 5000, payload: { read = true; return [] }(), retained: false, topics: topics)
        #expect(!read)
        #expect(PayloadProblem.unknownWord("x").line(topic: own).contains(own))
        #expect(FleetCommand.printable("a\u{1}b", limit: 10) == "a?b")
        #expect(FleetCommand.printable(String(repeating: "a", count: 50), limit: 40).count == 41)
    }
}
