/// The languages the page's labels exist in.
public enum Language: String, CaseIterable, Sendable {
    case english = "en"
    case simplifiedChinese = "zh-Hans"

    /// The BCP 47 tag (for HarfBuzz and fontconfig).
    public var tag: String { rawValue }

    public struct UnknownCode: Error, CustomStringConvertible, Equatable {
        public let code: String
        public var description: String {
            "unknown language \"\(code)\" (expected one of: \(Language.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    /// An explicit code from the command line or config: "en" or "zh-Hans" (case-insensitive;
    /// "zh_CN", "zh-CN", "zh-SG" are accepted as zh-Hans). Anything else is an error.
    public init(code: String) throws {
        switch String(code.lowercased().map { $0 == "_" ? "-" : $0 }) {
        case "en", "en-us", "en-gb": self = .english
        case "zh-hans", "zh-cn", "zh-sg", "zh-hans-cn", "zh-hans-sg": self = .simplifiedChinese
        default: throw UnknownCode(code: code)
        }
    }

    /// The language of a POSIX locale name ("zh_CN.UTF-8", "zh_Hans@x"): Simplified Chinese for
    /// zh_CN, zh_SG and zh_Hans; English for everything else (including C and POSIX).
    public static func fromLocale(_ name: String) -> Language {
        var base = Substring(name)
        if let i = base.firstIndex(where: { $0 == "." || $0 == "@" }) { base = base[..<i] }
        let parts = base.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard parts.first == "zh", parts.count >= 2 else { return .english }
        return ["cn", "sg", "hans"].contains(String(parts[1])) ? .simplifiedChinese : .english
    }

    /// The language to use: an explicit code (`--lang`, a config key) wins; without one the
    /// environment decides. A bad explicit code is an error naming it.
    public static func resolve(explicit code: String?, environment env: [String: String]) throws -> Language {
        if let code { return try Language(code: code) }
        return fromEnvironment(env)
    }

    /// The language from locale environment values, POSIX precedence for messages:
    /// LC_ALL, then LC_MESSAGES, then LANG; empty values count as unset. A pure function: pass
    /// `ProcessInfo.processInfo.environment`.
    public static func fromEnvironment(_ env: [String: String]) -> Language {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = env[key], !v.isEmpty { return fromLocale(v) }
        }
        return .english
    }
}

/// Keys of the page's strings.
public enum StringKey: String, CaseIterable, Sendable {
    /// Headline above the original toggle.
    case original
    /// Headline above the vivid toggle.
    case vivid
    /// The button while the page uses a stored light/dark choice.
    case useSystemSetting
    /// The button while the page follows the system and no source states a scheme.
    case followingSystem
    /// The button while a source drives the mode; `{source}` stands for one of the source
    /// names below.
    case followingSystemVia
    /// The desktop portal's colour scheme, as the button names it.
    case sourceDesktop
    /// The ambient light sensor, as the button names it.
    case sourceLightSensor
    /// The configured schedule (fixed times or sunrise/sunset), as the button names it.
    case sourceSchedule
    /// Accessibility label of the button (its value is on/off).
    case followSystemAppearanceLabel
    /// Accessibility label of the toggles.
    case darkModeLabel
    case on
    case off
}

/// Per-language string tables for the demo page.
public struct StringTable: Sendable {
    public let language: Language
    private let entries: [StringKey: String]

    public init(_ language: Language) {
        self.language = language
        self.entries = Self.tables[language]!
    }

    public subscript(_ key: StringKey) -> String { entries[key]! }

    static let tables: [Language: [StringKey: String]] = [
        .english: [
            .original: "Original",
            .vivid: "Vivid",
            .useSystemSetting: "Use System Setting",
            .followingSystem: "Following System",
            .followingSystemVia: "Following System · {source}",
            .sourceDesktop: "desktop",
            .sourceLightSensor: "light sensor",
            .sourceSchedule: "schedule",
            .followSystemAppearanceLabel: "Follow System Appearance",
            .darkModeLabel: "Dark Mode",
            .on: "On",
            .off: "Off",
        ],
        .simplifiedChinese: [
            .original: "原版",
            .vivid: "鲜明",
            .useSystemSetting: "使用系统设置",
            .followingSystem: "跟随系统",
            .followingSystemVia: "跟随系统·{source}",
            .sourceDesktop: "桌面",
            .sourceLightSensor: "光线传感器",
            .sourceSchedule: "定时",
            .followSystemAppearanceLabel: "跟随系统外观",
            .darkModeLabel: "深色模式",
            .on: "开",
            .off: "关",
        ],
    ]
}
