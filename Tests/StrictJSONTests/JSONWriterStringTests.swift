import Foundation
import Testing
@testable import StrictJSON

/// `JSONWriter.writeString`, which skips ordinary bytes a word at a time, against the rule written
/// out one scalar at a time (RFC 8259 §7, plus U+2028 and U+2029 escaped), and against Foundation's
/// parser reading it back, on random strings whose special characters fall at every offset of a word.
struct JSONWriterStringTests {
    static func reference(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func escapesLikeTheRuleAtEveryOffset() throws {
        var state: UInt64 = 99
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let specials: [String] = [
            "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}",
            "\u{2027}", "\u{202A}", "é", "€", "😀", "\u{200B}",
        ]
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<next(40) { text += next(5) == 0 ? specials[next(specials.count)] : String(UnicodeScalar(UInt8(0x61 + next(26)))) }
            var out: [UInt8] = [0x78]
            JSONWriter.writeString(text, into: &out)
            let written = String(decoding: out.dropFirst(), as: UTF8.self)
            #expect(written == Self.reference(text), "\(Array(text.utf8))")
            let parsed = try JSONSerialization.jsonObject(with: Data(("[" + written + "]").utf8)) as? [String]
            #expect(parsed == [text])
        }
    }

    /// A string longer than one piece of room (`JSONWriter.piece`) is written in pieces: an escape on either side of a
    /// piece's end, and U+2028 (three bytes) starting one or two bytes before it, come out as in one piece.
    @Test func longStringsAreEscapedAcrossPieces() throws {
        let piece = JSONWriter.piece
        for special in ["\u{2028}", "\u{2029}", "\"", "\u{1}", "é", "😀"] {
            for offset in -4...4 {
                for length in [piece + 1, 2 * piece + 3, 3 * piece] {
                    let prefix = String(repeating: "a", count: piece + offset - 1)
                    let text = String((prefix + special + String(repeating: "b", count: length)).prefix(length))
                    var out: [UInt8] = [0x78]
                    JSONWriter.writeString(text, into: &out)
                    let written = String(decoding: out.dropFirst(), as: UTF8.self)
                    #expect(written == Self.reference(text), "\(special) at \(piece + offset - 1), length \(length)")
                }
            }
        }
        // Only escapes, longer than a piece: six bytes a byte, pieces' room exactly filled.
        let controls = String(repeating: "\u{1}", count: piece * 2 + 1)
        var out: [UInt8] = []
        JSONWriter.writeString(controls, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == Self.reference(controls))
        #expect(out.count == 6 * controls.utf8.count + 2)
    }

    @Test func integersAtTheirLimits() {
        for n: Int64 in [0, 7, -7, 10, -10, 99, 100, 1_234_567_890, .max, .min, .max - 1, .min + 1] {
            var out: [UInt8] = [0x78]
            JSONWriter.writeInteger(n, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x\(n)")
        }
    }
}
