import Testing
@testable import StrictJSON

struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5e1, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}} "#)
        #expect(value == ["a": [1, .double(-25), true, false, nil, "xé😀\n"], "b": .object([])])
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{\"a\":1,}", "expected a string key"),
        ("[1,]", "unexpected character ']'"),
        ("{\"a\":1 \"b\":2}", "expected ',' or '}' in object"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("01", "leading zero in number"),
        ("1.", "expected digits after '.'"),
        ("\"\\ud800\"", "lone surrogate in \\u escape"),
        ("\"a\tb\"", "unescaped control character in string"),
        ("\"\\x\"", "invalid escape '\\x'"),
        ("nul", "invalid literal"),
        ("1e999", "number out of range"),
        ("[1] x", "unexpected data after the JSON value"),
        ("// comment\n1", "unexpected character '/'"),
    ])
    func refusesMalformedInputSayingWhy(_ text: String, _ message: String) {
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.message == message) }
    }

    @Test func errorsGiveLineAndColumn() {
        do {
            _ = try JSONParser.parse("{\n  \"a\": 1,\n  \"b\": tru\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    /// A string without escapes is read in one piece, one with an escape byte by byte: both
    /// read the same text, and refuse the same bytes with the same error at the same place.
    @Test func stringsWithAndWithoutEscapesReadAlike() {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("é".utf8), Array("😀".utf8), Array("\u{2028}".utf8), [0xFF], [0xC3], [0xC3, 0x28], [0xED, 0xA0, 0x80],
            [0x09], [0x0A], [0x00], [0x7F], Array(#"\\"#.utf8), Array(#"\""#.utf8),
        ]
        var generator = SystemRandomNumberGenerator()
        for n in 0..<3_000 {
            let body = (0..<Int.random(in: 0...8, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
            // With `\u0020` at its end the string takes the escape path; unterminated when n is odd.
            let close: [UInt8] = n % 2 == 0 ? [0x22] : []
            let plain = [0x22] + body + close, escaped = [0x22] + body + Array(#"\u0020"#.utf8) + close
            switch (Result { try JSONParser.parse(plain) }, Result { try JSONParser.parse(escaped) }) {
            case (.success(.string(let a)), .success(.string(let b))): #expect(a + " " == b)
            case (.failure(let a as JSONParser.ParseError), .failure(let b as JSONParser.ParseError)):
                #expect(a.message == b.message && a.line == b.line && a.column == b.column, "\(plain)")
            case (let a, let b): Issue.record("\(plain): \(a) but with an escape \(b)")
            }
        }
    }

    @Test func limitsNestingDepth() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONParser.parse(ok)
        // Far deeper input fails cleanly instead of overflowing the stack.
        #expect(throws: JSONParser.ParseError.self) { try JSONParser.parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test func largeIntegersStayExactAndOverflowBecomesDouble() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .integer(Int64.max))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808))
    }

    @Test func writerEscapesEveryControlCharacterAndRoundTrips() throws {
        let text = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self) + "é\u{2029}😀\u{7F}" + String(repeating: "x", count: 300)
        let written = JSONWriter.string(.array([.string(text), .integer(Int64.min), .integer(-7), .integer(Int64.max)]))
        #expect(written.hasPrefix(#"["\u0000\u0001"#) && written.contains(#"\b\t\n\u000b\f\r"#) && written.contains(#"é\u2029😀"#))
        #expect(written.hasSuffix(#"",-9223372036854775808,-7,9223372036854775807]"#))
        #expect(try JSONParser.parse(written) == .array([.string(text), .integer(Int64.min), .integer(-7), .integer(Int64.max)]))
    }

    @Test func writerIsCompactDeterministicAndEscapes() throws {
        let value: JSONValue = ["z": "a\"b\\c\u{1}\u{2028}", "a": [1, .double(0.5), .double(3), nil]]
        #expect(JSONWriter.string(value) == #"{"z":"a\"b\\c\u0001\u2028","a":[1,0.5,3,null]}"#)
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
        #expect(
            JSONWriter.string(value, pretty: true)
                == "{\n  \"z\": \"a\\\"b\\\\c\\u0001\\u2028\",\n  \"a\": [\n    1,\n    0.5,\n    3,\n    null\n  ]\n}")
    }

    @Test func objectEqualityIgnoresMemberOrder() {
        #expect(JSONValue.object([(key: "a", value: 1), (key: "b", value: 2)]) == ["b": 2, "a": 1])
        #expect(JSONValue.object([(key: "a", value: 1)]) != ["a": 2])
    }
}
