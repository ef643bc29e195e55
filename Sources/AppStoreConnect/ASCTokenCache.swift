import Glibc
import Locking

/// One App Store Connect token shared by every request until it nears expiry: Apple asks clients
/// to "reuse the same signed token for multiple requests until it expires"
/// (https://developer.apple.com/documentation/appstoreconnectapi/generating-tokens-for-api-requests).
public final class ASCTokenCache: Sendable {
    /// Seconds since 1970; injected so tests can move time.
    public typealias Clock = @Sendable () -> Int64

    /// A token is replaced once fewer than this many seconds of it are left, so a request that
    /// starts with it (an image upload can take minutes) does not outlive it.
    public static let renewalMargin: Int64 = 5 * 60

    public static let systemClock: Clock = { Int64(time(nil)) }

    private let credentials: ASCCredentials
    private let clock: Clock
    private let current = Locked<ASCToken?>(nil)

    public init(credentials: ASCCredentials, clock: @escaping Clock = ASCTokenCache.systemClock) {
        self.credentials = credentials
        self.clock = clock
    }

    /// The current token, or a new one when there is none, it is near expiry, or the clock was set
    /// back to before it was made.
    public func token() throws(ASCTokenError) -> ASCToken {
        let now = clock()
        return try current.withLock { (token: inout ASCToken?) throws(ASCTokenError) -> ASCToken in
            if let token, Self.isUsable(token, at: now) { return token }
            let fresh = try ASCToken(credentials: credentials, now: now)
            token = fresh
            return fresh
        }
    }

    private static func isUsable(_ token: ASCToken, at now: Int64) -> Bool {
        token.issuedAt + ASCToken.backdating <= now && now < token.expiresAt - renewalMargin
    }

    /// The token to retry with after App Store Connect answered 401 to `rejected`: a new one, unless
    /// another request has already replaced `rejected` (then that one), so several requests failing
    /// with the same token cause one new token, not one each. A caller retries once; a second 401
    /// means the key itself is refused (revoked, wrong issuer), not that the token was stale.
    public func token(replacing rejected: ASCToken) throws(ASCTokenError) -> ASCToken {
        let now = clock()
        return try current.withLock { (token: inout ASCToken?) throws(ASCTokenError) -> ASCToken in
            if let token, token != rejected, Self.isUsable(token, at: now) { return token }
            let fresh = try ASCToken(credentials: credentials, now: now)
            token = fresh
            return fresh
        }
    }
}
