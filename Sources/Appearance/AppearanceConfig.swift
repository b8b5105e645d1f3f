/// A JSON-like value: the host converts its parsed config's `appearance` object into this, so
/// the rules here stay free of any particular JSON library.
public indirect enum AppearanceConfigValue: Equatable, Sendable {
    case object([String: AppearanceConfigValue])
    case array([AppearanceConfigValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
}

/// A config problem, naming the key path (e.g. `appearance.lightSensor.holdSeconds`).
public struct AppearanceConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var key: String
    public var problem: String
    public init(key: String, problem: String) {
        self.key = key
        self.problem = problem
    }
    public var description: String { "\(key): \(problem)" }
}

/// The `appearance` section of the kiosk config:
/// `{"systemSources": ["portal", "light-sensor", "schedule"],
///   "lightSensor": {"darkBelowLux": 30, "lightAboveLux": 100, "holdSeconds": 10},
///   "schedule": {"darkFrom": "19:30", "lightFrom": "07:00"}
///            or {"latitude": 52.52, "longitude": 13.40, "civilTwilight": false}}`.
/// Every key is optional; a `schedule` source without a `schedule` section is simply absent.
public struct AppearanceConfig: Equatable, Sendable {
    public var systemSources: [AppearanceSourceKind]
    public var lightSensor: LightSensorSettings
    public var schedule: ScheduleRule?

    public init(systemSources: [AppearanceSourceKind] = AppearanceSourceKind.defaultOrder,
                lightSensor: LightSensorSettings = .init(), schedule: ScheduleRule? = nil) {
        self.systemSources = systemSources
        self.lightSensor = lightSensor
        self.schedule = schedule
    }

    /// Decodes the value of the `appearance` key (`base` names it in errors).
    public static func decode(_ value: AppearanceConfigValue, base: String = "appearance") throws(AppearanceConfigError) -> AppearanceConfig {
        let top = try object(value, key: base, allowed: ["systemSources", "lightSensor", "schedule"])
        var config = AppearanceConfig()
        if let v = top["systemSources"] {
            let key = base + ".systemSources"
            guard case .array(let items) = v else { throw AppearanceConfigError(key: key, problem: "expected an array of source names (\(names))") }
            var seen: [AppearanceSourceKind] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item, let kind = AppearanceSourceKind(rawValue: s) else {
                    throw AppearanceConfigError(key: "\(key)[\(i)]", problem: "expected one of \(names)")
                }
                if seen.contains(kind) { throw AppearanceConfigError(key: "\(key)[\(i)]", problem: "\"\(s)\" is listed twice") }
                seen.append(kind)
            }
            config.systemSources = seen
        }
        if let v = top["lightSensor"] {
            let key = base + ".lightSensor"
            let o = try object(v, key: key, allowed: ["darkBelowLux", "lightAboveLux", "holdSeconds"])
            var s = LightSensorSettings()
            if let x = o["darkBelowLux"] { s.darkBelowLux = try number(x, key: key + ".darkBelowLux", in: 0...1_000_000) }
            if let x = o["lightAboveLux"] { s.lightAboveLux = try number(x, key: key + ".lightAboveLux", in: 0...1_000_000) }
            if let x = o["holdSeconds"] { s.holdSeconds = try number(x, key: key + ".holdSeconds", in: 0...86400) }
            guard s.darkBelowLux < s.lightAboveLux else {
                throw AppearanceConfigError(key: key + ".lightAboveLux", problem: "must be greater than darkBelowLux (\(s.darkBelowLux)), got \(s.lightAboveLux)")
            }
            config.lightSensor = s
        }
        if let v = top["schedule"] {
            let key = base + ".schedule"
            let o = try object(v, key: key, allowed: ["darkFrom", "lightFrom", "latitude", "longitude", "civilTwilight"])
            let fixed = o["darkFrom"] != nil || o["lightFrom"] != nil
            let solar = o["latitude"] != nil || o["longitude"] != nil || o["civilTwilight"] != nil
            if fixed && solar {
                throw AppearanceConfigError(key: key, problem: "give either darkFrom/lightFrom or latitude/longitude, not both")
            }
            if fixed {
                let dark = try clock(o["darkFrom"], key: key + ".darkFrom")
                let light = try clock(o["lightFrom"], key: key + ".lightFrom")
                guard dark != light else { throw AppearanceConfigError(key: key + ".lightFrom", problem: "must differ from darkFrom (\(dark))") }
                config.schedule = .fixed(darkFrom: dark, lightFrom: light)
            } else if solar {
                guard let la = o["latitude"] else { throw AppearanceConfigError(key: key + ".latitude", problem: "missing (degrees north, −90…90)") }
                guard let lo = o["longitude"] else { throw AppearanceConfigError(key: key + ".longitude", problem: "missing (degrees east, −180…180)") }
                var civil = false
                if let c = o["civilTwilight"] {
                    guard case .bool(let b) = c else { throw AppearanceConfigError(key: key + ".civilTwilight", problem: "expected true or false") }
                    civil = b
                }
                config.schedule = .solar(latitude: try number(la, key: key + ".latitude", in: -90...90),
                                         longitude: try number(lo, key: key + ".longitude", in: -180...180),
                                         civilTwilight: civil)
            } else {
                throw AppearanceConfigError(key: key, problem: "expected {\"darkFrom\": \"HH:MM\", \"lightFrom\": \"HH:MM\"} or {\"latitude\": …, \"longitude\": …}")
            }
        }
        return config
    }

    private static var names: String { AppearanceSourceKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }

    private static func object(_ v: AppearanceConfigValue, key: String, allowed: Set<String>) throws(AppearanceConfigError) -> [String: AppearanceConfigValue] {
        guard case .object(let o) = v else { throw AppearanceConfigError(key: key, problem: "expected an object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw AppearanceConfigError(key: key + "." + unknown, problem: "unknown key (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        return o
    }

    private static func number(_ v: AppearanceConfigValue, key: String, in range: ClosedRange<Double>) throws(AppearanceConfigError) -> Double {
        guard case .number(let x) = v, x.isFinite, range.contains(x) else {
            throw AppearanceConfigError(key: key, problem: "expected a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return x
    }

    private static func clock(_ v: AppearanceConfigValue?, key: String) throws(AppearanceConfigError) -> WallClock {
        guard let v else { throw AppearanceConfigError(key: key, problem: "missing (a time \"HH:MM\")") }
        guard case .string(let s) = v, let c = WallClock(parsing: s) else {
            throw AppearanceConfigError(key: key, problem: "expected a time \"HH:MM\" (00:00–23:59)")
        }
        return c
    }
}
