import Foundation
import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport
import DarkModeToggle

@Suite struct TraceReaderTests {
    func errorMessage(_ text: String) -> String? {
        do { _ = try TraceReader.parse(text, file: "t.jsonl"); return nil } catch {
            #expect(error.kind == .input && error.exitStatus == 2)
            return error.message
        }
    }

    @Test func readsEventsSkippingBlankAndCommentLines() throws {
        let text = """
        # a tap, then a key
        {"t": 0.000, "type": "down", "id": 0, "x": 100, "y": 50.5, "device": "mouse"}

          # indented comment\r
        {"t": 0.016, "type": "move", "id": 0, "x": 12, "y": 8, "in": "toggle"}\r
        {"t": 0.016, "type": "up", "id": 0, "x": 12, "y": 8, "in": "window", "device": "touch"}
        {"t": 0.5, "type": "cancel", "id": 3, "x": -4, "y": 0}
        {"t": 1, "type": "key", "key": "Space"}
        """
        let events = try TraceReader.parse(text, file: "t.jsonl")
        #expect(events == [
            .pointer(id: 0, phase: .down, x: 100, y: 50.5, device: .mouse, space: .window, t: 0),
            .pointer(id: 0, phase: .move, x: 12, y: 8, device: .touch, space: .toggle, t: 0.016),
            .pointer(id: 0, phase: .up, x: 12, y: 8, device: .touch, space: .window, t: 0.016),
            .pointer(id: 3, phase: .cancel, x: -4, y: 0, device: .touch, space: .window, t: 0.5),
            .key(name: "space", t: 1),
        ])
        #expect(events.map(\.time) == [0, 0.016, 0.016, 0.5, 1])
        #expect(try TraceReader.parse("", file: "e").isEmpty)
        #expect(try TraceReader.parse("\n\n# only comments\n", file: "e").isEmpty)
    }

    @Test(arguments: [
        ("{\"t\": 0, \"type\": \"down\", \"id\": 0, \"x\": 1, \"y\": 1}\n\n{\"t\": 0.1, \"type\": \"move\"", "t.jsonl, line 3: not valid JSON"),
        (#"{"t": 0, "type": "hover", "id": 0, "x": 1, "y": 1}"#, #"line 1: unknown type "hover", expected down, move, up, cancel, key or system"#),
        (#"{"t": 0, "type": 3, "id": 0, "x": 1, "y": 1}"#, #"line 1: "type" must be a string, found a number"#),
        (#"{"t": 0, "id": 0, "x": 1, "y": 1}"#, #"line 1: missing "type""#),
        (#"{"type": "down", "id": 0, "x": 1, "y": 1}"#, #"line 1: missing "t""#),
        (#"{"t": 0, "type": "down", "id": 0, "y": 1}"#, #"line 1: missing "x""#),
        (#"{"t": 0, "type": "down", "x": 1, "y": 1}"#, #"line 1: missing "id""#),
        (#"{"t": 0, "type": "down", "id": 0, "x": "1", "y": 1}"#, #""x" must be a number, found a string"#),
        (#"{"t": 0, "type": "down", "id": 1.5, "x": 1, "y": 1}"#, #""id" must be a whole number in 0…2147483647, found 1.5"#),
        (#"{"t": 0, "type": "down", "id": -1, "x": 1, "y": 1}"#, #""id" must be a whole number"#),
        (#"{"t": 0, "type": "down", "id": 0, "x": NaN, "y": 1}"#, "NaN and Infinity are not JSON numbers"),
        (#"{"t": 0, "type": "down", "id": 0, "x": 1e999, "y": 1}"#, "out of range"),
        (#"{"t": 0, "type": "down", "id": 0, "x": 1, "y": -1000001}"#, #""y" is out of range: -1000001 (magnitude at most 1000000)"#),
        (#"{"t": -0.5, "type": "down", "id": 0, "x": 1, "y": 1}"#, #""t" must not be negative, found -0.5"#),
        (#"{"t": 1e9, "type": "down", "id": 0, "x": 1, "y": 1}"#, #""t" is out of range"#),
        (#"{"t": 0, "type": "down", "id": 0, "x": 1, "y": 1, "device": "pen"}"#, #"unknown device "pen", expected "touch" or "mouse""#),
        (#"{"t": 0, "type": "down", "id": 0, "x": 1, "y": 1, "in": "screen"}"#, #"unknown "in" value "screen""#),
        (#"{"t": 0, "type": "down", "id": 0, "x": 1, "y": 1, "devcie": "touch"}"#, #"unknown field "devcie""#),
        (#"{"t": 0, "type": "key"}"#, #"missing "key""#),
        (#"{"t": 0, "type": "key", "key": ""}"#, #""key" must be a non-empty string"#),
        (#"{"t": 0, "type": "key", "key": "space", "x": 1}"#, #"unknown field "x""#),
        ("[1, 2]", "line 1: expected a JSON object, found an array"),
        ("{\"t\": 1, \"type\": \"key\", \"key\": \"a\"}\n{\"t\": 0.5, \"type\": \"key\", \"key\": \"b\"}",
         "line 2: time 0.5 is earlier than the previous event's 1.0 (times must not decrease)"),
    ])
    func badLinesNameFileLineAndProblem(_ text: String, _ phrase: String) throws {
        let message = try #require(errorMessage(text), "parsed: \(text)")
        #expect(message.hasPrefix("trace file t.jsonl, line "), "\(message)")
        #expect(message.contains(phrase), "\(message)")
    }

    @Test func equalTimesAreFineAndUnmatchedUpsPassThrough() throws {
        let events = try TraceReader.parse("""
        {"t": 2, "type": "up", "id": 9, "x": 1, "y": 1}
        {"t": 2, "type": "up", "id": 9, "x": 1, "y": 1}
        """, file: "t")
        #expect(events.count == 2)
    }

    @Test func readReportsMissingFiles() {
        #expect(throws: KioskError.input("trace file /nonexistent/t.jsonl: no such file")) {
            try TraceReader.read(path: "/nonexistent/t.jsonl")
        }
    }

    @Test func hundredThousandRandomEventsRoundTripExactly() throws {
        var rng = SeededRandom(seed: 0x5EED_CAFE)
        var events: [TraceEvent] = []
        events.reserveCapacity(100_000)
        var t = 0.0
        let phases: [PointerPhase] = [.down, .move, .up, .cancel]
        let keys = ["space", "return", "escape", "a", "keypad enter"]
        for _ in 0..<100_000 {
            t += Bool.random(using: &rng) ? 0 : Double.random(in: 0..<0.05, using: &rng)
            if Int.random(in: 0..<10, using: &rng) == 0 {
                events.append(.key(name: keys.randomElement(using: &rng)!, t: t))
            } else {
                events.append(.pointer(
                    id: Int.random(in: 0...20, using: &rng),
                    phase: phases.randomElement(using: &rng)!,
                    x: Double.random(in: -1e6...1e6, using: &rng),
                    y: Double.random(in: -50...2000, using: &rng),
                    device: Bool.random(using: &rng) ? .touch : .mouse,
                    space: Bool.random(using: &rng) ? .window : .toggle,
                    t: t))
            }
        }
        let dir = TempFolder()
        let path = dir.file("random.jsonl")
        writeText("# generated\n" + events.map(\.jsonLine).joined(separator: "\n") + "\n", to: path)
        let read = try TraceReader.read(path: path)
        #expect(read.count == events.count)
        #expect(read == events)
    }

    @Test func shippedTracesParse() throws {
        guard let folder = Bundle.module.resourcePath.map({ $0 + "/Traces" }) else { return }
        for name in folderEntries(folder) where name.hasSuffix(".jsonl") {
            _ = try TraceReader.read(path: folder + "/" + name)
        }
    }
}
