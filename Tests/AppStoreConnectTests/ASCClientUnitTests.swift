import AppStoreConnect
import Foundation
import StrictJSON
import Locking
import SystemCrypto
import Testing

/// A transport that answers from a script and records what was sent; no sockets.
final class ScriptedTransport: ASCTransport {
    private let script: Locked<[ASCHTTPResponse]>
    private let sentRequests = Locked<[ASCHTTPRequest]>([])
    init(_ responses: [ASCHTTPResponse]) { script = Locked(responses) }
    var sent: [ASCHTTPRequest] { sentRequests.withLock { $0 } }

    func send(_ request: ASCHTTPRequest) async throws(ASCTransportError) -> ASCHTTPResponse {
        sentRequests.withLock { $0.append(request) }
        return script.withLock { $0.isEmpty ? ASCHTTPResponse(status: 599) : $0.removeFirst() }
    }
}

func json(_ value: JSONValue, status: Int = 200) -> ASCHTTPResponse {
    ASCHTTPResponse(status: status, headers: ["content-type": "application/json"], body: JSONWriter.bytes(value))
}

struct ASCClientUnitTests {
    func client(_ transport: ScriptedTransport) throws -> ASCClient {
        let credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
        return try ASCClient(
            baseURL: "https://api.appstoreconnect.apple.com", tokens: ASCTokenCache(credentials: credentials), transport: transport,
            sleeper: { _ in }, random: { 0.5 })
    }

    /// An image's state as App Store Connect answers a read of it.
    static func image(_ id: String, _ state: String) -> ASCHTTPResponse {
        json([
            "data": [
                "type": "appClipAdvancedExperienceImages", "id": .string(id),
                "attributes": ["assetDeliveryState": ["state": .string(state)]],
            ]
        ])
    }

    /// Issue 32 item 4: images taking 3 s were read three times each (after 2, 2.5 and 3.5 s). The first that needs
    /// more than one read is read until done, each read a quarter later than the last; the next is first read after as
    /// long as that one needed, so once.
    @Test func anImageSlowerThanTheFirstWaitCostsExtraReadsOnceNotForEveryImage() async throws {
        let transport = ScriptedTransport([
            Self.image("a", "UPLOAD_COMPLETE"), Self.image("a", "UPLOAD_COMPLETE"), Self.image("a", "COMPLETE"),
            Self.image("b", "COMPLETE"),
        ])
        let sleeper = RecordingSleeper()
        let credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
        let client = try ASCClient(
            baseURL: "https://api.appstoreconnect.apple.com", tokens: ASCTokenCache(credentials: credentials), transport: transport,
            sleeper: sleeper.sleeper, random: { 0.5 })
        let committed = { (id: String) in ASCImage(type: "appClipAdvancedExperienceImages", id: id, state: .known(.uploadComplete)) }
        #expect(try await client.waitUntilProcessed(committed("a")).state == .known(.complete))
        #expect(sleeper.waits == [2, 0.5, 0.625])
        #expect(try await client.waitUntilProcessed(committed("b")).state == .known(.complete))
        #expect(sleeper.waits == [2, 0.5, 0.625, 3.125])
        #expect(transport.sent.count == 4)
    }

    /// An answer that already says how processing ended (the commit's, a resumed image's) is not read again.
    @Test func anImageAlreadyCompleteOrFailedIsNotRead() async throws {
        let transport = ScriptedTransport([])
        let done = try await client(transport).waitUntilProcessed(
            ASCImage(type: "appClipAdvancedExperienceImages", id: "a", state: .known(.complete)))
        #expect(done.id == "a")
        let failed = ASCImage(
            type: "appClipAdvancedExperienceImages", id: "b", state: .known(.failed), errors: ["IMAGE_INCORRECT_DIMENSIONS: not 1800x1200"])
        let error = await #expect(throws: ASCClientError.self) { try await client(transport).waitUntilProcessed(failed) }
        guard case .imageProcessingFailed("b", let reasons)? = error else {
            Issue.record("expected imageProcessingFailed, got \(String(describing: error))")
            return
        }
        #expect(reasons == ["IMAGE_INCORRECT_DIMENSIONS: not 1800x1200"])
        #expect(transport.sent.isEmpty)
    }

    @Test func valuesFromANewerAPIAreKeptNotFatal() async throws {
        let transport = ScriptedTransport([
            json([
                "data": [
                    [
                        "type": "appClipAdvancedExperiences", "id": "1",
                        "attributes": [
                            "link": "https://a.example/x", "action": "TELEPORT", "businessCategory": "SPACE_TRAVEL", "status": "ARCHIVED",
                            "defaultLanguage": "EN", "place": ["mapAction": "BOOK_SPACESHIP"],
                        ],
                        "relationships": ["localizations": ["data": [["type": "appClipAdvancedExperienceLocalizations", "id": "9"]]]],
                    ]
                ],
                "included": [
                    ["type": "appClipAdvancedExperienceLocalizations", "id": "9", "attributes": ["language": "EO", "title": "Saluton"]]
                ],
                "links": ["self": "https://api.appstoreconnect.apple.com/v1/appClips/c/appClipAdvancedExperiences"],
            ])
        ])
        let experiences = try await client(transport).advancedExperiences(appClipID: "c")
        let experience = try #require(experiences.first)
        #expect(experience.action == .unknown("TELEPORT"))
        #expect(experience.businessCategory == .unknown("SPACE_TRAVEL"))
        #expect(experience.status == .unknown("ARCHIVED"))
        #expect(experience.defaultLanguage == .known(.en))
        #expect(experience.place?["mapAction"] == "BOOK_SPACESHIP")
        #expect(experience.localizations.first?.language == .unknown("EO"))
    }

    @Test func aNullPlaceIsNoPlace() async throws {
        let transport = ScriptedTransport([
            json([
                "data": [["type": "appClipAdvancedExperiences", "id": "1", "attributes": ["link": "https://a.example/x", "place": nil]]],
                "links": ["self": "https://api.appstoreconnect.apple.com/v1/appClips/c/appClipAdvancedExperiences"],
            ])
        ])
        let experience = try #require(try await client(transport).advancedExperiences(appClipID: "c").first)
        #expect(experience.place == nil)
    }

    @Test func aNextLinkLeavingTheOriginIsNotFollowedAndGetsNoToken() async throws {
        let transport = ScriptedTransport([
            json([
                "data": [],
                "links": ["self": "https://api.appstoreconnect.apple.com/v1/apps", "next": "https://evil.example/v1/apps?cursor=x"],
            ])
        ])
        let error = await #expect(throws: ASCClientError.self) { try await client(transport).app(bundleID: "com.example.bikes") }
        #expect(error == .foreignLink("https://evil.example/v1/apps?cursor=x"))
        #expect(transport.sent.count == 1)
        #expect(transport.sent.allSatisfy { $0.url.host == "api.appstoreconnect.apple.com" })
    }

    @Test func aNextLinkThatComesBackStopsTheWalk() async throws {
        let page: JSONValue = [
            "data": [], "links": ["self": "x", "next": "https://api.appstoreconnect.apple.com/v1/apps?cursor=A"],
        ]
        let transport = ScriptedTransport([json(page), json(page), json(page)])
        await #expect(throws: ASCClientError.self) { try await client(transport).app(bundleID: "com.example.bikes") }
        #expect(transport.sent.count == 2)
    }

    @Test func queryNamesAndValuesArePercentEncoded() async throws {
        let transport = ScriptedTransport([json(["data": [], "links": ["self": "x"]])])
        _ = try await client(transport).appClip(appID: "6400/../1", bundleID: "com.example.bikes.Clip&x=1")
        let url = try #require(transport.sent.first?.url.absoluteString)
        #expect(
            url
                == "https://api.appstoreconnect.apple.com/v1/apps/6400%2F..%2F1/appClips"
                + "?filter%5BbundleId%5D=com.example.bikes.Clip%26x%3D1"
        )
        #expect(transport.sent.first?.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("Bearer ey") } == true)
    }

    @Test func anAnswerThatIsNotJSONAPIIsReported() async throws {
        let transport = ScriptedTransport([ASCHTTPResponse(status: 200, body: Array("<html>".utf8))])
        let error = await #expect(throws: ASCClientError.self) { try await client(transport).app(bundleID: "a") }
        guard case .invalidResponse? = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
    }

    @Test func theBaseURLMustBeAnOrigin() throws {
        let credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
        for bad in ["ftp://x", "https://api.example/v1", "not a url", "https://api.example/?q=1"] {
            #expect(throws: ASCClientError.self) { try ASCClient(baseURL: bad, tokens: ASCTokenCache(credentials: credentials)) }
        }
        #expect(ASCClient.baseURL(environment: [:]) == "https://api.appstoreconnect.apple.com")
        #expect(ASCClient.baseURL(environment: ["ASC_API_URL": "http://127.0.0.1:9"]) == "http://127.0.0.1:9")
    }
}

/// The retry policy's decisions, with no client and no time.
struct ASCRetryPolicyTests {
    let policy = ASCRetryPolicy()
    let midpoint: () -> Double = { 0.5 }

    @Test func retryAfterIsHonouredAndTooLongIsNot() {
        #expect(
            policy.decision(after: .rateLimited(retryAfter: 30), method: "POST", attempt: 1, rateLimitWaits: 0, random: midpoint)
                == .retry(afterSeconds: 30))
        #expect(
            policy.decision(after: .rateLimited(retryAfter: 7200), method: "GET", attempt: 1, rateLimitWaits: 0, random: midpoint)
                == .giveUp)
        #expect(
            policy.decision(
                after: .rateLimited(retryAfter: 1), method: "GET", attempt: 1, rateLimitWaits: policy.maximumRateLimitWaits,
                random: midpoint)
                == .giveUp)
    }

    @Test func backoffGrowsIsCappedAndJittered() {
        #expect(
            policy.decision(after: .serverError(status: 502), method: "GET", attempt: 1, rateLimitWaits: 0, random: midpoint)
                == .retry(afterSeconds: 1))
        #expect(
            policy.decision(after: .timedOut, method: "PATCH", attempt: 3, rateLimitWaits: 0, random: midpoint) == .retry(afterSeconds: 4))
        #expect(policy.decision(after: .timedOut, method: "GET", attempt: 4, rateLimitWaits: 0, random: midpoint) == .giveUp)
        let capped = ASCRetryPolicy(maximumAttempts: 50)
        #expect(
            capped.decision(after: .timedOut, method: "GET", attempt: 30, rateLimitWaits: 0, random: midpoint) == .retry(afterSeconds: 60))
        #expect(policy.decision(after: .timedOut, method: "GET", attempt: 2, rateLimitWaits: 0, random: { 0 }) == .retry(afterSeconds: 1.5))
        #expect(policy.decision(after: .timedOut, method: "GET", attempt: 2, rateLimitWaits: 0, random: { 1 }) == .retry(afterSeconds: 2.5))
    }

    @Test func aPostIsNotRepeatedAfterAnUnknownOutcome() {
        #expect(
            policy.decision(after: .serverError(status: 500), method: "POST", attempt: 1, rateLimitWaits: 0, random: midpoint) == .giveUp)
        #expect(policy.decision(after: .timedOut, method: "POST", attempt: 1, rateLimitWaits: 0, random: midpoint) == .giveUp)
    }

    @Test func headersAreParsed() {
        #expect(ASCRetryPolicy.retryAfterSeconds("120") == 120)
        #expect(ASCRetryPolicy.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(ASCRetryPolicy.retryAfterSeconds("-1") == nil)
        let limit = ASCRateLimit(header: "user-hour-lim:3500;user-hour-rem:500;user-minute-rem:3;")
        #expect(limit?.hourLimit == 3500 && limit?.hourRemaining == 500 && limit?.values["user-minute-rem"] == 3)
        #expect(ASCRateLimit(header: "garbage") == nil)
    }
}
