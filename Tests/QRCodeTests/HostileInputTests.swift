import Testing

@testable import QRCode

/// Inputs a caller should not send, each encoded or refused with a clear error, never a crash.
@Suite struct HostileInputTests {
    @Test func emptyText() throws {
        let code = try QRCode.encode("")
        #expect(code.version == 1 && code.size == 21 && code.segments.isEmpty && code.text == "")
        #expect(QRCode.dataCodewords([], version: 1, level: .medium).prefix(3) == [0x00, 0xEC, 0x11])
    }

    @Test func tooLongAtHighSaysTheMaximum() {
        let text = "https://example.com/" + String(repeating: "a", count: 2980)
        #expect(throws: QRCodeError.tooLong(bytes: 3000, level: .high, maxBytes: 1273)) { try QRCode.encode(text, ecc: .high) }
        let message = QRCodeError.tooLong(bytes: 3000, level: .high, maxBytes: 1273).description
        #expect(message.contains("3000 bytes") && message.contains("at most 1273 bytes") && message.contains("level H"))
    }

    @Test func enormousTextIsRefusedAtOnce() {
        let text = String(repeating: "https://example.com/", count: 100_000)
        #expect(throws: QRCodeError.tooLong(bytes: 2_000_000, level: .medium, maxBytes: 2331)) { try QRCode.encode(text) }
    }

    @Test func invisibleCharacters() throws {
        for text in ["\u{200B}", String(repeating: "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", count: 40), "\u{00AD}\u{180E}"] {
            let code = try QRCode.encode(text, ecc: .quartile)
            #expect(code.text == text && code.declaresUTF8)
        }
    }

    @Test func emojiAndOtherScripts() throws {
        for text in ["🚲", "https://😀.example/🚲?q=👩‍👩‍👧‍👦", "https://пример.испытание/", "https://例え.テスト/", "e\u{301}"] {
            let code = try QRCode.encode(text)
            #expect(code.text == text && code.text.utf8.elementsEqual(text.utf8))
        }
    }

    @Test func nulAndControlBytes() throws {
        let text = "\0\0abc\u{1}\u{7F}\r\n\0"
        let code = try QRCode.encode(text, ecc: .low)
        #expect(code.text == text && code.segments.map(\.mode) == [.byte])
        #expect(try code.svg().contains("<title>\u{FFFD}\u{FFFD}abc\u{FFFD}\u{7F}\r\n\u{FFFD}</title>"))
    }

    @Test func outOfRangeOptions() {
        for version in [0, -1, 41, Int.max, Int.min] {
            #expect(throws: QRCodeError.invalidVersion(version)) { try QRCode.encode("x", version: version) }
        }
        for mask in [-1, 8, Int.max] {
            #expect(throws: QRCodeError.invalidMask(mask)) { try QRCode.encode("x", mask: mask) }
        }
        #expect(QRCodeError.invalidVersion(41).description == "QR version 41 does not exist: versions are 1 to 40")
        #expect(QRCodeError.invalidMask(8).description == "QR mask pattern 8 does not exist: mask patterns are 0 to 7")
    }

    @Test func versionTooSmallNamesTheVersionNeeded() throws {
        let url = "https://brighteggcafe.example/store/cupertino"
        let smallest = try QRCode.encode(url)
        #expect(throws: QRCodeError.versionTooSmall(version: 1, level: .medium, needed: smallest.version, maxBytes: 14)) {
            try QRCode.encode(url, version: 1)
        }
        #expect(
            QRCodeError.versionTooSmall(version: 1, level: .medium, needed: 3, maxBytes: 14).description
                == "the text does not fit QR version 1 at level M (at most 14 bytes); it needs version 3")
        // A larger version than needed is kept.
        #expect(try QRCode.encode(url, version: 30).version == 30)
    }

    /// Random scalars from every plane (controls, combining marks, private use, emoji), every level: each text
    /// either encodes and keeps its exact UTF-8, or is refused as too long.
    @Test func randomTextsEncodeOrAreRefused() throws {
        var generator = SystemRandomNumberGenerator()
        let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        for _ in 0..<60 {
            var text = ""
            for _ in 0..<Int.random(in: 0...400, using: &generator) {
                let range = ranges.randomElement(using: &generator)!
                text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: range, using: &generator))!)
            }
            let level = ErrorCorrectionLevel.allCases.randomElement(using: &generator)!
            do {
                let code = try QRCode.encode(text, ecc: level)
                #expect(code.text.utf8.elementsEqual(text.utf8) && code.size == 17 + 4 * code.version)
            } catch {
                #expect(text.utf8.count > QRCode.byteCapacity(version: 40, level: level, utf8: true), "\(error)")
            }
        }
    }
}
