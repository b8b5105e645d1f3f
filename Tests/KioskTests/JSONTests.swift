import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

@Suite struct StrictJSONTests {
    func syntaxError(_ text: String) -> JSONSyntaxError? {
        do { _ = try StrictJSONParser.parse(text); return nil } catch { return error }
    }

    @Test func parsesValuesInOrder() throws {
        let v = try StrictJSONParser.parse(#" {"b": [true, false, null, -0.5e+2, "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "a": {}} "#)
        let o = try #require(v.objectValue)
        #expect(o.keys == ["b", "a"])
        let items = try #require(o["b"]?.arrayValue)
        #expect(items[0] == .bool(true) && items[2] == .null)
        #expect(items[3].doubleValue == -50)
        #expect(items[4].stringValue == "\"\\/\u{8}\u{c}\n\r\té😀")
    }

    @Test(arguments: [
        ("NaN", "NaN and Infinity"), ("-Infinity", "NaN and Infinity"), ("[1,]", "trailing comma"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""), ("01", "malformed number '01'"), ("1 2", "after the JSON value"), ("1.", "malformed number"),
        ("[1e999]", "out of range"), ("\"a\u{01}\"", "control character"), ("// c\n1", "unexpected '/'"),
        ("{'a': 1}", "expected a key in double quotes"), ("\"\\ud800\"", "unpaired surrogate"), ("", "empty"),
        ("tru", "expected 'true'"), ("truex", "expected 'true'"), ("[1 2]", "expected ',' or ']'"),
    ])
    func rejectsInvalidText(_ text: String, _ phrase: String) throws {
        let e = try #require(syntaxError(text), "accepted \(text)")
        #expect(e.description.contains(phrase), "\(e)")
    }

    @Test func reportsLineAndColumn() throws {
        let e = try #require(syntaxError("{\n  \"a\": 1,\n  \"b\": x\n}"))
        #expect(e.line == 3 && e.column == 8)
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let e = try #require(syntaxError(String(repeating: "[", count: 100_000)))
        #expect(e.reason.contains("nesting deeper"))
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: JSONSyntaxError.self) { try StrictJSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try StrictJSONParser.parse([0xC3]) }
    }

    @Test func writerRoundTripsAndKeepsNumberText() throws {
        let text = #"{"n":[1.50,-0,2E-3,1e2],"s":"a\"b\\c\n\u0001é","e":{},"l":[]}"#
        let v = try StrictJSONParser.parse(text)
        #expect(JSONWriter.compact(v) == text)
        #expect(try StrictJSONParser.parse(JSONWriter.pretty(v)) == v)
        #expect(JSONWriter.pretty(.object(JSONObject([JSONMember(key: "a", value: .bool(true))]))) == "{\n  \"a\": true\n}\n")
    }

    @Test func numbersFromDoublesReadBackExactly() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let d = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &rng) ? 1 : -1)
            let n = try #require(JSONNumber(d))
            #expect(JSONNumber.isValidSyntax(n.text), "\(n.text)")
            #expect(JSONNumber(text: n.text)?.value == d)
        }
        #expect(JSONNumber(Double.nan) == nil && JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(3)?.text == "3")
    }
}
