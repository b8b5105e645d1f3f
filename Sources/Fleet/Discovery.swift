/// Home Assistant's MQTT discovery configs for one kiosk: a `select` (System / Light / Dark)
/// that sends commands and shows the preference, a `binary_sensor` that is on while dark is
/// shown, and a `switch` for the screen (on / asleep); all with the availability topic and the same device (model, software version), so
/// the kiosk appears as one device. Published retained; an empty retained payload on the same
/// topics removes them (discovery switched off).
public enum Discovery {
    public static let model = "DarkModeKiosk"
    public static let manufacturer = "DarkModeKiosk project"

    /// The device block both configs share.
    static func device(id: String, version: String) -> FleetJSON {
        .object([("identifiers", .array([.string("darkmode-kiosk-\(id)")])), ("name", .string("Kiosk \(id)")),
                 ("model", .string(model)), ("manufacturer", .string(manufacturer)), ("sw_version", .string(version))])
    }

    static func availability(_ topics: FleetTopics) -> [(String, FleetJSON)] {
        [("availability_topic", .string(topics.availability)),
         ("payload_available", .string("online")), ("payload_not_available", .string("offline"))]
    }

    /// The select: the command topic takes `system`/`light`/`dark` (its options, lower case,
    /// as the kiosk takes them); the state is the state JSON's `preference`.
    public static func selectConfig(_ topics: FleetTopics, version: String) -> FleetJSON {
        .object([
            ("name", .string("Appearance")),
            ("unique_id", .string("darkmode-kiosk-\(topics.id)-appearance")),
            ("object_id", .string("darkmode_kiosk_\(topics.id)_appearance")),
            ("command_topic", .string(topics.command)),
            ("state_topic", .string(topics.state)),
            ("value_template", .string("{{ value_json.preference }}")),
            ("options", .array(FleetAppearance.allCases.map { .string($0.rawValue) })),
            ("qos", .int(1)),
            ("retain", .bool(false)),
            ("icon", .string("mdi:theme-light-dark")),
        ] + availability(topics) + [("device", device(id: topics.id, version: version))])
    }

    /// The binary sensor: on while dark is shown (the state JSON's `shown`).
    public static func binarySensorConfig(_ topics: FleetTopics, version: String) -> FleetJSON {
        .object([
            ("name", .string("Dark shown")),
            ("unique_id", .string("darkmode-kiosk-\(topics.id)-dark")),
            ("object_id", .string("darkmode_kiosk_\(topics.id)_dark")),
            ("state_topic", .string(topics.state)),
            ("value_template", .string("{{ value_json.shown }}")),
            ("payload_on", .string("dark")),
            ("payload_off", .string("light")),
            ("icon", .string("mdi:weather-night")),
        ] + availability(topics) + [("device", device(id: topics.id, version: version))])
    }

    /// The switch: on while the screen shows the page (the state JSON's `display`: `on`, or
    /// `asleep`); it sends `on` / `sleep` to the display command topic.
    public static func switchConfig(_ topics: FleetTopics, version: String) -> FleetJSON {
        .object([
            ("name", .string("Screen")),
            ("unique_id", .string("darkmode-kiosk-\(topics.id)-display")),
            ("object_id", .string("darkmode_kiosk_\(topics.id)_display")),
            ("command_topic", .string(topics.displayCommand)),
            ("state_topic", .string(topics.state)),
            ("value_template", .string("{{ value_json.display }}")),
            ("payload_on", .string(FleetDisplay.on.rawValue)),
            ("payload_off", .string(FleetDisplay.sleep.rawValue)),
            ("state_on", .string("on")),
            ("state_off", .string("asleep")),
            ("qos", .int(1)),
            ("retain", .bool(false)),
            ("icon", .string("mdi:monitor")),
        ] + availability(topics) + [("device", device(id: topics.id, version: version))])
    }

    /// The retained messages to publish: the configs when `enabled`, else empty payloads that
    /// delete them.
    public static func messages(_ topics: FleetTopics, version: String, enabled: Bool) -> [(topic: String, payload: String)] {
        guard enabled else { return topics.discoveryConfigs.map { ($0, "") } }
        return [(topics.selectConfig, selectConfig(topics, version: version).text),
                (topics.binarySensorConfig, binarySensorConfig(topics, version: version).text),
                (topics.switchConfig, switchConfig(topics, version: version).text)]
    }
}
