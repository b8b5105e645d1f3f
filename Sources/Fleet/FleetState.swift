/// What `PREFIX/ID/state` says (retained JSON, published on every change):
///
/// ```json
/// {"preference":"system","shown":"dark","source":"portal","display":"on","version":"0.9.0",
///  "uptime":12.5,"frames":{"count":3600,"p50Milliseconds":2.1,"p99Milliseconds":6.3,"overBudget":0}}
/// ```
///
/// `source` is what decided the shown appearance: `preference` (a fixed light or dark choice),
/// or for `system` the source that answered (`portal`, `lightSensor`, `schedule`, `none`).
/// `display` is `on` (the page shown), `asleep` (the screen's sleep: `display.sleep`, a
/// `display/set sleep`) or `none` (no display connected, KMS/DRM).
/// `frames` covers the frames presented in the last minute (the times between them; absent
/// before the first).
public struct FleetState: Equatable, Sendable {
    public var preference: FleetAppearance
    public var dark: Bool
    public var source: String
    public var display: String = "on"
    public var version: String
    public var uptime: Double = 0
    public var frames: FrameStatistics? = nil

    public init(preference: FleetAppearance, dark: Bool, source: String, version: String) {
        self.preference = preference
        self.dark = dark
        self.source = source
        self.version = version
    }

    /// True when `other` differs in what a subscriber reacts to (not uptime nor frames).
    public func differsInSubstance(from other: FleetState) -> Bool {
        preference != other.preference || dark != other.dark || source != other.source || display != other.display
    }

    public var json: FleetJSON {
        var members: [(String, FleetJSON)] = [
            ("preference", .string(preference.rawValue)),
            ("shown", .string(dark ? "dark" : "light")),
            ("source", .string(source)),
            ("display", .string(display)),
            ("version", .string(version)),
            ("uptime", .number((uptime * 10).rounded() / 10)),
        ]
        if let f = frames { members.append(("frames", f.json)) }
        return .object(members)
    }
}

/// Frame times of the last minute, summarised.
public struct FrameStatistics: Equatable, Sendable {
    public var count: Int
    public var p50Milliseconds: Double
    public var p99Milliseconds: Double
    /// Frames that came late: more than 1.5 frame budgets (25 ms at 60 Hz) after the one
    /// before, i.e. at least one refresh missed.
    public var overBudget: Int

    public init(count: Int, p50Milliseconds: Double, p99Milliseconds: Double, overBudget: Int) {
        self.count = count
        self.p50Milliseconds = p50Milliseconds
        self.p99Milliseconds = p99Milliseconds
        self.overBudget = overBudget
    }

    /// From the times between presented frames in milliseconds (nil when there are none):
    /// nearest-rank percentiles; late: over 1.5 × `budget`.
    public static func of(_ milliseconds: [Double], budget: Double = 1000.0 / 60) -> FrameStatistics? {
        guard !milliseconds.isEmpty else { return nil }
        let sorted = milliseconds.sorted()
        func rank(_ p: Double) -> Double { sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))] }
        return FrameStatistics(count: sorted.count, p50Milliseconds: rank(0.5), p99Milliseconds: rank(0.99),
                               overBudget: sorted.reduce(0) { $0 + ($1 > 1.5 * budget ? 1 : 0) })
    }

    var json: FleetJSON {
        func r(_ v: Double) -> FleetJSON { .number((v * 100).rounded() / 100) }
        return .object([("count", .int(count)), ("p50Milliseconds", r(p50Milliseconds)),
                        ("p99Milliseconds", r(p99Milliseconds)), ("overBudget", .int(overBudget))])
    }
}
