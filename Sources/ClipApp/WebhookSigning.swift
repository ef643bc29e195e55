public import ClipCore
import SystemCrypto

extension WebhookSignature {
    /// The `webhook-signature` header of `content` signed with `key`: HMAC-SHA256 (RFC 2104), as Standard Webhooks
    /// asks; the webhook worker sends it, and the layer keeps the crypto library away from the HTTP API.
    public static func header(key: [UInt8], content: [UInt8]) throws -> String {
        header(hmac: try HMAC.sha256(key: key, message: content))
    }
}
