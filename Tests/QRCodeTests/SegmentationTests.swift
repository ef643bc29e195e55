import Testing

@testable import QRCode

/// The optimal segmentation against every segmentation of short texts, and its effect on whole symbols.
@Suite struct SegmentationTests {
    func bits(_ segments: [QRSegment], _ versionClass: QRSegment.VersionClass) -> Int {
        segments.reduce(0) { $0 + $1.bitLength(versionClass)! }
    }

    /// The fewest bits over every assignment of a mode to each byte (runs of one mode merged into a segment).
    func bruteForce(_ bytes: [UInt8], _ versionClass: QRSegment.VersionClass) -> Int {
        var best = Int.max
        func search(_ index: Int, _ modes: [QRSegment.Mode]) {
            if index == bytes.count {
                var segments: [QRSegment] = []
                var start = 0
                for end in 1...bytes.count where end == bytes.count || modes[end] != modes[start] {
                    segments.append(QRSegment(mode: modes[start], bytes: bytes[start..<end]))
                    start = end
                }
                best = min(best, bits(segments, versionClass))
                return
            }
            for mode in QRSegment.Mode.allCases where mode.holds(bytes[index]) { search(index + 1, modes + [mode]) }
        }
        search(0, [])
        return best
    }

    @Test(arguments: QRSegment.VersionClass.allCases)
    func optimalIsTheMinimumOverEverySegmentation(versionClass: QRSegment.VersionClass) {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789ABC:/ab.é".utf8)
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 1...9, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let segments = QRSegment.optimal(bytes, for: versionClass)
            #expect(segments.flatMap(\.bytes) == bytes)
            #expect(segments.allSatisfy { $0.bytes.allSatisfy($0.mode.holds) })
            #expect(bits(segments, versionClass) == bruteForce(bytes, versionClass), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func singleModeTexts() throws {
        #expect(QRSegment.optimal(Array("01234567".utf8), for: .small).map(\.mode) == [.numeric])
        #expect(QRSegment.optimal(Array("HELLO WORLD".utf8), for: .small).map(\.mode) == [.alphanumeric])
        #expect(QRSegment.optimal(Array("https://bikesrental.example/rent".utf8), for: .small).map(\.mode) == [.byte])
        #expect(QRSegment.optimal([], for: .small).isEmpty)
    }

    /// A long run of digits in a URL is worth its own numeric segment; a short one is not.
    @Test func digitRunsSplitOffWhenTheySaveBits() throws {
        let long = try QRCode.encode("https://shop.example/p/12345678901234567890123456")
        #expect(long.segments.map(\.mode) == [.byte, .numeric])
        #expect(long.segments[1].bytes == Array("12345678901234567890123456".utf8))
        let byteOnly = try QRCode.encode("https://shop.example/p/12345678901234567890123456", segmentation: .byte)
        #expect(long.version < byteOnly.version)
        #expect(try QRCode.encode("https://shop.example/p/12").segments.map(\.mode) == [.byte])
    }

    @Test func explicitSegmentsRefuseWhatTheirModeCannotHold() {
        #expect(throws: QRCodeError.notEncodable(character: "a", mode: .numeric)) { try QRSegment("12a", mode: .numeric) }
        #expect(throws: QRCodeError.notEncodable(character: "x", mode: .alphanumeric)) { try QRSegment("HTTPS://x", mode: .alphanumeric) }
        #expect(throws: QRCodeError.notEncodable(character: "١", mode: .numeric)) { try QRSegment("1١", mode: .numeric) }
        #expect(QRCodeError.notEncodable(character: "١", mode: .numeric).description == "numeric mode cannot hold the character U+0661")
        #expect(throws: Never.self) { try QRSegment("ANY bytes: é 🚲", mode: .byte) }
    }

    /// Text outside ASCII is declared UTF-8 by an ECI header; ASCII needs none.
    @Test func utf8IsDeclared() throws {
        #expect(try QRCode.encode("https://bikesrental.example").declaresUTF8 == false)
        let idn = try QRCode.encode("https://bücher.example")
        #expect(idn.declaresUTF8)
        let data = QRCode.dataCodewords(idn.segments, version: idn.version, level: idn.errorCorrection)
        // 0111 00011010 (ECI 26), then 0100 (byte mode).
        #expect(data[0] == 0x71 && data[1] == 0xA4)
        #expect(QRCode.byteCapacity(version: 40, level: .low, utf8: true) == 2952)
    }
}
