import SystemCrypto
import Testing
import AppStoreConnect

/// One token reused until near expiry, renewed on demand after a 401, with a clock moved by hand.
struct ASCTokenCacheTests {
    let clock = ManualClock(1_700_000_000)
    let cache: ASCTokenCache
    init() throws {
        let credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
        cache = ASCTokenCache(credentials: credentials) { [clock] in clock.now }
    }

    @Test func reusedUntilNearExpiryThenRenewed() throws {
        let first = try cache.token()
        #expect(first.issuedAt == 1_700_000_000 - ASCToken.backdating)
        #expect(try cache.token() == first)
        let lastReuse = first.expiresAt - ASCTokenCache.renewalMargin - 1
        clock.set(lastReuse)
        #expect(try cache.token() == first)
        clock.set(lastReuse + 1)
        let second = try cache.token()
        #expect(second != first)
        #expect(second.issuedAt == lastReuse + 1 - ASCToken.backdating)
        #expect(try cache.token() == second)
    }

    @Test func aClockSetBackGetsANewToken() throws {
        let first = try cache.token()
        clock.advance(-3600)
        let second = try cache.token()
        #expect(second != first)
        #expect(second.issuedAt == 1_700_000_000 - 3600 - ASCToken.backdating)
    }

    @Test func aRejectedTokenIsReplacedOnce() throws {
        let rejected = try cache.token()
        let replacement = try cache.token(replacing: rejected)
        #expect(replacement != rejected)
        // The same 401 reported again (or by a second request that used the same token): no third token.
        #expect(try cache.token(replacing: rejected) == replacement)
        #expect(try cache.token() == replacement)
        // The replacement rejected in turn gets its own replacement.
        let third = try cache.token(replacing: replacement)
        #expect(third != replacement && third != rejected)
    }

    @Test func replacingAStaleTokenNeverHandsBackAnExpiredOne() throws {
        let rejected = try cache.token()
        let replacement = try cache.token(replacing: rejected)
        clock.set(replacement.expiresAt)
        let fresh = try cache.token(replacing: rejected)
        #expect(fresh != replacement && fresh.expiresAt > clock.now)
    }

    @Test func manyRequestsAtOnceShareOneToken() async throws {
        let tokens = try await withThrowingTaskGroup(of: ASCToken.self) { group in
            for _ in 0..<16 { group.addTask { [cache] in try cache.token() } }
            return try await group.reduce(into: [ASCToken]()) { $0.append($1) }
        }
        #expect(Set(tokens.map(\.compact)).count == 1)
    }
}
