import Appearance
import KioskEngine
import KioskSupport
/// The contents of the preferences file, pure and independent of the file system.
///
/// The file is a JSON object; the key `appearance` holds the person's preference as one of the
/// strings `"system"`, `"light"` or `"dark"` (the follow-system design of the demo app). A
/// missing key or a string this version does not know means `system`. Any other key is kept as
/// written — order, number text and all — so a later version's settings survive a rewrite.
///
/// Older versions stored `{"isDarkMode": true|false}` (SwiftUI's `@AppStorage("isDarkMode")`).
/// `decode` migrates such a file once: `true` → `"dark"`, `false` → `"light"`, written in the
/// legacy key's place, and the legacy key is removed (an `appearance` already present wins).
public struct PreferencesDocument: Equatable, Sendable {
    public static let appearanceKey = "appearance"
    public static let legacyIsDarkModeKey = "isDarkMode"

    /// Every key of the file, in order.
    public private(set) var object: JSONObject
    /// True when `decode` found the legacy key and rewrote it (the file should be saved once).
    public private(set) var migratedLegacy = false

    public init(object: JSONObject = JSONObject()) {
        self.object = object
    }

    /// The saved preference; `.system` when the file holds none or a value this version does
    /// not know.
    public var appearance: AppearancePreference {
        get { storedAppearance ?? .system }
        set { object[Self.appearanceKey] = .string(newValue.rawValue) }
    }

    /// The preference exactly as stored, or nil when the key is missing or its string unknown.
    public var storedAppearance: AppearancePreference? {
        object[Self.appearanceKey]?.stringValue.flatMap(AppearancePreference.init(rawValue:))
    }

    /// The file's bytes: indented JSON ending in a newline.
    public var encoded: [UInt8] { Array(JSONWriter.pretty(.object(object)).utf8) }

    /// Why bytes are not a usable preferences file (a phrase that follows the file name).
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case invalidJSON(JSONSyntaxError)
        case notAnObject(found: String)
        case wrongType(key: String, found: String, expected: String)

        public var description: String {
            switch self {
            case .empty: return "is empty"
            case .invalidJSON(let e): return "is not valid JSON (\(e))"
            case .notAnObject(let found): return "holds \(found), expected a JSON object"
            case .wrongType(let key, let found, let expected):
                return "has \"\(key)\" set to \(found), expected \(expected)"
            }
        }
    }

    /// Decodes file bytes and migrates the legacy key. An object without `appearance` is valid
    /// (follow the system); `appearance` of any type but string, or a legacy `isDarkMode` of
    /// any type but boolean, is a problem.
    public static func decode(_ bytes: [UInt8]) -> Result<PreferencesDocument, Problem> {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .failure(.empty) }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch { return .failure(.invalidJSON(error)) }
        guard case .object(let object) = value else { return .failure(.notAnObject(found: value.kindDescription)) }
        if let v = object[appearanceKey], v.stringValue == nil {
            return .failure(.wrongType(key: appearanceKey, found: v.kindDescription,
                                       expected: #"a string ("system", "light" or "dark")"#))
        }
        if let v = object[legacyIsDarkModeKey], v.boolValue == nil {
            return .failure(.wrongType(key: legacyIsDarkModeKey, found: v.kindDescription, expected: "true or false"))
        }
        var doc = PreferencesDocument(object: object)
        doc.migrateLegacy()
        return .success(doc)
    }

    /// Replaces a legacy `isDarkMode` by `appearance` in its place (unless `appearance` is
    /// already there, which then wins) and notes that the file changed.
    mutating func migrateLegacy() {
        guard let legacy = object[Self.legacyIsDarkModeKey]?.boolValue else { return }
        let hasAppearance = object[Self.appearanceKey] != nil
        var members: [JSONMember] = []
        for m in object.members {
            if m.key == Self.legacyIsDarkModeKey {
                if !hasAppearance {
                    members.append(JSONMember(key: Self.appearanceKey,
                                              value: .string(AppearancePreference(isDark: legacy).rawValue)))
                }
            } else {
                members.append(m)
            }
        }
        object = JSONObject(members)
        migratedLegacy = true
    }
}

extension PreferencesDocument {
    /// The stored preference as a fixed mode: true for `"dark"`, false for `"light"`, nil when
    /// the file follows the system (or holds no preference).
    public var fixedDarkMode: Bool? {
        switch storedAppearance {
        case .dark?: return true
        case .light?: return false
        default: return nil
        }
    }
}

extension PreferencesLoadResult {
    /// The starting mode with no system input ("system" resolves to light).
    public var isDarkMode: Bool { appearance == .dark }
}

extension PreferencesStore {
    /// Saves a fixed mode (`.dark` or `.light`), as a toggle commit does.
    @discardableResult
    public func save(isDarkMode: Bool) -> String? { save(appearance: AppearancePreference(isDark: isDarkMode)) }
}
