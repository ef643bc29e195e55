import Foundation
import StrictJSON
import SystemCrypto
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `clipctl asc link|plan|status`, the built binary against the fake App Store Connect
/// (scripts/fake-asc; .venv-asc from scripts/asc-venv), which checks every request against Apple's specification.
final class FakeASCProcess {
    static var shouldRun: Bool { FakeAppStoreConnectProcess.shouldRun }
    static let privateKeyPEM = ThrowawayKeys.rfc6979PrivateKeyPEM
    static let keyID = ThrowawayKeys.exampleKeyID
    static let issuerID = ThrowawayKeys.exampleIssuerID

    private let fake: FakeAppStoreConnectProcess
    var baseURL: String { fake.baseURL }

    init(folder: URL, arguments: [String] = []) throws {
        let key = folder.appendingPathComponent("fake-public.pem")
        try Data(ThrowawayKeys.rfc6979PublicKeyPEM.utf8).write(to: key)
        fake = try FakeAppStoreConnectProcess(publicKeyPath: key.path, arguments: arguments)
    }

    /// The advanced experiences App Store Connect holds now (removed ones left out): link → title of each card, by language.
    func experiences() throws -> [String: [String: String]] {
        let resources = try control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        func of(_ type: String) -> [JSONValue] { resources.filter { $0["type"]?.stringValue == type } }
        let localizations = Dictionary(
            of("appClipAdvancedExperienceLocalizations").map { ($0["id"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        var result: [String: [String: String]] = [:]
        for experience in of("appClipAdvancedExperiences") where experience["removed"]?.boolValue != true {
            let link = experience["attributes"]?["link"]?.stringValue ?? ""
            #expect(result[link] == nil, "App Store Connect holds \(link) twice")
            var cards: [String: String] = [:]
            for id in experience["relationships"]?["localizations"]?.arrayValue ?? [] {
                let l = localizations[id.stringValue ?? ""]
                cards[l?["attributes"]?["language"]?.stringValue ?? "?"] = l?["attributes"]?["title"]?.stringValue ?? ""
            }
            result[link] = cards
        }
        return result
    }

    /// Advanced experience images no live experience names: reservations an interrupted apply left, or images replaced.
    func unusedImages() throws -> [String] {
        let resources = try control("GET", "/__fake/state")["resources"]?.arrayValue ?? []
        let used = Set(
            resources.filter { $0["type"]?.stringValue == "appClipAdvancedExperiences" && $0["removed"]?.boolValue != true }
                .compactMap { $0["relationships"]?["headerImage"]?.stringValue })
        return resources.filter { $0["type"]?.stringValue == "appClipAdvancedExperienceImages" }.compactMap { $0["id"]?.stringValue }
            .filter { !used.contains($0) }
    }

    /// Requests that change App Store Connect (POST, PATCH, DELETE and upload PUTs) so far.
    func writes() throws -> Int {
        (try control("GET", "/__fake/requests")["requests"]?.arrayValue ?? []).filter { $0["method"]?.stringValue != "GET" }.count
    }

    func inject(_ faults: [JSONValue]) throws { try control("POST", "/__fake/faults", ["faults": .array(faults)]) }

    @discardableResult
    func control(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(JSONWriter.bytes(body))
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        final class Box: @unchecked Sendable { var data: Data?; var status = 0 }  // written before signal, read after wait
        let box = Box(), done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.data = data
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        guard box.status == 200, let data = box.data else {
            throw FakeAppStoreConnectProcess.Unavailable(description: "\(method) \(path): \(box.status)")
        }
        return try JSONParser.parse([UInt8](data))
    }

    func violations() throws -> [String] {
        (try control("GET", "/__fake/violations")["violations"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The bikes app (primary locale en-US) with its App Clip, and two advanced experiences: /rent (the
    /// header image whose MD5 is `imageMD5`) and /old (only there).
    func seed(imageMD5: String) throws {
        func experience(_ id: String, _ link: String, title: String, image: String?) -> [JSONValue] {
            var relationships: JSONValue = ["appClip": "clip-1", "localizations": [.string("loc-\(id)")]]
            if let image { relationships = ["appClip": "clip-1", "localizations": [.string("loc-\(id)")], "headerImage": .string(image)] }
            return [
                [
                    "type": "appClipAdvancedExperienceLocalizations", "id": .string("loc-\(id)"),
                    "attributes": ["language": "EN", "title": .string(title), "subtitle": "Unlock one in seconds"],
                ],
                [
                    "type": "appClipAdvancedExperiences", "id": .string(id),
                    "attributes": [
                        "link": .string(link), "isPoweredBy": false, "defaultLanguage": "EN", "action": "OPEN", "businessCategory": "BIKES",
                        "status": "RECEIVED", "version": 1,
                    ],
                    "relationships": relationships,
                ],
            ]
        }
        let resources: [JSONValue] =
            [
                [
                    "type": "apps", "id": "6400000001",
                    "attributes": ["bundleId": "com.example.bikes", "name": "Bikes", "primaryLocale": "en-US"],
                ],
                [
                    "type": "appClips", "id": "clip-1", "attributes": ["bundleId": "com.example.bikes.Clip"],
                    "relationships": ["app": "6400000001"],
                ],
                [
                    "type": "appClipAdvancedExperienceImages", "id": "img-rent",
                    "attributes": [
                        "fileName": "rent.png", "fileSize": 3, "sourceFileChecksum": .string(imageMD5),
                        "assetDeliveryState": ["state": "COMPLETE"],
                    ],
                ],
            ] + experience("exp-rent", "https://bikesrental.example/rent", title: "Rent a bike", image: "img-rent")
            + experience("exp-store", "https://bikesrental.example/store", title: "Old title", image: "img-rent")
            + experience("exp-old", "https://bikesrental.example/old", title: "Only there", image: nil)
        try control("POST", "/__fake/seed", ["resources": .array(resources)])
    }
}

@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectProcessTests {
    static let clip = "ABCDE12345.com.example.bikes.Clip"

    /// A registry of three bikes experiences (one as App Store Connect has it, one with another title, one new)
    /// and clipctl configured for the fake through the environment.
    static func setUp() throws -> (Clipctl, FakeASCProcess) {
        var clipctl = try Clipctl()
        let fake = try FakeASCProcess(folder: clipctl.directory)
        try prepare(&clipctl, fake)
        return (clipctl, fake)
    }

    /// The seeded fake, the key, /rent, /store and /new registered, and the environment naming the fake.
    static func prepare(_ clipctl: inout Clipctl, _ fake: FakeASCProcess) throws {
        let image = TestImages.png(width: 1800, height: 1200, grey: 1)
        try Data(image).write(to: URL(fileURLWithPath: clipctl.file("rent.png")))
        try fake.seed(imageMD5: Digest.hex(try Digest.md5(image)))
        try clipctl.write("AuthKey.p8", FakeASCProcess.privateKeyPEM)
        #expect(chmod(clipctl.file("AuthKey.p8"), 0o600) == 0)
        for (path, title) in [("/rent", "Rent a bike"), ("/store", "New title"), ("/new", "Brand new")] {
            let r = try clipctl(
                "register", "https://bikesrental.example\(path)", "--clip", clip, "--title", title, "--subtitle", "Unlock one in seconds",
                "--category", "BIKES", "--image", "rent.png")
            #expect(r.code == 0, "\(r.err)")
        }
        clipctl.environment["ASC_KEY_ID"] = FakeASCProcess.keyID
        clipctl.environment["ASC_ISSUER_ID"] = FakeASCProcess.issuerID
        clipctl.environment["ASC_PRIVATE_KEY_PATH"] = clipctl.file("AuthKey.p8")
        clipctl.environment["ASC_API_URL"] = fake.baseURL
        // Backoffs and image waits at a fifth: the fake processes an image in 0.2 s, the first read comes after 0.4 s.
        clipctl.environment["CLIP_ASC_WAIT_SCALE"] = "0.2"
    }

    @Test func linkPlanAndStatusAgainstASeededFake() throws {
        let (clipctl, fake) = try Self.setUp()
        let link = try clipctl("asc", "link", Self.clip)
        #expect(link.code == 0, "\(link.err)")
        #expect(
            link.out.hasPrefix(
                "linked \(Self.clip) → App Store Connect app 6400000001 (com.example.bikes, primary locale en-US), App Clip clip-1"))
        // The same link again (by bundle ID): nothing changes, the first link's time stays.
        let first = try clipctl("--json", "asc", "link", "com.example.bikes.Clip")
        let again = try clipctl("--json", "asc", "link", "com.example.bikes.Clip")
        #expect(again.code == 0)
        #expect(again.out == first.out)
        #expect(try JSONParser.parse(Array(again.out.utf8))["created"] == false)

        let plan = try clipctl("asc", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("create   3   https://bikesrental.example/new"))
        #expect(plan.out.contains("update   2   https://bikesrental.example/store  exp-store"))
        #expect(plan.out.contains("localizations.EN.title: Old title → New title"))
        // An experience in step is counted, not listed (a chain's plan lists what changes).
        #expect(plan.out.contains("1 experience already in step with App Store Connect (not listed; --json lists every step)"))
        #expect(!plan.out.contains("https://bikesrental.example/rent "))
        #expect(plan.out.contains("nothing  -   https://bikesrental.example/old    exp-old"))
        #expect(plan.out.contains("pending: 1 create, 1 update"))
        #expect(try clipctl("asc", "plan", "--detailed-exitcode").code == 2)
        // --prune removes what only App Store Connect has; nothing else changes.
        let pruned = try JSONParser.parse(Array(try clipctl("--json", "asc", "plan", "--prune", "--clip", Self.clip).out.utf8))
        let actions = (pruned["steps"]?.arrayValue ?? []).map { "\($0["url"]?.stringValue ?? "") \($0["action"]?.stringValue ?? "")" }
        #expect(
            actions == [
                "https://bikesrental.example/new create", "https://bikesrental.example/rent nothing",
                "https://bikesrental.example/store update", "https://bikesrental.example/old remove",
            ])

        let status = try clipctl("asc", "status")
        #expect(status.code == 0, "\(status.err)")
        #expect(status.out.contains("in-sync   1   https://bikesrental.example/rent   exp-rent   RECEIVED"))
        #expect(status.out.contains("pending   2   https://bikesrental.example/store  exp-store  RECEIVED"))
        #expect(status.out.contains("1 in-sync, 2 pending, 1 asc-only"))

        // In sync once the registry says what App Store Connect says: exit 0 under --detailed-exitcode.
        #expect(try clipctl("update", "2", "--title", "Old title").code == 0)
        #expect(try clipctl("remove", "3").code == 0)
        let synced = try clipctl("asc", "plan", "--detailed-exitcode")
        #expect(synced.code == 0, "\(synced.out)")
        #expect(synced.out.contains("in sync: nothing to do"))

        // The key is in no output, and not in the database.
        let keyLines = FakeASCProcess.privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        var stored = Data()
        for suffix in ["", "-wal"] { stored += (try? Data(contentsOf: URL(fileURLWithPath: clipctl.file("clips.db" + suffix)))) ?? Data() }
        let outputs =
            [link, first, again, plan, status, synced].map { $0.out + $0.err }.joined() + (try clipctl("changes", "--limit", "1000").out)
        for line in keyLines {
            #expect(!outputs.contains(line))
            #expect(stored.range(of: Data(line.utf8)) == nil)
        }
        #expect(!outputs.contains("PRIVATE KEY"))
        #expect(stored.range(of: Data("PRIVATE KEY".utf8)) == nil)
        #expect(try fake.violations() == [])
    }

    @Test func badKeyWrongIssuerAndAClipNotInASCAreRefusedClearlyAndChangeNothing() throws {
        var (clipctl, fake) = try Self.setUp()
        #expect(try clipctl("clip", "add", "ABCDE12345.com.example.bikes.Other").code == 0)
        let before = try clipctl.state()

        // A clip App Store Connect does not have.
        let missing = try clipctl("asc", "link", "ABCDE12345.com.example.bikes.Other")
        #expect(missing.code == 1)
        #expect(missing.err.contains("App Store Connect's app com.example.bikes (6400000001) has no App Clip com.example.bikes.Other"))
        let unlinked = try clipctl("asc", "status", "--clip", "ABCDE12345.com.example.bikes.Other")
        #expect(unlinked.code == 1)
        #expect(unlinked.err.contains("is not linked: run clipctl asc link"))
        // Not in the registry at all.
        #expect(try clipctl("asc", "link", "ABCDE12345.com.example.nowhere.Clip").code == 1)
        // Nothing linked yet: plan says what to do first.
        let nothing = try clipctl("asc", "plan")
        #expect(nothing.code == 1)
        #expect(nothing.err.contains("no clip is linked"))

        // A wrong issuer: the fake refuses the token (401 twice).
        var wrongIssuer = clipctl
        wrongIssuer.environment["ASC_ISSUER_ID"] = "00000000-0000-0000-0000-000000000000"
        let refused = try wrongIssuer.run(["asc", "link", Self.clip])
        #expect(refused.code == 1)
        #expect(refused.err.contains("App Store Connect refused the key"))

        // A key that is no key: a usage error naming the file, never its content.
        try clipctl.write("bad.p8", "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
        #expect(chmod(clipctl.file("bad.p8"), 0o600) == 0)
        let bad = try clipctl("asc", "link", Self.clip, "--private-key", clipctl.file("bad.p8"))
        #expect(bad.code == 64)
        #expect(bad.err.contains("the private key (--private-key \(clipctl.file("bad.p8"))) is not usable"))
        #expect(!bad.err.contains("bm90IGEga2V5"))
        // No credentials at all.
        clipctl.environment["ASC_KEY_ID"] = nil
        let none = try clipctl("asc", "link", Self.clip)
        #expect(none.code == 64)
        #expect(none.err.contains("no "))

        // link and pull read the database itself: --server is a usage error, not a silent local run.
        for command in ["link", "pull"] {
            let remote = try clipctl.run(["asc", command] + (command == "link" ? [Self.clip] : []) + ["--server", "http://127.0.0.1:9"])
            #expect(remote.code == 64)
            #expect(remote.err.contains("works on the database itself"))
        }

        #expect(try clipctl.state() == before)
        clipctl.environment["ASC_KEY_ID"] = FakeASCProcess.keyID
        #expect(try clipctl("asc", "plan").err.contains("no clip is linked"))
        #expect(try fake.violations() == [])
    }
}
