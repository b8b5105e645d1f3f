#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// The `appearance` schema and the one-time migration of the legacy `isDarkMode` file.
@Suite struct PreferencesSchemaTests {
    func decode(_ text: String) -> Result<PreferencesDocument, PreferencesDocument.Problem> {
        PreferencesDocument.decode(Array(text.utf8))
    }

    @Test(arguments: [("system", AppearancePreference.system), ("light", .light), ("dark", .dark)])
    func knownValues(text: String, expected: AppearancePreference) throws {
        let doc = try decode(#"{"appearance": "\#(text)"}"#).get()
        #expect(doc.appearance == expected)
        #expect(doc.storedAppearance == expected)
        #expect(!doc.migratedLegacy)
    }

    @Test(arguments: [#"{}"#, #"{"appearance": "auto"}"#, #"{"appearance": ""}"#, #"{"appearance": "Dark"}"#])
    func missingOrUnknownIsSystem(text: String) throws {
        let doc = try decode(text).get()
        #expect(doc.appearance == .system, "\(text)")
        #expect(doc.storedAppearance == nil)
    }

    @Test(arguments: [(#"{"appearance": true}"#, "a boolean"), (#"{"appearance": 1}"#, "a number"),
                      (#"{"appearance": null}"#, "null"), (#"{"appearance": ["dark"]}"#, "an array"),
                      (#"{"appearance": {}}"#, "an object")])
    func wrongTypeIsAProblemNamingTheKey(text: String, found: String) {
        guard case .failure(let p) = decode(text) else { Issue.record("\(text) decoded"); return }
        #expect(p.description.contains(#"has "appearance" set to"#), "\(p)")
        #expect(p.description.contains(found), "\(p)")
        #expect(p.description.contains(#""system", "light" or "dark""#), "\(p)")
    }

    @Test(arguments: [(true, "dark"), (false, "light")])
    func legacyMigratesInPlaceKeepingOtherKeys(legacy: Bool, expected: String) throws {
        let doc = try decode(#"{"a": 1, "isDarkMode": \#(legacy), "z": "keep"}"#).get()
        #expect(doc.migratedLegacy)
        #expect(doc.object.keys == ["a", "appearance", "z"])
        #expect(doc.object["appearance"] == .string(expected))
        #expect(doc.object["isDarkMode"] == nil)
        #expect(JSONWriter.compact(.object(doc.object)) == #"{"a":1,"appearance":"\#(expected)","z":"keep"}"#)
    }

    @Test func appearanceWinsOverALegacyKey() throws {
        let doc = try decode(#"{"isDarkMode": true, "appearance": "light"}"#).get()
        #expect(doc.migratedLegacy)
        #expect(doc.appearance == .light)
        #expect(doc.object.keys == ["appearance"])
    }

    @Test func legacyOfWrongTypeIsStillAProblem() {
        guard case .failure(let p) = decode(#"{"isDarkMode": "yes"}"#) else { Issue.record("decoded"); return }
        #expect(p.description == #"has "isDarkMode" set to a string, expected true or false"#)
    }

    @Test func savingWritesTheNewSchema() throws {
        var doc = try decode(#"{"x": 2}"#).get()
        doc.appearance = .system
        #expect(String(decoding: doc.encoded, as: UTF8.self) == "{\n  \"x\": 2,\n  \"appearance\": \"system\"\n}\n")
    }

    /// Start-up migrates the file on disk once: the next start finds the new schema.
    @Test(arguments: [(true, AppearancePreference.dark), (false, .light)])
    func startupRewritesALegacyFileOnce(legacy: Bool, expected: AppearancePreference) throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        writeText(#"{"isDarkMode": \#(legacy), "kiosk": "lobby"}"#, to: path)
        let (store, preference) = PreferencesStore.open(path: path)
        #expect(store != nil)
        #expect(preference == expected)
        let object = try #require(try StrictJSONParser.parse(readBytes(path)!).objectValue)
        #expect(object.keys == ["appearance", "kiosk"])
        #expect(object["appearance"] == .string(expected.rawValue))
        let again = PreferencesStore(path: path).load()
        #expect(again.appearance == expected)
        #expect(!again.migratedLegacy)
        #expect(again.source == .saved)
    }

    @Test func aNewFileFollowsTheSystemAndTheButtonStoresIt() throws {
        let dir = TempFolder()
        let path = dir.file("preferences.json")
        let (store, preference) = PreferencesStore.open(path: path)
        #expect(preference == .system)
        #expect(readBytes(path) == nil)  // nothing written until something is chosen
        store?.saveReporting(.preferenceChanged(.dark))
        #expect(try PreferencesDocument.decode(readBytes(path)!).get().appearance == .dark)
        store?.saveReporting(.preferenceChanged(.system))
        #expect(try PreferencesDocument.decode(readBytes(path)!).get().storedAppearance == .system)
    }
}
