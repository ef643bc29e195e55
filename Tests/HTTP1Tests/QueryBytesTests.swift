import Testing
@testable import HTTP1

/// The query decoded over bytes (the hot routes') against `QueryString.parse` (Strings): the same
/// items, and malformed exactly where it is.
@Suite struct QueryBytesTests {
    static func items(_ query: String) -> [(name: String, value: String)]? {
        var scratch: [UInt8] = []
        var ranges: [(name: [UInt8], value: Range<Int>)] = []
        var bytes = Array(query.utf8)
        let ok = bytes.withUnsafeMutableBufferPointer { query in
            QueryString.decodeItems(UnsafeBufferPointer(query), into: &scratch) { name, value in ranges.append((Array(name), value)) }
        }
        guard ok else { return nil }
        return ranges.map { (String(decoding: $0.name, as: UTF8.self), String(decoding: scratch[$0.value], as: UTF8.self)) }
    }

    static func same(_ a: [(name: String, value: String)]?, _ b: [(name: String, value: String)]?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    @Test(arguments: [
        "", "&", "url=a", "url=a&&language=fr&", "=x", "x=", "x", "a+b=c+d", "a=%41%42", "a=%4", "a=%", "a=%zz", "a=%00", "a=%C3%A9",
        "a=%C3", "a=%E2%82%AC", "a=%ED%A0%80", "a=%F4%90%80%80", "a=%C0%AF", "a=%F0%9F%98%80&b=%FF", "u%72l=1=2", "a==b",
    ])
    func examples(query: String) {
        #expect(Self.same(Self.items(query), QueryString.parse(Substring(query))), "\(query)")
    }

    @Test func randomQueriesDecodeAsTheStringParserDoes() {
        var generator = SystemRandomNumberGenerator()
        // NUL, raw non-ASCII bytes and runs longer than a word too (the decoder skips ordinary bytes eight at a time).
        let alphabet = Array("ab=&+%%%0123456789ABCDEFcdefxz\u{0}é".utf8) + [0xFF]
        for _ in 0..<5000 {
            let length = Int.random(in: 0...60, using: &generator)
            let query = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            #expect(Self.same(Self.items(query), QueryString.parse(Substring(query))), "\(query)")
        }
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20000 {
            let bytes = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                [
                    UInt8.random(in: 0x80...0xFF, using: &generator), UInt8.random(in: 0...0x7F, using: &generator), 0xE0, 0xED, 0xF0, 0xF4,
                    0x80, 0xBF,
                ]
                .randomElement(using: &generator)!
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(bytes.withUnsafeBufferPointer { PercentDecoding.isValidUTF8($0) } == expected, "\(bytes)")
        }
    }
}
