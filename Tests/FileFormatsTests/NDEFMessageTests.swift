import FileFormats
import Testing

/// ndeflib decodes these messages in scripts/formats-check (and encodes the same bytes); here, the
/// bytes of NFC Forum RTD-URI's rules, the Type 2 TLV and the tag sizes.
struct NDEFMessageTests {
    /// RTD-URI's example: "https://www.example.com" abbreviated with code 0x02; header D1: MB, ME,
    /// SR, TNF 1; type length 1, payload length 12, type "U".
    @Test func shortRecord() throws {
        let message = try NDEFMessage.uri("https://www.example.com")
        #expect(message.bytes == [0xD1, 0x01, 0x0C, 0x55, 0x02] + Array("example.com".utf8))
        #expect(message.hex(separator: " ") == "D1 01 0C 55 02 65 78 61 6D 70 6C 65 2E 63 6F 6D")
        #expect(message.hex() == "D1010C55026578616D706C652E636F6D")
    }

    /// The longest prefix in the table wins; letter case must match; other schemes get code 0.
    @Test(arguments: [
        ("https://example.com/x", 0x04 as UInt8, "example.com/x"),
        ("https://www.example.com", 0x02, "example.com"),
        ("http://www.example.com", 0x01, "example.com"),
        ("http://example.com", 0x03, "example.com"),
        ("https://", 0x04, ""),
        ("tel:+14085551212", 0x05, "+14085551212"),
        ("mailto:a@example.com", 0x06, "a@example.com"),
        ("ftp://anonymous:anonymous@host", 0x07, "host"),
        ("ftp://ftp.example.com", 0x08, "example.com"),
        ("ftp://example.com", 0x0D, "example.com"),
        ("urn:epc:id:sgtin:1", 0x1E, "sgtin:1"),
        ("urn:epc:x", 0x22, "x"),
        ("urn:nfc:wkt:U", 0x23, "wkt:U"),
        ("urn:isbn:1", 0x13, "isbn:1"),
        ("sips:a@b", 0x16, "a@b"),
        ("file:///tmp", 0x1D, "/tmp"),
        ("HTTPS://EXAMPLE.COM", 0x00, "HTTPS://EXAMPLE.COM"),
        ("clip://open", 0x00, "clip://open"),
        ("httpx://a", 0x00, "httpx://a"),
    ])
    func abbreviation(uri: String, code: UInt8, rest: String) throws {
        let message = try NDEFMessage.uri(uri)
        #expect(Array(message.bytes.dropFirst(4)) == [code] + Array(rest.utf8))
        #expect(Int(message.bytes[2]) == 1 + rest.utf8.count)
    }

    /// RTD-URI's field is UTF-8: an internationalized host or path is written as its UTF-8 bytes,
    /// Punycode as it is; nothing is converted or normalized.
    @Test func internationalizedURIsAreWrittenAsGiven() throws {
        let unicode = try NDEFMessage.uri("https://bücher.example/straße")
        #expect(Array(unicode.bytes.dropFirst(5)) == Array("bücher.example/straße".utf8))
        let punycode = try NDEFMessage.uri("https://xn--bcher-kva.example/")
        #expect(Array(punycode.bytes.dropFirst(5)) == Array("xn--bcher-kva.example/".utf8))
        let decomposed = try NDEFMessage.uri("https://cafe\u{301}.example")
        #expect(Array(decomposed.bytes.dropFirst(5)) == Array("cafe\u{301}.example".utf8))
    }

    /// NDEF 1.0: SR (one-byte payload length) up to 255 bytes of payload; from 256, a normal record
    /// with a four-byte big-endian length.
    @Test func shortRecordBoundary() throws {
        let last = try NDEFMessage.uri("https://" + String(repeating: "a", count: 254))
        #expect(Array(last.bytes.prefix(3)) == [0xD1, 0x01, 0xFF])
        #expect(last.bytes.count == 4 + 255)
        let first = try NDEFMessage.uri("https://" + String(repeating: "a", count: 255))
        #expect(Array(first.bytes.prefix(7)) == [0xC1, 0x01, 0x00, 0x00, 0x01, 0x00, 0x55])
        #expect(first.bytes.count == 7 + 256)
    }

    /// Type 2 Tag: TLV 0x03 with a one-byte length up to 254, 0xFF and two bytes from 255, then 0xFE.
    @Test func type2TLV() throws {
        let small = try NDEFMessage.uri("https://a.example")
        #expect(try small.type2TLV() == [0x03, UInt8(small.bytes.count)] + small.bytes + [0xFE])
        // 254 bytes of message: 4 bytes of record header, 1 code byte, 249 of URI.
        let at254 = try NDEFMessage.uri("https://" + String(repeating: "a", count: 249))
        #expect(at254.bytes.count == 254)
        #expect(Array(try at254.type2TLV().prefix(2)) == [0x03, 0xFE])
        let at255 = try NDEFMessage.uri("https://" + String(repeating: "a", count: 250))
        #expect(at255.bytes.count == 255)
        #expect(Array(try at255.type2TLV().prefix(4)) == [0x03, 0xFF, 0x00, 0xFF])
        #expect(try at255.type2TLV().last == 0xFE)
    }

    /// NTAG213, 215 and 216 hold 144, 504 and 888 bytes of TLVs, terminator included.
    @Test(arguments: [(0, NTAG.ntag213), (144, .ntag213), (145, .ntag215), (504, .ntag215), (505, .ntag216), (888, .ntag216)])
    func smallestTag(bytes: Int, tag: NTAG) {
        #expect(NTAG.smallest(holding: bytes) == tag)
    }

    @Test func nothingHoldsMore() {
        #expect(NTAG.smallest(holding: 889) == nil)
        #expect(NTAG.allCases.map(\.userMemoryBytes) == [144, 504, 888])
    }

    /// A message whose TLV is exactly 144 bytes fits an NTAG213; one byte more needs an NTAG215.
    @Test func messageTagBoundary() throws {
        // TLV = 2 + (4 + 1 + n) + 1 = 144 when n = 136.
        let fits = try NDEFMessage.uri("https://" + String(repeating: "a", count: 136))
        #expect(try fits.type2TLV().count == 144)
        #expect(fits.smallestTag == .ntag213)
        #expect(try NDEFMessage.uri("https://" + String(repeating: "a", count: 137)).smallestTag == .ntag215)
        #expect(try NDEFMessage.uri("https://" + String(repeating: "a", count: 2000)).smallestTag == nil)
    }

    /// 65,534 bytes is the most a Type 2 TLV length says; a longer message is still a message.
    @Test func enormousURI() throws {
        let message = try NDEFMessage.uri("https://" + String(repeating: "a", count: 70000))
        #expect(Array(message.bytes.prefix(7)) == [0xC1, 0x01, 0x00, 0x01, 0x11, 0x71, 0x55])
        #expect(throws: NDEFError.tooLarge(bytes: message.bytes.count, limit: 0xFFFE)) { try message.type2TLV() }
        #expect(message.smallestTag == nil)
        let largest = try NDEFMessage.uri("https://" + String(repeating: "a", count: 0xFFFE - 7 - 1))
        #expect(largest.bytes.count == 0xFFFE)
        #expect(Array(try largest.type2TLV().prefix(4)) == [0x03, 0xFF, 0xFF, 0xFE])
    }

    @Test(arguments: [
        ("https://exa mple.com", Unicode.Scalar(" ")), ("https://example.com/\n", "\n"), ("\u{0}", "\u{0}"), ("https://a\u{7F}", "\u{7F}"),
        ("https://a\u{85}", "\u{85}"), ("https://a\u{202E}moc.evil", "\u{202E}"), ("https://a\u{200F}", "\u{200F}"),
        ("https://\u{2066}", "\u{2066}"),
    ])
    func refusedCharacters(uri: String, character: Unicode.Scalar) {
        #expect(throws: NDEFError.characterNotInURI(character)) { try NDEFMessage.uri(uri) }
    }

    @Test func emptyURIRefused() {
        #expect(throws: NDEFError.emptyURI) { try NDEFMessage.uri("") }
    }
}
