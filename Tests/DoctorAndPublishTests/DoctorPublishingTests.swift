import Foundation
import AppleFormats
import ClipCore
import FileFormats
import StrictJSON
import Testing
@testable import DoctorAndPublish

struct DoctorTests {
    let clip = try! AppID("ABCDE12345.com.shop.app.Clip")

    func experience(
        _ url: String, id: Int64 = 1, title: String = "Shop", subtitle: String = "Order ahead", clip: AppID? = nil,
        more: [Language: CardText] = [:]
    ) throws -> AdvancedExperience {
        var localizations = more
        localizations[.EN] = CardText(title: title, subtitle: subtitle)
        return AdvancedExperience(
            id: id, url: try NormalizedURL(url), clip: clip ?? self.clip, action: .open, defaultLanguage: .EN,
            isPoweredBy: false, businessCategory: nil, localizations: localizations, headerImage: nil, place: nil,
            status: .active, version: 1, createdAt: "", updatedAt: "")
    }

    func snapshot(
        _ experiences: [AdvancedExperience], hosts: [String] = ["shop.example"], appStoreID: String? = "123",
        withDefault: Bool = true, content: AASAContent? = nil
    ) throws -> Doctor.Snapshot {
        let app = App(
            bundleID: try BundleID("com.shop.app"), team: try TeamID("ABCDE12345"), appStoreID: try appStoreID.map { try AppStoreID($0) },
            name: "Shop")
        return Doctor.Snapshot(
            apps: [app], clips: [Clip(appID: clip, appBundleID: app.bundleID, hosts: hosts)],
            defaults: withDefault
                ? [DefaultExperience(clip: clip, action: .open, localizations: ["en-US": .init(subtitle: "Order ahead")])] : [],
            experiences: experiences,
            hosts: hosts.map { Doctor.HostFile(content: content ?? AASAContent(host: $0, clips: [clip])) })
    }

    func codes(_ s: Doctor.Snapshot) -> [String] { Doctor.examine(s).map { "\($0.severity.rawValue) \($0.code)" } }

    @Test func aHealthyRegistryHasNoFindings() throws {
        #expect(codes(try snapshot([try experience("https://shop.example/order")])) == [])
    }

    @Test func eachMistakeIsFoundWithItsFix() throws {
        let findings = Doctor.examine(
            try snapshot(
                [
                    try experience(
                        "https://shop.example/order", title: "A title of nineteen",
                        more: [.FR: CardText(title: "Commande", subtitle: "Vite")]),
                    try experience("https://shop.example/pay", id: 2, subtitle: String(repeating: "s", count: 44)),
                    try experience("https://other.example/x", id: 3),
                    try experience("https://shop2.example/~me", id: 4),
                ], appStoreID: nil, withDefault: false))
        let seen = findings.map { "\($0.severity.rawValue) \($0.code) \($0.subject)" }
        #expect(
            seen == [
                "error host-not-associated other.example",
                "error host-not-associated shop2.example",
                "warning app-clip-code https://shop2.example/~me",
                "warning localization-set ABCDE12345.com.shop.app.Clip",
                "warning no-app-store-id com.shop.app",
                "warning no-default-experience ABCDE12345.com.shop.app.Clip",
                "warning subtitle-length https://shop.example/pay",
                "warning title-length https://shop.example/order",
            ])
        #expect(findings[0].fix == "clipctl domain add ABCDE12345.com.shop.app.Clip other.example")
        #expect(findings[2].message.contains("'2'") && findings[2].message.contains("'~'"))
        #expect(findings[3].message.hasPrefix("3 of the clip's 4 experiences have no fr card"))
        // Each finding names a declared rule: what `doctor ack` accepts is what the checks report.
        #expect(findings.allSatisfy { Doctor.Rule(rawValue: $0.code) != nil }, "\(findings.map(\.code))")
    }

    /// ISO/IEC 18004:2015 Table 7: version 10 at level M holds 213 bytes in byte mode; one more needs version 11.
    @Test func aURLPastQRVersion10AtLevelMIsWarnedAbout() throws {
        let prefix = "https://shop.example/"
        let fits = prefix + String(repeating: "a", count: 213 - prefix.utf8.count)
        let over = fits + "a"
        let findings = Doctor.examine(try snapshot([try experience(fits), try experience(over, id: 2)]))
        #expect(findings.map { "\($0.severity.rawValue) \($0.code) \($0.subject)" } == ["warning qr-version \(over)"])
        #expect(findings[0].message.contains("version 11"))
        #expect(findings[0].message.contains("61 modules"))
        #expect(findings[0].fix?.contains("shorter URL") == true)
        #expect(QRCodeSize.versionAboveAdvised(fits) == nil)
        #expect(QRCodeSize.versionAboveAdvised(over) == 11)
        // Digits pack tighter (numeric mode): a long run of them still fits version 10.
        #expect(QRCodeSize.versionAboveAdvised(prefix + String(repeating: "7", count: 300)) == nil)
    }

    @Test func hostFilesAreLintedSizedAndTheirGeneratedApplinksVerified() throws {
        let app = try AppID("ABCDE12345.com.shop.app")
        let order = try experience("https://shop.example/order")
        let excluded = AASAContent(
            host: "shop.example", clips: [clip],
            details: [ApplinksDetails(app: app, components: [["/": "/order/*", "exclude": true]])],
            generated: [.init(app: app, urls: [order.url])])
        #expect(codes(try snapshot([order], content: excluded)) == ["error applinks-miss"])
        let big = JSONValue.array((0..<2600).map { .object(["/": .string("/a-fairly-long-path/segment/\($0)/*")]) })
        let nearlyFull = AASAContent(host: "shop.example", clips: [clip], details: [ApplinksDetails(app: app, components: big)])
        #expect(codes(try snapshot([order], content: nearlyFull)) == ["warning aasa-size"])
        let tooBig = AASAContent(
            host: "shop.example", clips: [clip],
            details: [ApplinksDetails(app: app, components: .array(Array(repeating: big.arrayValue![0], count: 4000)))])
        #expect(codes(try snapshot([order], content: tooBig)) == ["error aasa-size"])
        let catchAll = AASAContent(
            host: "shop.example", clips: [clip], details: [ApplinksDetails(app: app, components: [["/": "*"], ["/": "/x"]])])
        #expect(codes(try snapshot([order], content: catchAll)) == ["warning aasa-lint", "warning aasa-lint"])
    }

    @Test func appClipCodeRules() throws {
        #expect(AppClipCode.problems(try NormalizedURL("https://appclip.shop.example/buy?p=1&p1=ab")) == [])
        #expect(AppClipCode.problems(try NormalizedURL("https://h1.example/a")) == ["the host has '1'; only a–z, '.' and '-' are allowed"])
        #expect(AppClipCode.problems(try NormalizedURL("https://shop.example/a(b)")).count == 1)
    }
}

struct StaticSiteTests {
    /// `--banner-names path` (docs/aasa-tools.md): the page's path as the web team thinks of it, and a digest wherever a
    /// name would lose anything, so two pages never share a file.
    @Test func bannersNamedByPagePathAreReadableAndNeverShared() throws {
        func name(_ url: String) throws -> String { StaticSite.pagePath(try NormalizedURL(url)) }
        #expect(try name("https://ride.example/s/paris/par007") == "s/paris/par007")
        #expect(try name("https://ride.example/") == "index")
        // A trailing "/" is insignificant (docs/rules.md): `/store/` is the page `/store`.
        #expect(try name("https://ride.example/store/") == "store")
        #expect(try name("https://ride.example/s/paris_north-1.v2") == "s/paris_north-1.v2")
        // Upper case is kept and told apart by a digest, for file systems blind to case.
        let (upper, lower) = (try name("https://ride.example/s/Q"), try name("https://ride.example/s/q"))
        #expect(upper.hasPrefix("s/Q~") && lower == "s/q" && upper.lowercased() != lower)
        let lossy = [
            "https://ride.example/store/index", "https://ride.example/rent?id=4", "https://ride.example/rent?id=5",
            "https://ride.example/caf%C3%A9", "https://ride.example/.hidden", "https://ride.example/a%20b",
        ]
        let names = try lossy.map(name)
        #expect(Set(names).count == lossy.count, "\(names)")
        for n in names {
            #expect(n.range(of: #"~[0-9a-f]{12}$"#, options: .regularExpression) != nil, "\(n)")
            #expect(!n.split(separator: "/").contains { $0.hasPrefix(".") }, "no hidden file or .. segment: \(n)")
        }
        #expect(names[1].hasPrefix("rent~") && names[0].hasPrefix("store/index~"))
        // A file never meets a folder, and folders that differ in case, or by a trailing dot, never meet.
        let pages = [
            "https://ride.example/a", "https://ride.example/a.html/x", "https://ride.example/a.HTML/x", "https://ride.example/s",
            "https://ride.example/s.html/x", "https://ride.example/index.html/y", "https://ride.example/s/a./x",
            "https://ride.example/s/a/x",
            "https://ride.example/S/a/x",
        ]
        let pageFiles = try pages.map { try name($0) + ".html" }
        var folders: Set<String> = []
        for file in pageFiles {
            let parts = file.split(separator: "/")
            for depth in 1..<max(parts.count, 1) { folders.insert(parts.prefix(depth).joined(separator: "/").lowercased()) }
        }
        #expect(Set(pageFiles.map { $0.lowercased() }).count == pageFiles.count, "\(pageFiles)")
        #expect(folders.isDisjoint(with: pageFiles.map { $0.lowercased() }), "\(pageFiles)")
        #expect(!pageFiles.contains { $0.split(separator: "/").dropLast().contains { $0.hasSuffix(".") } }, "\(pageFiles)")
        let banner = StaticSite.Banner(
            experienceID: 7, url: try NormalizedURL("https://ride.example/s/paris/par007"), metaTag: "<meta name=\"apple-itunes-app\">")
        let files = StaticSite.files(aasa: [], banners: [banner], bannerNames: .path, nginx: .init(root: "/srv"))
        #expect(files.map(\.path).contains("ride.example/banners/s/paris/par007.html"))
        #expect(!files.map(\.path).contains("ride.example/banners/7.html"))
    }

    @Test func filesAreSortedIndexedAndDeterministic() throws {
        let url = try NormalizedURL("https://b.example/order")
        let aasa: [(host: String, bytes: [UInt8])] = [("b.example", Array("{\"b\":1}".utf8)), ("a.example", Array("{\"a\":1}".utf8))]
        let banners = [StaticSite.Banner(experienceID: 7, url: url, metaTag: "<meta name=\"apple-itunes-app\" content=\"x\">")]
        let files = StaticSite.files(aasa: aasa, banners: banners, nginx: .init(root: "/srv/aasa"))
        #expect(
            files.map(\.path) == [
                "a.example/.well-known/apple-app-site-association", "b.example/.well-known/apple-app-site-association",
                "b.example/banners/7.html", "index.json", "nginx.conf.sample",
            ])
        #expect(StaticSite.files(aasa: aasa.reversed(), banners: banners, nginx: .init(root: "/srv/aasa")) == files)
        let index = try JSONParser.parse(files[3].bytes)
        let listed = index["files"]?.arrayValue ?? []
        #expect(listed.count == 4)
        for entry in listed {
            let file = files.first { $0.path == entry["path"]?.stringValue }
            #expect(file.map { SHA256.hexDigest($0.bytes) } == entry["sha256"]?.stringValue)
        }
        let nginx = String(decoding: files[4].bytes, as: UTF8.self)
        #expect(nginx.contains("server_name a.example;") && nginx.contains("root /srv/aasa/b.example;"))
        #expect(nginx.contains("listen 443 ssl;") && nginx.contains("ssl_certificate_key"))
        #expect(nginx.contains("default_type application/json;"))
    }

    @Test func onlyAnEarlierPublishOfThisFormatIsReplacedAndTheChangesAreExact() throws {
        let aasa: [(host: String, bytes: [UInt8])] = [("a.example", Array("{}".utf8))]
        let files = StaticSite.files(aasa: aasa, banners: [], nginx: .init(root: "/srv"))
        let index = files.first { $0.path == StaticSite.indexName }!.bytes
        let listed = try #require(StaticSite.listedFiles(index: index))
        #expect(listed.keys.sorted() == ["a.example/.well-known/apple-app-site-association", "nginx.conf.sample"])
        #expect(StaticSite.listedFiles(index: Array(#"{"files":[],"hosts":[]}"#.utf8)) == nil, "no format marker")
        #expect(StaticSite.listedFiles(index: Array(#"{"format":"clip-registry-publish","formatVersion":2,"files":[]}"#.utf8)) == nil)

        var onDisk: [String: StaticSite.Entry] = ["a.example": .directory, "a.example/.well-known": .directory]
        for file in files { onDisk[file.path] = .file(sha256: SHA256.hexDigest(file.bytes)) }
        func changes(_ existing: [String: StaticSite.Entry]?, _ new: [StaticSite.File] = files, index: [UInt8]? = index) -> Result<
            StaticSite.Changes, StaticSite.Refusal
        > {
            StaticSite.changes(replacing: existing, with: new) { index }
        }
        #expect(try changes(nil).get().added == files.map(\.path))
        #expect(try changes([:]).get().added.count == 3)
        #expect(try changes(onDisk).get() == StaticSite.Changes(unchanged: files.map(\.path)))

        let next = StaticSite.files(aasa: [("b.example", Array("{}".utf8))], banners: [], nginx: .init(root: "/srv"))
        let replaced = try changes(onDisk, next).get()
        #expect(
            replaced.added == ["b.example/.well-known/apple-app-site-association"]
                && replaced.removed == ["a.example/.well-known/apple-app-site-association"])
        #expect(replaced.changed == ["index.json", "nginx.conf.sample"])

        var foreign = onDisk
        foreign["cert.pem"] = .file(sha256: "00")
        foreign["nginx.conf.sample"] = .file(sha256: "11")
        foreign["a.example/link"] = .other
        foreign["empty"] = .directory
        guard case .failure(let refusal) = changes(foreign) else { Issue.record("accepted"); return }
        #expect(refusal.foreign.map(\.path) == ["a.example/link", "cert.pem", "empty", "nginx.conf.sample"])
        #expect(
            refusal.foreign.map(\.why) == [
                "not a regular file", "not listed in index.json", "a folder publish did not make", "changed since it was published",
            ])
        guard case .failure(let unmarked) = changes(onDisk, index: Array(#"{"files":[]}"#.utf8)) else { Issue.record("accepted"); return }
        #expect(unmarked.foreign.map(\.path) == ["a.example/.well-known/apple-app-site-association", "index.json", "nginx.conf.sample"])
    }
}

/// docs/schedules.md#what-the-doctor-says: a windowed URL that matches nothing outside its window is a warning, unless
/// a broader experience or a default experience answers then, or that side of the window is past.
struct DoctorWindowTests {
    let base = DoctorTests()

    func windowed(_ url: String, id: Int64, from: String?, until: String?) throws -> AdvancedExperience {
        var e = try base.experience(url, id: id)
        e.liveFrom = from.map { Instant(canonical: Array($0.utf8))! }
        e.liveUntil = until.map { Instant(canonical: Array($0.utf8))! }
        return e
    }

    func dark(_ s: Doctor.Snapshot) -> [String] {
        Doctor.examine(s).filter { $0.code == "window-dark" }.map { "\($0.subject) \($0.message.prefix(12))" }
    }

    @Test func aWindowedURLThatWouldMatchNothingIsWarnedOfOnEachSideThatIsToCome() throws {
        let summer = try windowed("https://shop.example/summer", id: 1, from: "2027-06-01T00:00:00Z", until: "2027-09-01T00:00:00Z")
        #expect(
            dark(try base.snapshot([summer], withDefault: false)) == [
                "https://shop.example/summer before it st", "https://shop.example/summer from its end",
            ])
        // A default experience of the host's clip, or an experience on a shorter path, answers outside the window.
        #expect(dark(try base.snapshot([summer], withDefault: true)) == [])
        #expect(dark(try base.snapshot([summer, try base.experience("https://shop.example/", id: 2)], withDefault: false)) == [])
        // Live now: only its end is to come; ended, deactivated or unwindowed: nothing.
        var live = try base.snapshot([summer], withDefault: false)
        live.now = Instant(canonical: Array("2027-07-01T00:00:00Z".utf8))!
        #expect(dark(live) == ["https://shop.example/summer from its end"])
        live.now = Instant(canonical: Array("2027-09-01T00:00:00Z".utf8))!
        #expect(dark(live) == [])
        var off = summer
        off.status = .deactivated
        #expect(dark(try base.snapshot([off, try base.experience("https://shop.example/x", id: 3)], withDefault: false)) == [])
    }
}
