import Fleet
import Appearance
import KioskEngine
import Raster
import KioskSupport
/// Walks a parsed config document, writing valid values into `config` and collecting one
/// message per problem ("display.rotate: expected one of 0, 90, 180, 270, found 45").
struct ConfigDecoder {
    let file: String
    var config: KioskConfig
    var errors: [String] = []

    init(file: String, config: KioskConfig) {
        self.file = file
        self.config = config
    }

    mutating func decodeRoot(_ root: JSONValue) {
        guard case .object(let object) = root else {
            errors.append("expected a JSON object at the top level, found \(root.kindDescription)")
            return
        }
        for m in object.members {
            switch m.key {
            case "display": decodeDisplay(m.value)
            case "toggle": decodeToggle(m.value)
            case "theme": decodeTheme(m.value)
            case "reduceMotion": if let b = bool(m.value, "reduceMotion") { config.reduceMotion = b }
            case "preferences": decodePreferences(m.value)
            case "appearance": decodeAppearance(m.value)
            case "colors": decodeColorsPath(m.value)
            case "highContrast": if let b = bool(m.value, "highContrast") { config.highContrast = b }
            case "page": decodePage(m.value)
            case "input": decodeInput(m.value)
            case "fleet": decodeFleet(m.value)
            case "language":
                if m.value == .null { config.language = nil; continue }
                guard let v = m.value.stringValue, !v.isEmpty else { wrongType("language", m.value, "a language code (en, zh-Hans) or null"); continue }
                config.language = v
            default: unknown(m.key)
            }
        }
    }

    private mutating func decodeDisplay(_ value: JSONValue) {
        guard let object = object(value, "display") else { return }
        for m in object.members {
            let path = "display.\(m.key)"
            switch m.key {
            case "windowed": if let b = bool(m.value, path) { config.display.windowed = b }
            case "showFPS": if let b = bool(m.value, path) { config.display.showFPS = b }
            case "connector":
                if m.value == .null { config.display.connector = nil; continue }
                let expected = "a KMS/DRM connector name like \"HDMI-A-1\" (as in /sys/class/drm/card0-HDMI-A-1) or null"
                guard let s = m.value.stringValue else { wrongType(path, m.value, expected); continue }
                guard KioskConfig.Display.isConnectorName(s) else {
                    errors.append("\(path): expected \(expected), found \(JSONWriter.quoted(s))")
                    continue
                }
                config.display.connector = s
            case "size":
                if m.value == .null { config.display.size = nil; continue }
                guard let s = m.value.stringValue else { wrongType(path, m.value, "\(PixelSize.expectation) or null"); continue }
                guard let size = PixelSize(parsing: s) else {
                    errors.append("\(path): expected \(PixelSize.expectation) or null, found \(JSONWriter.quoted(s))")
                    continue
                }
                config.display.size = size
            case "rotate":
                guard case .number(let n) = m.value else { wrongType(path, m.value, Rotation.expectation); continue }
                guard let d = n.intValue, let r = Rotation(degrees: d) else {
                    errors.append("\(path): expected \(Rotation.expectation), found \(n.text)")
                    continue
                }
                config.display.rotate = r
            case "scale":
                if m.value == .null { config.display.scale = nil; continue }
                if let s = number(m.value, path, in: SettingLimits.scale, what: "a scale (pixels per point) or null for automatic") {
                    config.display.scale = s
                }
            case "sleep": decodeSleep(m.value)
            default: unknown(path)
            }
        }
    }

    /// `display.sleep`: null (off) or `{"afterIdleSeconds": N, "schedule": "HH:MM-HH:MM"}`, each
    /// optional and null for none.
    private mutating func decodeSleep(_ value: JSONValue) {
        if value == .null { config.display.sleep = .off; return }
        guard let object = object(value, "display.sleep") else { return }
        for m in object.members {
            let path = "display.sleep.\(m.key)"
            switch m.key {
            case "afterIdleSeconds":
                if m.value == .null { config.display.sleep.afterIdleSeconds = nil; continue }
                if let s = number(m.value, path, in: SettingLimits.sleepAfterIdle, what: "seconds without input before the screen sleeps, or null") {
                    config.display.sleep.afterIdleSeconds = s
                }
            case "schedule":
                if m.value == .null { config.display.sleep.schedule = nil; continue }
                guard let text = m.value.stringValue else { wrongType(path, m.value, SleepWindow.expectation + " or null"); continue }
                guard let window = SleepWindow(parsing: text) else {
                    errors.append("\(path): expected \(SleepWindow.expectation) or null, found \(JSONWriter.quoted(text))")
                    continue
                }
                config.display.sleep.schedule = window
            default: unknown(path)
            }
        }
    }

    private mutating func decodeToggle(_ value: JSONValue) {
        guard let object = object(value, "toggle") else { return }
        for m in object.members {
            switch m.key {
            case "width":
                if let w = number(m.value, "toggle.width", in: SettingLimits.toggleWidth, what: "a width in points") {
                    config.toggle.width = w
                }
            default: unknown("toggle.\(m.key)")
            }
        }
    }

    private mutating func decodeTheme(_ value: JSONValue) {
        guard let object = object(value, "theme") else { return }
        for m in object.members {
            switch m.key {
            case "light": if let c = themeColors(m.value, "theme.light", base: config.theme.light) { config.theme.light = c }
            case "dark": if let c = themeColors(m.value, "theme.dark", base: config.theme.dark) { config.theme.dark = c }
            default: unknown("theme.\(m.key)")
            }
        }
    }

    private mutating func themeColors(_ value: JSONValue, _ path: String, base: KioskConfig.ThemeColors) -> KioskConfig.ThemeColors? {
        guard let object = object(value, path) else { return nil }
        var colors = base
        for m in object.members {
            switch m.key {
            case "page": if let c = color(m.value, "\(path).page") { colors.page = c }
            default: unknown("\(path).\(m.key)")
            }
        }
        return colors
    }

    private mutating func decodePage(_ value: JSONValue) {
        guard let object = object(value, "page") else { return }
        for m in object.members {
            switch m.key {
            case "background": decodeBackground(m.value)
            default: unknown("page.\(m.key)")
            }
        }
    }

    /// `page.background`: null (none) or `{"light": PATH|null, "dark": PATH|null, "fit":
    /// "cover"|"contain"}`; paths resolve against the config file's folder. Whether the files
    /// are readable PNGs is `PageBackgroundFile.load`'s business.
    private mutating func decodeBackground(_ value: JSONValue) {
        if value == .null { config.page.background = .init(); return }
        guard let object = object(value, "page.background") else { return }
        for m in object.members {
            let path = "page.background.\(m.key)"
            switch m.key {
            case "light", "dark":
                var file: String?
                switch m.value {
                case .null: file = nil
                case .string(let s) where !s.isEmpty && !s.contains("\0"):
                    file = FileIO.join(FileIO.directoryName(self.file), s)
                case .string:
                    errors.append("\(path): expected a PNG file path or null, found an empty string"); continue
                default:
                    wrongType(path, m.value, "a PNG file path or null"); continue
                }
                if m.key == "light" { config.page.background.light = file } else { config.page.background.dark = file }
            case "fit":
                let names = PageBackgroundFit.allCases.map(\.rawValue)
                guard let s = m.value.stringValue else { wrongType(path, m.value, "\"cover\" or \"contain\""); continue }
                guard let fit = PageBackgroundFit(rawValue: s) else {
                    errors.append("\(path): expected \"cover\" or \"contain\", found \(JSONWriter.quoted(s))"
                                  + (Suggestion.closest(to: s, among: names).map { " (did you mean \"\($0)\"?)" } ?? ""))
                    continue
                }
                config.page.background.fit = fit
            default: unknown(path)
            }
        }
    }

    private mutating func decodeInput(_ value: JSONValue) {
        guard let object = object(value, "input") else { return }
        for m in object.members {
            let path = "input.\(m.key)"
            switch m.key {
            case "calibration":
                if m.value == .null { config.input.calibration = nil; continue }
                guard let items = m.value.arrayValue else { wrongType(path, m.value, CalibrationMatrix.expectation); continue }
                var values: [Double] = []
                for (i, item) in items.enumerated() {
                    guard case .number(let n) = item else { wrongType("\(path)[\(i)]", item, "a number"); break }
                    values.append(n.value)
                }
                guard values.count == items.count else { continue }
                switch CalibrationMatrix.validated(values) {
                case .success(let matrix): config.input.calibration = matrix
                case .failure(let error): errors.append("\(path): \(error.description)")
                }
            default: unknown(path)
            }
        }
    }

    private mutating func decodePreferences(_ value: JSONValue) {
        switch value {
        case .null: config.preferences = nil
        case .string(let s) where !s.isEmpty && !s.contains("\0"):
            config.preferences = FileIO.join(FileIO.directoryName(file), s)
        case .string:
            errors.append("preferences: expected a file path or null, found an empty string")
        default: wrongType("preferences", value, "a file path or null")
        }
    }

    /// The `appearance` section as a whole (its own rules: `AppearanceConfig.decode`). Keys it
    /// leaves out take their defaults, not `base`'s. `"schedule": null` means no schedule.
    private mutating func decodeAppearance(_ value: JSONValue) {
        guard case .object(var object) = value else { wrongType("appearance", value, "an object"); return }
        if object["schedule"] == .null { object["schedule"] = nil }
        do {
            config.appearance = try AppearanceConfig.decode(Self.appearanceValue(.object(object)))
        } catch {
            errors.append(error.description)
        }
    }

    /// The parsed JSON as the appearance rules' value type.
    static func appearanceValue(_ v: JSONValue) -> AppearanceConfigValue {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n.value)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(appearanceValue))
        case .object(let o):
            var d: [String: AppearanceConfigValue] = [:]
            for m in o.members { d[m.key] = appearanceValue(m.value) }
            return .object(d)
        }
    }

    private mutating func decodeColorsPath(_ value: JSONValue) {
        switch value {
        case .null: config.colors = nil
        case .string(let s) where !s.isEmpty && !s.contains("\0"):
            config.colors = FileIO.join(FileIO.directoryName(file), s)
        default: wrongType("colors", value, "a colour-sets file path (like config/colors.json) or null")
        }
    }

    /// A colour-sets document: `{ "label": { "light": [r,g,b,a], "dark": …, "highContrastLight": …,
    /// "highContrastDark": … }, … }` over `base`; every name and variant optional, unknown ones
    /// are errors naming the key.
    mutating func decodeColorSets(_ root: JSONValue, base: ColorSets) -> ColorSets {
        var sets = base
        guard let object = object(root, "colour sets") else { return sets }
        for m in object.members {
            guard let name = ColorName(rawValue: m.key) else {
                var message = "unknown colour name \"\(m.key)\""
                if let s = Suggestion.closest(to: m.key, among: ColorName.allCases.map(\.rawValue)) { message += " (did you mean \"\(s)\"?)" }
                errors.append(message + "; known: " + ColorName.allCases.map(\.rawValue).joined(separator: ", "))
                continue
            }
            guard let variants = self.object(m.value, m.key) else { continue }
            for v in variants.members {
                let path = "\(m.key).\(v.key)"
                // Only the page's own colour is the bottom layer; labels, tints, hairlines and
                // the focus ring are drawn over it and load with the alpha written.
                guard let c = color(v.value, path, opaque: name == .pageBackground) else {
                    if !["light", "dark", "highContrastLight", "highContrastDark"].contains(v.key) {
                        errors.removeLast()
                        errors.append("unknown key \"\(path)\" (expected light, dark, highContrastLight or highContrastDark)")
                    }
                    continue
                }
                let color = Color(r255: c.r, g255: c.g, b255: c.b, alpha: c.a / 255)
                switch v.key {
                case "light": sets[name].light = color
                case "dark": sets[name].dark = color
                case "highContrastLight": sets[name].highContrastLight = color
                case "highContrastDark": sets[name].highContrastDark = color
                default: errors.append("unknown key \"\(path)\" (expected light, dark, highContrastLight or highContrastDark)")
                }
            }
        }
        return sets
    }

    // MARK: - Typed readers

    /// `[r, g, b]` or `[r, g, b, a]`; with `opaque` (the page's colours) an alpha other than 255
    /// is an error, otherwise it is kept as written (3 items: 255).
    private mutating func color(_ value: JSONValue, _ path: String, opaque: Bool = true) -> ConfigColor? {
        let expected = "[r, g, b] or [r, g, b, a] with each component a number in 0…255"
        guard let items = value.arrayValue else { wrongType(path, value, expected); return nil }
        guard items.count == 3 || items.count == 4 else {
            errors.append("\(path): expected \(expected), found an array of \(items.count) item\(items.count == 1 ? "" : "s")")
            return nil
        }
        var components: [Double] = []
        for (i, item) in items.enumerated() {
            guard case .number(let n) = item else { wrongType("\(path)[\(i)]", item, "a number in 0…255"); return nil }
            guard (0...255).contains(n.value) else {
                errors.append("\(path)[\(i)]: expected a number in 0…255, found \(n.text)")
                return nil
            }
            components.append(n.value)
        }
        // Page colours are opaque: the page is the bottom layer, there is nothing to blend with.
        if opaque, components.count == 4, components[3] != 255 {
            errors.append("\(path)[3]: expected 255 (page colours must be opaque; omit the alpha or use 255), found \(alphaText(items[3]))")
            return nil
        }
        return ConfigColor(r: components[0], g: components[1], b: components[2], a: components.count == 4 ? components[3] : 255)
    }

    private func alphaText(_ v: JSONValue) -> String {
        if case .number(let n) = v { return n.text }
        return "?"
    }

    private mutating func decodeFleet(_ value: JSONValue) {
        guard let object = object(value, "fleet") else { return }
        for m in object.members {
            switch m.key {
            case "mqtt":
                if m.value == .null { config.fleet.mqtt = nil; continue }
                decodeMQTT(m.value)
            default: unknown("fleet.\(m.key)")
            }
        }
    }

    /// `fleet.mqtt`: `broker` is required; relative file paths are taken from the config file's
    /// folder (as the page's background images are).
    private mutating func decodeMQTT(_ value: JSONValue) {
        guard let object = object(value, "fleet.mqtt") else { return }
        guard let brokerValue = object.members.first(where: { $0.key == "broker" })?.value else {
            errors.append("fleet.mqtt.broker: missing (expected \(BrokerAddress.expectation))")
            return
        }
        guard let url = brokerValue.stringValue else { wrongType("fleet.mqtt.broker", brokerValue, BrokerAddress.expectation); return }
        let broker: BrokerAddress
        switch BrokerAddress.parse(url) {
        case .success(let b): broker = b
        case .failure(let p): errors.append("fleet.mqtt.broker: \(p.message)"); return
        }
        var s = MQTTSettings(broker: broker)
        let folder = FileIO.directoryName(file)
        func path(_ v: String) -> String { v.hasPrefix("/") ? v : FileIO.join(folder, v) }
        for m in object.members {
            let key = "fleet.mqtt.\(m.key)"
            switch m.key {
            case "broker": break
            case "clientId": s.clientId = optionalString(m.value, key)
            case "username": s.username = optionalString(m.value, key)
            case "passwordFile": s.passwordFile = optionalString(m.value, key).map(path)
            case "passwordCredential": s.passwordCredential = optionalString(m.value, key)
            case "caFile": s.caFile = optionalString(m.value, key).map(path)
            case "clientCertificate": s.clientCertificate = optionalString(m.value, key).map(path)
            case "clientKey": s.clientKey = optionalString(m.value, key).map(path)
            case "topicPrefix": if let v = optionalString(m.value, key) { s.topicPrefix = v }
            case "discoveryPrefix": if let v = optionalString(m.value, key) { s.discoveryPrefix = v }
            case "discovery": if let b = bool(m.value, key) { s.discovery = b }
            case "groups":
                guard case .array(let items) = m.value else { wrongType(key, m.value, "an array of group names"); continue }
                var groups: [String] = []
                for (i, item) in items.enumerated() {
                    guard let g = item.stringValue else { wrongType("\(key)[\(i)]", item, "a group name"); continue }
                    groups.append(g)
                }
                s.groups = groups
            default: unknown(key)
            }
        }
        let before = errors.count
        errors += s.problems.map { "fleet.mqtt.\($0)" }
        if errors.count == before { config.fleet.mqtt = s }
    }

    /// A non-empty string, or nil for null (an error for anything else).
    private mutating func optionalString(_ value: JSONValue, _ path: String) -> String? {
        if value == .null { return nil }
        guard let s = value.stringValue, !s.isEmpty else { wrongType(path, value, "a non-empty string or null"); return nil }
        return s
    }

    private mutating func object(_ value: JSONValue, _ path: String) -> JSONObject? {
        guard let o = value.objectValue else { wrongType(path, value, "an object"); return nil }
        return o
    }

    private mutating func bool(_ value: JSONValue, _ path: String) -> Bool? {
        guard let b = value.boolValue else { wrongType(path, value, "true or false"); return nil }
        return b
    }

    private mutating func number(_ value: JSONValue, _ path: String, in range: ClosedRange<Double>, what: String) -> Double? {
        guard case .number(let n) = value else { wrongType(path, value, what); return nil }
        guard range.contains(n.value) else {
            errors.append("\(path): expected \(what) in \(format(range.lowerBound))…\(format(range.upperBound)), found \(n.text)")
            return nil
        }
        return n.value
    }

    private func format(_ v: Double) -> String { JSONNumber(v)?.text ?? "\(v)" }

    private mutating func wrongType(_ path: String, _ value: JSONValue, _ expected: String) {
        errors.append("\(path): expected \(expected), found \(value.kindDescription)")
    }

    private mutating func unknown(_ path: String) {
        var message = "unknown key \"\(path)\""
        if let s = Suggestion.closest(to: path, among: KioskConfig.knownKeyPaths + KioskConfig.fleetMQTTKeyPaths) { message += " (did you mean \"\(s)\"?)" }
        errors.append(message)
    }
}

/// "Did you mean …?" by edit distance.
enum Suggestion {
    /// The candidate closest to `word` when at most 2 edits away (or 1 for short words).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = word.count <= 4 ? 1 : 2
        var best: (String, Int)?
        for c in candidates {
            let d = distance(Array(word.lowercased()), Array(c.lowercased()))
            if d <= limit, d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
