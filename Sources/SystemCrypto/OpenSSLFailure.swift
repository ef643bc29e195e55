import CCrypto

/// A libcrypto call that failed where no input of ours explains it (an allocation, a missing
/// algorithm in the loaded providers). Carries OpenSSL's first queued error, never key material.
public struct OpenSSLFailure: Error, Equatable, CustomStringConvertible, Sendable {
    public let function: String
    public let reason: String

    public var description: String { "OpenSSL \(function) failed: \(reason)" }

    /// The failure of `function`, with the reason from this thread's OpenSSL error queue, which it
    /// empties (https://docs.openssl.org/3.0/man3/ERR_get_error/): a stale entry would otherwise be
    /// reported by the next unrelated failure on the same thread.
    static func drained(_ function: String) -> OpenSSLFailure {
        OpenSSLFailure(function: function, reason: drainErrorQueue() ?? "no reason given")
    }

    init(function: String, reason: String) {
        self.function = function
        self.reason = reason
    }
}

/// Empties this thread's OpenSSL error queue and returns the text of its first entry.
@discardableResult
func drainErrorQueue() -> String? {
    let code = ERR_get_error()
    defer { ERR_clear_error() }
    guard code != 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
