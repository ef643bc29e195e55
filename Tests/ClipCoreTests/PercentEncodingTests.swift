import Testing
@testable import ClipCore

/// Percent-encoding is written once (`PercentEncoding`): upper-case escapes of the bytes a rule does not keep.
struct PercentEncodingTests {
    @Test func onlyUnreservedBytesStayByDefault() {
        #expect(PercentEncoding.encode("AZaz09-._~".utf8) == "AZaz09-._~")
        #expect(PercentEncoding.encode("a b/c?d=e&f+g%".utf8) == "a%20b%2Fc%3Fd%3De%26f%2Bg%25")
        #expect(PercentEncoding.encode("ü\u{0}\u{7F}".utf8) == "%C3%BC%00%7F")
        #expect(PercentEncoding.encode("".utf8) == "")
        #expect(PercentEncoding.encode("a b/é?&=~._-Z9".utf8) == "a%20b%2F%C3%A9%3F%26%3D~._-Z9")
        #expect(PercentEncoding.encode("https://a.example/?q=1&r=+".utf8) == "https%3A%2F%2Fa.example%2F%3Fq%3D1%26r%3D%2B")
    }

    @Test func aRuleKeepsWhatItSays() {
        let printable = { (b: UInt8) in (0x21...0x7E).contains(b) }
        #expect(PercentEncoding.encode("a b\u{1B}[31m".utf8, keeping: printable) == "a%20b%1B[31m")
        for b in UInt8.min...UInt8.max {
            let escaped = PercentEncoding.encode([b]) { _ in false }
            #expect(escaped.count == 3 && escaped.first == "%" && escaped.uppercased() == escaped)
            #expect(PercentEncoding.escapedByte(Array(escaped.utf8), at: 0) == b)
        }
    }
}
