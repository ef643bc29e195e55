import FileFormats
import StrictJSON
import SystemCrypto

/// A signed App Store Connect API token: an ES256 JWT as Apple's "Generating Tokens for API
/// Requests" specifies it
/// (https://developer.apple.com/documentation/appstoreconnectapi/generating-tokens-for-api-requests):
/// header exactly `alg`, `kid`, `typ`; claims `iss`, `iat`, `exp`, `aud` = `appstoreconnect-v1`;
/// `exp - iat` at most 20 minutes; sent as `Authorization: Bearer <token>`.
///
/// A bearer token is a credential for its lifetime: its description names the key and the
/// expiry, never the token.
public struct ASCToken: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The compact serialization (RFC 7515 §7.1): header.claims.signature, each base64url.
    public let compact: String
    public let keyID: String
    /// `iat` and `exp`, in seconds since 1970 (RFC 7519 §2 NumericDate).
    public let issuedAt: Int64
    public let expiresAt: Int64

    /// "For most requests, App Store Connect rejects a token with a lifetime greater than 20 minutes."
    public static let maximumLifetime: Int64 = 20 * 60
    /// `exp - iat` of the tokens made here: under the maximum, so a token is never at the limit.
    public static let lifetime: Int64 = 19 * 60
    /// `iat` is set this far before the clock's now, so a clock slightly ahead of Apple's does not
    /// make a token "issued in the future" (fastlane's spaceship does the same, with 60 s).
    public static let backdating: Int64 = 60
    public static let audience = "appstoreconnect-v1"

    /// A token for `credentials`, made at `now` (seconds since 1970).
    public init(credentials: ASCCredentials, now: Int64) throws(ASCTokenError) {
        let issuedAt = now - Self.backdating
        let expiresAt = issuedAt + Self.lifetime
        let input = Self.signingInput(keyID: credentials.keyID, issuerID: credentials.issuerID, issuedAt: issuedAt, expiresAt: expiresAt)
        let signature: [UInt8]
        do {
            signature = try credentials.privateKey.signature(for: Array(input.utf8))
        } catch {
            throw ASCTokenError(reason: error.description)
        }
        compact = input + "." + Base64.encode(signature, alphabet: .url)
        keyID = credentials.keyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The JWS signing input (RFC 7515 §5.1): base64url(header) "." base64url(claims), with the
    /// members in Apple's order and no whitespace.
    static func signingInput(keyID: String, issuerID: String, issuedAt: Int64, expiresAt: Int64) -> String {
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyID), "typ": "JWT"]
        let claims: JSONValue = [
            "iss": .string(issuerID), "iat": .integer(issuedAt), "exp": .integer(expiresAt), "aud": .string(audience),
        ]
        return Base64.encode(JSONWriter.bytes(header), alphabet: .url) + "." + Base64.encode(JSONWriter.bytes(claims), alphabet: .url)
    }

    /// The value of the `Authorization` request header.
    public var authorization: String { "Bearer \(compact)" }

    public var description: String { "App Store Connect token (key \(keyID), expires at \(expiresAt))" }
    public var debugDescription: String { description }
}

/// Signing failed inside libcrypto (not a problem with the key, which loaded).
public struct ASCTokenError: Error, Equatable, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { "cannot sign the App Store Connect token: \(reason)" }
}
