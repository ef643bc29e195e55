import FileFormats
import Foundation
import Testing

/// The one Base 64: RFC 4648 §10's examples in both alphabets, and what each set of decoding rules refuses.
struct Base64Tests {
    static let examples = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]

    @Test func rfc4648Examples() {
        for (text, encoded) in Self.examples {
            #expect(Base64.encode(Array(text.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(text.utf8))
            #expect(Base64.decode(encoded, rules: .pemBody) == Array(text.utf8))
            // The URL alphabet as JWS writes it: no padding.
            #expect(Base64.encode(Array(text.utf8), alphabet: .url) == encoded.replacingOccurrences(of: "=", with: ""))
        }
        #expect(Base64.encode([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.encode([0xFB, 0xFF, 0xBF], alphabet: .url) == "-_-_")
    }

    /// Against Foundation's encoder (an independent implementation) at every length up to 70.
    @Test func agreesWithFoundation() {
        for n in 0...70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let theirs = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == theirs)
            #expect(Base64.decode(theirs) == bytes)
        }
    }

    @Test func strictRefusesWhatRFC4648Section33Forbids() {
        for text in ["Zg", "Zg=", "Zg===", "Z", "Zm9v\n", "Zm 9v", "Zg==Zg==", "Zm9v-_", "Zm9vé"] {
            #expect(Base64.decode(text) == nil, "\(text)")
        }
        // Non-zero unused bits are read, not refused, by the strict rules (as before: webhook secrets, imports).
        #expect(Base64.decode("Zh==") == [0x66])
    }

    @Test func aPEMBodyMayLeaveOutPaddingButMustBeCanonical() {
        #expect(Base64.decode("Zg", rules: .pemBody) == [0x66])
        #expect(Base64.decode("Zm8", rules: .pemBody) == [0x66, 0x6F])
        #expect(Base64.decode("Zh", rules: .pemBody) == nil)  // unused bits set (RFC 4648 §3.5)
        #expect(Base64.decode("Zh==", rules: .pemBody) == nil)
        #expect(Base64.decode("Z", rules: .pemBody) == nil)
        #expect(Base64.decode("Zg=", rules: .pemBody) == nil)
        #expect(Base64.decode("Zm9v=", rules: .pemBody) == nil)
        #expect(Base64.decode("Zm9v\nYg", rules: .pemBody) == nil)
    }

    @Test func laxSkipsWhitespaceAndDoesNotCheckTheEnd() {
        #expect(Base64.decode("Zm9v\r\n Yg\t==", ignoringWhitespace: true) == Array("foob".utf8))
        #expect(Base64.decode("Zm9vYg", ignoringWhitespace: true) == Array("foob".utf8))
        #expect(Base64.decode("Zm9v!", ignoringWhitespace: true) == nil)
    }
}
