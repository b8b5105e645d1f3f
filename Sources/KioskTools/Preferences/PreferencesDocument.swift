import KioskEngine
import KioskSupport
/// The contents of the preferences file, pure and independent of the file system.
///
/// The file is a JSON object; the key `isDarkMode` holds the committed mode as a boolean (the
/// counterpart of SwiftUI's `@AppStorage("isDarkMode")`). Any other key is kept as written —
/// order, number text and all — so a later version's settings survive a rewrite by this one.
public struct PreferencesDocument: Equatable, Sendable {
    public static let isDarkModeKey = "isDarkMode"

    /// Every key of the file, in order.
    public private(set) var object: JSONObject

    public init(object: JSONObject = JSONObject()) {
        self.object = object
    }

    /// The saved mode, or nil when the file does not hold one.
    public var isDarkMode: Bool? {
        get { object[Self.isDarkModeKey]?.boolValue }
        set { object[Self.isDarkModeKey] = newValue.map(JSONValue.bool) }
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

    /// Decodes file bytes. An object without `isDarkMode` is valid (nothing saved yet);
    /// `isDarkMode` of any type but boolean is a problem.
    public static func decode(_ bytes: [UInt8]) -> Result<PreferencesDocument, Problem> {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .failure(.empty) }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch { return .failure(.invalidJSON(error)) }
        guard case .object(let object) = value else { return .failure(.notAnObject(found: value.kindDescription)) }
        if let v = object[isDarkModeKey], v.boolValue == nil {
            return .failure(.wrongType(key: isDarkModeKey, found: v.kindDescription, expected: "true or false"))
        }
        return .success(PreferencesDocument(object: object))
    }
}
