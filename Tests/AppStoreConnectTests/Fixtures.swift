import Foundation
import Locking

/// RFC 6979 Appendix A.2.5's public P-256 test key (x = C9AFA9D8…0F6721) as an Apple-style .p8
/// (PKCS#8, 150 bytes of DER): a throwaway key, never a credential.
let rfc6979KeyPEM = """
    -----BEGIN PRIVATE KEY-----
    MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCFX
    Z7HWk05Qw9s26JsSe4piKxIPZyGgCgYIKoZIzj0DAQehRANCAARg/tS6JVqdMclh
    63TGNW1owEm4kjth+mzmaWIuYPKftnkD/hAIuLyZpBrp6VYovGTy8bIMLX6fUXej
    wpTURiKZ
    -----END PRIVATE KEY-----
    """

/// The same key encrypted (PKCS#8 EncryptedPrivateKeyInfo, password "test").
let encryptedKeyPEM = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjumIuA8p9IBQICCAAw
    DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEHhd8rbTaAyG5oKb15tA9BsEgZBD
    rBfrEZQJSpRGdZAY09U+ULeQLf5/w7xBpUd0YAKRen/UukfbSp32bsdjmn05uNsA
    /Ii5QAgPLkyeE+dRJighKKvvsyFt16TdgRaYDHZaYXhv3KErrPq7bPatCHaz0RCe
    00n74v140iYLFSOBM3kNzUSOaH4lwK720dA6QPLq3V/KSV0H5Z9ovKpwb/LQec4=
    -----END ENCRYPTED PRIVATE KEY-----
    """

/// Apple's example key ID and issuer ID ("Generating Tokens for API Requests").
let exampleKeyID = "2X9R4HXF34"
let exampleIssuerID = "57246542-96fe-1a63-e053-0824d011072a"

/// 12-character pieces of every body line of `pem`: a text containing one has leaked key material.
func secretPieces(of pem: String) -> [String] {
    pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.flatMap { line in
        stride(from: 0, to: max(line.count - 11, 0), by: 6).map { String(line.dropFirst($0).prefix(12)) }
    }
}

/// Base64url without padding (RFC 4648 §5), decoded independently of the code under test.
func base64URLDecode(_ text: String) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var out: [UInt8] = [], buffer = 0, bits = 0
    for c in text.utf8 {
        guard let v = alphabet.firstIndex(of: c) else { return nil }
        buffer = buffer << 6 | v
        bits += 6
        if bits >= 8 { bits -= 8; out.append(UInt8((buffer >> bits) & 0xFF)) }
    }
    return out
}

func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let seconds: Locked<Int64>
    init(_ start: Int64) { seconds = Locked(start) }
    var now: Int64 { seconds.withLock { $0 } }
    func set(_ value: Int64) { seconds.withLock { $0 = value } }
    func advance(_ delta: Int64) { seconds.withLock { $0 += delta } }
}

/// A temporary folder removed when the test is done with it.
final class TemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("asc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ contents: String, mode: Int) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}
