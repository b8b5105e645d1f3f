/// The rules of a display that comes and goes, pure (tested without a kernel): which kernel
/// uevents ask for the connectors to be read again, how a burst of them becomes one rescan,
/// and which connector the page goes to.
public enum DisplayRules {
    /// A kernel uevent as the netlink socket delivers it: `ACTION@DEVPATH`, then `KEY=VALUE`
    /// strings, each ended by a NUL. Nil for anything else (udevd's own "libudev" messages,
    /// which start with that magic, and garbage).
    public static func parseUevent(_ bytes: [UInt8]) -> [String: String]? {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: true)
        guard let header = parts.first, header.contains(UInt8(ascii: "@")) else { return nil }
        var properties: [String: String] = [:]
        for part in parts.dropFirst() {
            guard let eq = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: part[part.startIndex..<eq], as: UTF8.self)
            properties[key] = String(decoding: part[(eq + 1)...], as: UTF8.self)
        }
        return properties["ACTION"] == nil ? nil : properties
    }

    /// Whether a uevent asks for the connectors to be read again: a `change` of a drm device
    /// with `HOTPLUG=1` (the kernel's connector event: a display plugged, unplugged, switched
    /// on or off, or a new EDID), or a synthetic one (`echo change > …/uevent`: `SYNTH_UUID`),
    /// which udev tools and tests send. A connector's own `change` names it (`CONNECTOR=`) and
    /// carries `HOTPLUG=1` too.
    public static func asksForRescan(_ event: [String: String]) -> Bool {
        guard event["SUBSYSTEM"] == "drm", event["ACTION"] == "change" else { return false }
        return event["HOTPLUG"] == "1" || event["SYNTH_UUID"] != nil
    }

    /// A burst of hot-plug events (a monitor's power-up sends several, an unplug may bounce)
    /// read as one: the rescan comes `quiet` seconds after the last event of the burst, and at
    /// most `longest` seconds after its first, however long the burst goes on.
    public struct RescanCoalescer: Equatable, Sendable {
        public static let quiet = 0.1
        public static let longest = 0.5
        private var first: Double?
        private var last: Double?
        /// Events taken since the last rescan (for the log).
        public private(set) var pending = 0

        public init() {}

        public mutating func event(at t: Double) {
            if first == nil { first = t }
            last = t
            pending += 1
        }

        /// When the rescan is due; nil with no event waiting.
        public var deadline: Double? {
            guard let first, let last else { return nil }
            return min(last + Self.quiet, first + Self.longest)
        }

        /// True (once) when the rescan is due at `now`: the burst is then forgotten.
        public mutating func take(at now: Double) -> Bool {
            guard let deadline, now >= deadline else { return false }
            first = nil
            last = nil
            pending = 0
            return true
        }
    }

    /// One connector as a scan found it.
    public struct Connector: Equatable, Sendable {
        /// The kernel's name: type and index, e.g. `HDMI-A-1`, `Virtual-1`.
        public var name: String
        /// Connected and with at least one mode.
        public var usable: Bool
        public init(name: String, usable: Bool) {
            self.name = name
            self.usable = usable
        }
    }

    /// The connector to drive (index into `connectors`): the one the config names
    /// (`display.connector`, `wanted`) when it is usable, else the first usable one (the page
    /// moves there when the named one is gone); nil when none is usable.
    public static func pickConnector(_ connectors: [Connector], wanted: String?) -> Int? {
        if let wanted, let i = connectors.firstIndex(where: { $0.name == wanted && $0.usable }) { return i }
        return connectors.firstIndex(where: \.usable)
    }

    /// The kernel's connector type names (`drm_connector_enum_list`), by `DRM_MODE_CONNECTOR_*`.
    static let typeNames = ["Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component",
                            "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB"]

    /// A connector's name as the kernel gives it (sysfs `card0-HDMI-A-1` without the card).
    public static func connectorName(type: UInt32, typeID: UInt32) -> String {
        let t = Int(type) < typeNames.count ? typeNames[Int(type)] : "Unknown"
        return "\(t)-\(typeID)"
    }

    /// What a rescan means for the presenter, from the output it drove (`before`: its
    /// connector and mode size, nil when it had none) and the one chosen now (`after`).
    public enum Change: Equatable, Sendable {
        /// The same connector, the same mode: nothing to do.
        case unchanged
        /// No usable display any more: stop drawing.
        case lost
        /// A display to show on (again, or another one, or another mode): set the mode and
        /// send the whole page; `resized` when the mode's size differs from the one drawn for.
        case found(resized: Bool)
    }

    public struct Output: Equatable, Sendable {
        public var connector: String
        public var width: Int
        public var height: Int
        public var refresh: Int
        public init(connector: String, width: Int, height: Int, refresh: Int) {
            self.connector = connector
            self.width = width
            self.height = height
            self.refresh = refresh
        }
    }

    /// `drawnFor`: the size the buffers and page have now (the last output's, or the
    /// stand-in size while there was none).
    public static func change(before: Output?, after: Output?, drawnFor: (width: Int, height: Int)) -> Change {
        guard let after else { return before == nil ? .unchanged : .lost }
        if let before, before == after { return .unchanged }
        return .found(resized: after.width != drawnFor.width || after.height != drawnFor.height)
    }

    /// The size the page is laid out for while no display is connected (it is laid out again
    /// for the real mode when one comes).
    public static let standInSize = (width: 1024, height: 768)
}
