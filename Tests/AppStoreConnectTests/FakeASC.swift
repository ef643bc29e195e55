import AppStoreConnect
import Foundation
import StrictJSON
import Locking
import SystemCrypto
import TestSupport

/// The fake App Store Connect (scripts/fake-asc/fake_asc.py) as a process on 127.0.0.1, port 0,
/// for one test; stopped when the test lets go of it. It needs .venv-asc (scripts/asc-venv).
final class FakeASC {
    static var shouldRun: Bool { FakeAppStoreConnectProcess.shouldRun }

    private let fake: FakeAppStoreConnectProcess
    var baseURL: String { fake.baseURL }
    private let folder: TemporaryFolder
    private let control = URLSessionTransport(timeout: 30)

    init(pageSize: Int = 2, partSize: Int = 1024, processingPolls: Int = 2) throws {
        folder = try TemporaryFolder()
        let key = try folder.file("public.pem", ThrowawayKeys.rfc6979PublicKeyPEM, mode: 0o644)
        fake = try FakeAppStoreConnectProcess(
            publicKeyPath: key,
            arguments: ["--page-size", "\(pageSize)", "--part-size", "\(partSize)", "--processing-polls", "\(processingPolls)"])
    }

    /// A client of this fake with the RFC 6979 key, the given sleeper and fixed jitter.
    func client(
        sleeper: @escaping ASCClient.Sleeper, transportTimeout: Double = 30,
        configuration: ASCClient.Configuration = .init(imagePollInterval: 0.5)
    ) throws -> ASCClient {
        let credentials = try ASCCredentials(keyID: exampleKeyID, issuerID: exampleIssuerID, privateKey: P256PrivateKey(pem: rfc6979KeyPEM))
        return try ASCClient(
            baseURL: baseURL, tokens: ASCTokenCache(credentials: credentials), transport: URLSessionTransport(timeout: transportTimeout),
            configuration: configuration, sleeper: sleeper, random: { 0.5 })
    }

    // MARK: - Control endpoints

    @discardableResult
    func control(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let request = ASCHTTPRequest(
            method: method, url: URL(string: baseURL + path)!, headers: body == nil ? [] : [("Content-Type", "application/json")],
            body: body.map { JSONWriter.bytes($0) })
        let response = try await control.send(request)
        guard response.status == 200 else {
            throw FakeAppStoreConnectProcess.Unavailable(description: "\(method) \(path): \(response.status)")
        }
        return try JSONParser.parse(response.body)
    }

    /// Puts resources in the fake: `relationships` are name → id or [ids].
    @discardableResult
    func seed(_ resources: [JSONValue]) async throws -> [String] {
        let answer = try await control("POST", "/__fake/seed", ["resources": .array(resources)])
        return (answer["created"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    func inject(_ faults: [JSONValue]) async throws {
        try await control("POST", "/__fake/faults", ["faults": .array(faults)])
    }

    /// What the fake found against Apple's specification (must stay empty).
    func violations() async throws -> [String] {
        (try await control("GET", "/__fake/violations")["violations"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Every request to /v1 and to the upload URLs: "METHOD path status".
    func requests() async throws -> [String] {
        (try await control("GET", "/__fake/requests")["requests"]?.arrayValue ?? []).map { request in
            let status = request["status"].map { JSONWriter.string($0) } ?? ""
            return "\(request["method"]?.stringValue ?? "") \(request["path"]?.stringValue ?? "") \(status)"
        }
    }

    /// Every resource the fake holds, removed ones included.
    func state() async throws -> [JSONValue] {
        try await control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
    }

    // MARK: - Seeds

    /// An app (`com.example.bikes`, primary locale en-US) with its App Clip and two versions: 1.0
    /// live, 1.1 being prepared.
    func seedBikesApp() async throws {
        try await seed([
            [
                "type": "apps", "id": "6400000001",
                "attributes": ["bundleId": "com.example.bikes", "name": "Bikes", "primaryLocale": "en-US"],
            ],
            [
                "type": "apps", "id": "6400000002",
                "attributes": ["bundleId": "com.example.other", "name": "Other", "primaryLocale": "en-US"],
            ],
            [
                "type": "appClips", "id": "clip-1", "attributes": ["bundleId": "com.example.bikes.Clip"],
                "relationships": ["app": "6400000001"],
            ],
            [
                "type": "appClips", "id": "clip-2", "attributes": ["bundleId": "com.example.other.Clip"],
                "relationships": ["app": "6400000002"],
            ],
            [
                "type": "appStoreVersions", "id": "v-live",
                "attributes": [
                    "versionString": "1.0", "platform": "IOS", "appVersionState": "READY_FOR_DISTRIBUTION",
                    "appStoreState": "READY_FOR_SALE",
                ],
                "relationships": ["app": "6400000001"],
            ],
            [
                "type": "appStoreVersions", "id": "v-edit",
                "attributes": [
                    "versionString": "1.1", "platform": "IOS", "appVersionState": "PREPARE_FOR_SUBMISSION",
                    "appStoreState": "PREPARE_FOR_SUBMISSION",
                ],
                "relationships": ["app": "6400000001"],
            ],
        ])
    }

    /// `count` advanced experiences of clip-1 (https://bikes.example/store/N), each with a processed
    /// image and an English localization.
    func seedAdvancedExperiences(_ count: Int) async throws {
        var resources: [JSONValue] = []
        for n in 0..<count {
            resources.append([
                "type": "appClipAdvancedExperienceImages", "id": .string("img-\(n)"),
                "attributes": [
                    "fileName": "store.png", "fileSize": 3, "sourceFileChecksum": "0", "assetDeliveryState": ["state": "COMPLETE"],
                ],
            ])
            resources.append([
                "type": "appClipAdvancedExperienceLocalizations", "id": .string("loc-\(n)"),
                "attributes": ["language": "EN", "title": .string("Store \(n)"), "subtitle": "Rent a bike"],
            ])
            resources.append([
                "type": "appClipAdvancedExperiences", "id": .string("exp-\(n)"),
                "attributes": [
                    "link": .string("https://bikes.example/store/\(n)"), "isPoweredBy": false, "defaultLanguage": "EN", "action": "OPEN",
                    "businessCategory": "BIKES", "status": "RECEIVED", "version": 1,
                ],
                "relationships": ["appClip": "clip-1", "headerImage": .string("img-\(n)"), "localizations": [.string("loc-\(n)")]],
            ])
        }
        try await seed(resources)
    }
}

/// A sleeper that records the waits asked for and does not wait.
final class RecordingSleeper: Sendable {
    private let recorded = Locked<[Double]>([])
    var waits: [Double] { recorded.withLock { $0 } }
    var sleeper: ASCClient.Sleeper { { seconds in self.recorded.withLock { $0.append(seconds) } } }
}

/// A PNG-sized test image: `count` deterministic bytes.
func imageBytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}
