import Foundation
import Locking
import TestSupport

/// RFC 6979 Appendix A.2.5's public P-256 test key as an Apple-style .p8 (TestSupport).
let rfc6979KeyPEM = ThrowawayKeys.rfc6979PrivateKeyPEM

/// An encrypted P-256 key (TestSupport).
let encryptedKeyPEM = ThrowawayKeys.encryptedPrivateKeyPEM

let exampleKeyID = ThrowawayKeys.exampleKeyID
let exampleIssuerID = ThrowawayKeys.exampleIssuerID

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
