import FileFormats
import StrictJSON
import SystemCrypto
import Testing
@testable import AppStoreConnect

/// The token exactly as Apple's "Generating Tokens for API Requests" asks for it.
struct ASCTokenTests {
    let credentials: ASCCredentials
    init() throws {
        credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
    }

    struct Decoded {
        let header: [(key: String, value: JSONValue)]
        let claims: [(key: String, value: JSONValue)]
        let signingInput: String
        let signature: [UInt8]
    }

    func decode(_ token: ASCToken) throws -> Decoded {
        let parts = token.compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let header = try JSONParser.parse(try #require(base64URLDecode(parts[0]))).objectMembers
        let claims = try JSONParser.parse(try #require(base64URLDecode(parts[1]))).objectMembers
        return Decoded(
            header: try #require(header), claims: try #require(claims), signingInput: parts[0] + "." + parts[1],
            signature: try #require(base64URLDecode(parts[2])))
    }

    @Test func headerAndClaimsAreExactlyApples() throws {
        let token = try ASCToken(credentials: credentials, now: 1_528_407_660)
        let decoded = try decode(token)
        #expect(decoded.header.map(\.key) == ["alg", "kid", "typ"])
        #expect(decoded.header.map(\.value) == ["ES256", "2X9R4HXF34", "JWT"])
        #expect(decoded.claims.map(\.key) == ["iss", "iat", "exp", "aud"])
        let claims: [JSONValue] = [.string(exampleIssuerID), .integer(1_528_407_600), .integer(1_528_408_740), "appstoreconnect-v1"]
        #expect(decoded.claims.map(\.value) == claims)
        #expect(token.issuedAt == 1_528_407_600 && token.expiresAt == 1_528_408_740)
        #expect(token.expiresAt - token.issuedAt <= 20 * 60)
        #expect(token.authorization == "Bearer " + token.compact)
    }

    @Test func theSignatureIs64BytesOfRSAndVerifies() throws {
        let token = try ASCToken(credentials: credentials, now: 1_700_000_000)
        #expect(!token.compact.contains("=") && !token.compact.contains("+") && !token.compact.contains("/"))
        let decoded = try decode(token)
        #expect(decoded.signature.count == 64)
        let publicKey = credentials.privateKey.publicKey
        #expect(publicKey.isValidSignature(decoded.signature, for: Array(decoded.signingInput.utf8)))
        #expect(!publicKey.isValidSignature(decoded.signature, for: Array((decoded.signingInput + "x").utf8)))
    }

    /// A reference token made with RFC 6979 nonces from the RFC 6979 A.2.5 key over Apple's
    /// example values: our signing input is byte for byte its first two parts, and our
    /// verification accepts its signature.
    @Test func theDeterministicReferenceTokenMatches() throws {
        let reference =
            "eyJhbGciOiJFUzI1NiIsImtpZCI6IjJYOVI0SFhGMzQiLCJ0eXAiOiJKV1QifQ."
            + "eyJpc3MiOiI1NzI0NjU0Mi05NmZlLTFhNjMtZTA1My0wODI0ZDAxMTA3MmEiLCJpYXQiOjE1Mjg0MDc2MDAsImV4cCI6"
            + "MTUyODQwODgwMCwiYXVkIjoiYXBwc3RvcmVjb25uZWN0LXYxIn0."
            + "u69zI01Vo38vEVWUg2KACAELtB01TCdmVCnMoO28iVbvoCUCh7GqaBBMxmJjui7j-2NXvDwaJUd8OblWaumeIQ"
        let parts = reference.split(separator: ".").map(String.init)
        let input = ASCToken.signingInput(keyID: exampleKeyID, issuerID: exampleIssuerID, issuedAt: 1_528_407_600, expiresAt: 1_528_408_800)
        #expect(input == parts[0] + "." + parts[1])
        let signature = try #require(base64URLDecode(parts[2]))
        #expect(
            signature == hex("bbaf73234d55a37f2f11559483628008010bb41d354c27665429cca0edbc8956")
                + hex("efa0250287b1aa68104cc66263ba2ee3fb6357bc3c1a25477c39b9566ae99e21"))
        #expect(credentials.privateKey.publicKey.isValidSignature(signature, for: Array(input.utf8)))
    }

    @Test func base64URLHasNoPaddingAtAnyLength() {
        // RFC 4648 §10's examples, in the URL alphabet and without "=".
        let cases = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (text, encoded) in cases { #expect(Base64.encode(Array(text.utf8), alphabet: .url) == encoded) }
        #expect(Base64.encode([0xFB, 0xFF, 0xBF], alphabet: .url) == "-_-_")
    }

    @Test func theDescriptionDoesNotShowTheToken() throws {
        let token = try ASCToken(credentials: credentials, now: 1_700_000_000)
        let signature = String(token.compact.split(separator: ".")[2])
        for text in [String(describing: token), String(reflecting: token), "\(token)"] {
            #expect(!text.contains(signature.prefix(12)))
            #expect(text.contains("2X9R4HXF34"))
        }
    }
}
