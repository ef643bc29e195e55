import ClipCore
import Testing
@testable import AppleFormats

/// Files that are not plain JSON are named for what they are (AASA005 empty, AASA006 signed,
/// AASA007 byte order mark), not reported as malformed JSON at line 1. Synthetic inputs only.
struct AASALinterInputTests {
    static let payload = Array(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/a/*"}]}]}}"#.utf8)

    /// DER type-length-value with a definite length (short or long form, X.690 §8.1.3).
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let n = content.count
        let length: [UInt8] = n < 128 ? [UInt8(n)] : n < 256 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        return [tag] + length + content
    }

    /// A minimal CMS SignedData (RFC 5652 §5.1) around `content`: no certificates, no signers.
    static func signed(_ content: [UInt8]) -> [UInt8] {
        let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        let encap = tlv(0x30, dataOID + tlv(0xA0, tlv(0x04, content)))
        let signedData = tlv(0x30, tlv(0x02, [1]) + tlv(0x31, []) + encap + tlv(0x31, []))
        return tlv(0x30, SignedAASA.signedDataOID + tlv(0xA0, signedData))
    }

    @Test func emptyAndBlankFiles() {
        #expect(AASALinter.lint([]).map(\.code) == ["AASA005"])
        #expect(AASALinter.lint(Array(" \n\t\r\n".utf8)).map(\.code) == ["AASA005"])
    }

    @Test func derSignedFileIsUnwrappedAndLinted() {
        let findings = AASALinter.lint(Self.signed(Self.payload))
        #expect(findings.map(\.code) == ["AASA006"])
        #expect(findings[0].severity == .warning)
        // The payload's own problems are reported too.
        let bad = Array(#"{"applinks":{"details":[{"components":[]}]}}"#.utf8)
        #expect(Set(AASALinter.lint(Self.signed(bad)).map(\.code)) == ["AASA006", "AASA110"])
    }

    @Test func pemSignedFile() {
        let der = Self.signed(Self.payload)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var base64: [UInt8] = []
        for i in stride(from: 0, to: der.count, by: 3) {
            let chunk = Array(der[i..<min(i + 3, der.count)]) + [0, 0]
            let n = Int(chunk[0]) << 16 | Int(chunk[1]) << 8 | Int(chunk[2])
            let count = min(3, der.count - i)
            for j in 0..<4 { base64.append(j <= count ? alphabet[(n >> (18 - 6 * j)) & 63] : UInt8(ascii: "=")) }
        }
        let pem = Array("-----BEGIN PKCS7-----\n".utf8) + base64 + Array("\n-----END PKCS7-----\n".utf8)
        let findings = AASALinter.lint(pem)
        #expect(findings.map(\.code) == ["AASA006"])
        #expect(findings[0].message.contains("PEM"))
    }

    @Test func truncatedSignedFileIsStillNamed() {
        let der = Array(Self.signed(Self.payload).prefix(40))
        let findings = AASALinter.lint(der)
        #expect(findings.map(\.code) == ["AASA006"])
        #expect(findings[0].severity == .error)
    }

    @Test func byteOrderMarkIsNamedAndTheRestLinted() {
        let findings = AASALinter.lint([0xEF, 0xBB, 0xBF] + Self.payload)
        #expect(findings.map(\.code) == ["AASA007"])
        #expect(AASALinter.lint([0xEF, 0xBB, 0xBF] + Array("{".utf8)).map(\.code).sorted() == ["AASA001", "AASA007"])
    }

    @Test func plainJSONUnchanged() {
        #expect(AASALinter.lint(Self.payload).isEmpty)
        #expect(AASALinter.lint(Array("[]".utf8)).map(\.code) == ["AASA002"])
    }
}
