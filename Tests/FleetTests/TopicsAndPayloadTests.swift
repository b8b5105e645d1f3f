import Testing
import Fleet

/// Topic routing and command payloads (issue 43): only the kiosk's own and its groups' command
/// topics, `system`/`light`/`dark` only, nothing over 1 KiB, no retained commands.
@Suite struct TopicsAndPayloadTests {
    let topics = FleetTopics(prefix: "darkmode-kiosk", id: "hall-1", groups: ["lobby", "east"], discoveryPrefix: "homeassistant")

    @Test func topicsOfOneKiosk() {
        #expect(topics.subscriptions == ["darkmode-kiosk/hall-1/appearance/set", "darkmode-kiosk/group/lobby/appearance/set",
                                         "darkmode-kiosk/group/east/appearance/set"])
        #expect(topics.state == "darkmode-kiosk/hall-1/state")
        #expect(topics.availability == "darkmode-kiosk/hall-1/availability")
        #expect(topics.discoveryConfigs == ["homeassistant/select/hall-1/appearance/config",
                                            "homeassistant/binary_sensor/hall-1/dark/config"])
    }

    @Test func routing() {
        #expect(topics.route("darkmode-kiosk/hall-1/appearance/set") == .kiosk)
        #expect(topics.route("darkmode-kiosk/group/east/appearance/set") == .group("east"))
        #expect(topics.route("darkmode-kiosk/group/west/appearance/set") == nil)
        #expect(topics.route("darkmode-kiosk/hall-2/appearance/set") == nil)
        #expect(topics.route("darkmode-kiosk/hall-1/state") == nil)
    }

    func parse(_ topic: String, _ text: String, retained: Bool = false) -> Result<(FleetAppearance, FleetTopics.Addressee), PayloadProblem> {
        let bytes = Array(text.utf8)
        return FleetCommand.parse(topic: topic, length: bytes.count, payload: bytes, retained: retained, topics: topics)
    }

    @Test func goodCommands() throws {
        let own = "darkmode-kiosk/hall-1/appearance/set"
        for word in ["system", "light", "dark"] {
            let (choice, to) = try parse(own, word).get()
            #expect(choice.rawValue == word && to == .kiosk)
        }
        let (c, to) = try parse("darkmode-kiosk/group/lobby/appearance/set", " dark\n").get()
        #expect(c == .dark && to == .group("lobby"))
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
