import Testing
import Appearance
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

    @Test(arguments: [
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
