/// Every topic of one kiosk (docs/fleet.md), and where an arriving message belongs.
///
/// - `PREFIX/ID/appearance/set`, `PREFIX/group/GROUP/appearance/set`: commands (subscribed, QoS 1);
/// - `PREFIX/ID/state`: the retained state JSON;
/// - `PREFIX/ID/availability`: `online` / `offline` (retained; `offline` is the will);
/// - `DISCOVERY/select/ID/appearance/config`, `DISCOVERY/binary_sensor/ID/dark/config`: Home
///   Assistant's retained discovery configs.
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
    /// What the kiosk subscribes to: its own command topic and its groups'.
    public var subscriptions: [String] { [command] + groups.map(groupCommand) }
    public var state: String { "\(prefix)/\(id)/state" }
    public var availability: String { "\(prefix)/\(id)/availability" }
    public var selectConfig: String { "\(discoveryPrefix)/select/\(id)/appearance/config" }
    public var binarySensorConfig: String { "\(discoveryPrefix)/binary_sensor/\(id)/dark/config" }
    public var discoveryConfigs: [String] { [selectConfig, binarySensorConfig] }

    /// Who a command on `topic` was sent to.
    public enum Addressee: Equatable, Sendable {
        case kiosk
        case group(String)
    }

    /// The addressee of a message on `topic`, nil for a topic the kiosk did not subscribe to.
    public func route(_ topic: String) -> Addressee? {
        if topic == command { return .kiosk }
        for g in groups where topic == groupCommand(g) { return .group(g) }
        return nil
    }
}
