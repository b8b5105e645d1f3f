import Testing
import Appearance
import KioskEngine
@testable import KioskTools
@testable import KioskSupport

/// `{"type": "system", …}` trace lines: what the live sources would report, for replay.
@Suite struct SystemTraceTests {
    func message(_ text: String) -> String? {
        do { _ = try TraceReader.parse(text, file: "s.jsonl"); return nil } catch { return error.message }
    }

    @Test func readsSystemLinesAndWritesThemBack() throws {
        let text = """
        {"t": 0.5, "type": "system", "scheme": "dark", "source": "portal"}
        {"t": 1, "type": "system", "scheme": "light", "source": "light-sensor"}
        {"t": 2, "type": "system", "scheme": "no-preference"}
        """
        let events = try TraceReader.parse(text, file: "s.jsonl")
        #expect(events == [
            .system(SystemAppearance(scheme: .dark, source: .portal), t: 0.5),
            .system(SystemAppearance(scheme: .light, source: .lightSensor), t: 1),
            .system(.noPreference, t: 2),
        ])
        let again = try TraceReader.parse(events.map(\.jsonLine).joined(separator: "\n"), file: "again")
        #expect(again == events)
    }

    @Test func systemLinesCarryTheDesktopHints() throws {
        let text = """
        {"t": 0.5, "type": "system", "scheme": "dark", "source": "portal", "highContrast": true}
        {"t": 1, "type": "system", "scheme": "dark", "source": "portal", "highContrast": false, "reducedMotion": true}
        """
        let events = try TraceReader.parse(text, file: "h.jsonl")
        #expect(events == [
            .system(SystemAppearance(scheme: .dark, source: .portal, hints: AccessibilityHints(highContrast: true)), t: 0.5),
            .system(SystemAppearance(scheme: .dark, source: .portal, hints: AccessibilityHints(highContrast: false, reducedMotion: true)), t: 1),
        ])
        #expect(try TraceReader.parse(events.map(\.jsonLine).joined(separator: "\n"), file: "again") == events)
    }

    /// Replay's final line names the driving source, and the button's words name it too.
    @Test func replayFinalLineNamesTheSource() throws {
        func final(_ text: String, initial: AppearancePreference = .system) throws -> JSONObject {
            var lines: [String] = []
            _ = ReplayRunner(size: PixelSize(width: 400, height: 700), renderFrames: false)
                .run(try TraceReader.parse(text, file: "r.jsonl"), initial: initial, onOutput: { _ in }, emit: { lines.append($0) })
            let root = try StrictJSONParser.parse(lines.last ?? "")
            return try #require(root.objectValue?["final"]?.objectValue)
        }
        let sensor = try final("""
        {"t": 0.5, "type": "system", "scheme": "light", "source": "portal"}
        {"t": 1, "type": "system", "scheme": "dark", "source": "light-sensor"}
        """)
        #expect(sensor["systemSource"]?.stringValue == "light-sensor")
        #expect(sensor["button"]?.stringValue == "Following System · light sensor")
        #expect(sensor["isDarkMode"]?.boolValue == true)
        #expect(sensor["highContrast"]?.boolValue == false && sensor["reduceMotion"]?.boolValue == false)

        let schedule = try final(#"{"t": 1, "type": "system", "scheme": "light", "source": "schedule", "highContrast": true, "reducedMotion": true}"#)
        #expect(schedule["systemSource"]?.stringValue == "schedule")
        #expect(schedule["button"]?.stringValue == "Following System · schedule")
        #expect(schedule["highContrast"]?.boolValue == true && schedule["reduceMotion"]?.boolValue == true)

        let none = try final(#"{"t": 1, "type": "system", "scheme": "no-preference"}"#)
        #expect(none["systemSource"] == JSONValue.null)
        #expect(none["button"]?.stringValue == "Following System")

        // A fixed preference: no systemSource, the button offers the system.
        let fixed = try final(#"{"t": 1, "type": "system", "scheme": "dark", "source": "portal"}"#, initial: .light)
        #expect(fixed["systemSource"] == nil)
        #expect(fixed["button"]?.stringValue == "Use System Setting")
        #expect(fixed["isDarkMode"]?.boolValue == false)
    }

    @Test(arguments: [
        (#"{"t": 0, "type": "system", "scheme": "dark", "source": "portal", "highContrast": 1}"#, #"line 1: "highContrast" must be true or false, found a number"#),
        (#"{"t": 0, "type": "system", "scheme": "dark", "source": "portal", "reducedMotion": "yes"}"#, #"line 1: "reducedMotion" must be true or false, found a string"#),
        (#"{"t": 0, "type": "system", "source": "portal"}"#, #"line 1: missing "scheme""#),
        (#"{"t": 0, "type": "system", "scheme": "dim", "source": "portal"}"#, #"line 1: unknown scheme "dim""#),
        (#"{"t": 0, "type": "system", "scheme": true, "source": "portal"}"#, "line 1: unknown scheme a boolean"),
        (#"{"t": 0, "type": "system", "scheme": "dark"}"#, #"line 1: missing "source""#),
        (#"{"t": 0, "type": "system", "scheme": "dark", "source": "sun"}"#, #"line 1: unknown source "sun""#),
        (#"{"t": 0, "type": "system", "scheme": "no-preference", "source": "portal"}"#, #"must be left out with scheme "no-preference""#),
        (#"{"t": 0, "type": "system", "scheme": "dark", "source": "portal", "lux": 3}"#, #"line 1: unknown field "lux""#),
        (#"{"type": "system", "scheme": "dark", "source": "portal"}"#, #"line 1: missing "t""#),
    ])
    func badSystemLinesAreNamed(_ text: String, _ phrase: String) {
        let m = message(text)
        #expect(m?.hasPrefix("trace file s.jsonl, ") == true, "\(m ?? "no error")")
        #expect(m?.contains(phrase) == true, "\(m ?? "no error") should contain \(phrase)")
    }
}
