/// Every topic of one kiosk (docs/fleet.md), and where an arriving message belongs.
///
/// - `PREFIX/ID/appearance/set`, `PREFIX/group/GROUP/appearance/set`: appearance commands, and
///   `PREFIX/ID/display/set`, `PREFIX/group/GROUP/display/set`: display commands (subscribed, QoS 1);
/// - `PREFIX/ID/state`: the retained state JSON;
/// - `PREFIX/ID/availability`: `online` / `offline` (retained; `offline` is the will);
/// - `DISCOVERY/select/ID/appearance/config`, `DISCOVERY/binary_sensor/ID/dark/config`,
///   `DISCOVERY/switch/ID/display/config`: Home Assistant's retained discovery configs.
public struct FleetTopics: Equatable, Sendable {
    public let prefix: String
    public let id: String
    public let groups: [String]
    public let discoveryPrefix: String

    public init(prefix: String, id: String, groups: [String], discoveryPrefix: String) {
        self.prefix = prefix
        self.id = id
        self.groups = groups
        self.discoveryPrefix = discoveryPrefix
    }

    public var command: String { "\(prefix)/\(id)/appearance/set" }
    public func groupCommand(_ group: String) -> String { "\(prefix)/group/\(group)/appearance/set" }
    public var displayCommand: String { "\(prefix)/\(id)/display/set" }
    public func groupDisplayCommand(_ group: String) -> String { "\(prefix)/group/\(group)/display/set" }
    /// What the kiosk subscribes to: its own command topics and its groups'.
    public var subscriptions: [String] {
        [command, displayCommand] + groups.flatMap { [groupCommand($0), groupDisplayCommand($0)] }
    }
    public var state: String { "\(prefix)/\(id)/state" }
    public var availability: String { "\(prefix)/\(id)/availability" }
    public var selectConfig: String { "\(discoveryPrefix)/select/\(id)/appearance/config" }
    public var binarySensorConfig: String { "\(discoveryPrefix)/binary_sensor/\(id)/dark/config" }
    public var switchConfig: String { "\(discoveryPrefix)/switch/\(id)/display/config" }
    public var discoveryConfigs: [String] { [selectConfig, binarySensorConfig, switchConfig] }

    /// Who a command on `topic` was sent to.
    public enum Addressee: Equatable, Sendable {
        case kiosk
        case group(String)
    }

    /// What a command is about.
    public enum Subject: Equatable, Sendable {
        case appearance
        case display
    }

    /// The addressee and subject of a message on `topic`, nil for a topic the kiosk did not
    /// subscribe to.
    public func route(_ topic: String) -> (to: Addressee, subject: Subject)? {
        if topic == command { return (.kiosk, .appearance) }
        if topic == displayCommand { return (.kiosk, .display) }
        for g in groups {
            if topic == groupCommand(g) { return (.group(g), .appearance) }
            if topic == groupDisplayCommand(g) { return (.group(g), .display) }
        }
        return nil
    }
}
