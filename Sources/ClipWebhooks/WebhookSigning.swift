public import ClipCore
public import SystemCrypto

extension WebhookSignature {
    /// The `webhook-signature` header of one message: HMAC-SHA256 (RFC 2104, libcrypto) of `id.timestamp.body`
    /// with the endpoint's key (Standard Webhooks, "Signature scheme").
    public static func header(key: [UInt8], id: String, timestamp: Int64, body: [UInt8]) throws(OpenSSLFailure) -> String {
        header(hmac: try HMAC.sha256(key: key, message: signedContent(id: id, timestamp: timestamp, body: body)))
    }
}
