import ClipCore
import StrictJSON
import Testing

/// The pure rules of webhooks: subscriptions, the signed content, the retry schedule, and which
/// targets are refused (SSRF).
struct WebhookRulesTests {
    @Test func patternsMatchTypesAndFamilies() throws {
        let p = try WebhookEventPatterns("experience.*, aasa.changed")
        #expect(p.patterns == ["experience.*", "aasa.changed"])
        #expect(p.matches(.experienceCreated) && p.matches(.experienceDeleted) && p.matches(.aasaChanged))
        #expect(!p.matches(.ascApplied))
        #expect(p.matches(.webhookTest))  // a test reaches every endpoint
        #expect(try WebhookEventPatterns("*").matches(.ascApplied))
        #expect(try WebhookEventPatterns("asc.applied,asc.applied").patterns == ["asc.applied"])
        #expect(!(try WebhookEventPatterns("experience.created")).matches(.experienceUpdated))
    }

    @Test(arguments: ["", ",", "experience.*,", "experience", "experiences.*", "aasa.changed.x", "webhook.test", "EXPERIENCE.*", "exp*"])
    func unknownPatternsAreRefused(_ text: String) {
        #expect(throws: ValidationFailure.self) { try WebhookEventPatterns(text) }
    }

    @Test func experienceEventsOfActions() {
        #expect(WebhookEventType.experience(.create) == .experienceCreated)
        #expect(WebhookEventType.experience(.remove) == .experienceDeleted)
        for action in [ChangeAction.update, .activate, .deactivate] { #expect(WebhookEventType.experience(action) == .experienceUpdated) }
    }

    @Test func payloadsCarryWhatReceiversNeed() throws {
        let full = try JSONParser.parse(
            #"{"id":7,"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","version":3,"status":"ACTIVE","title":"T"}"#)
        #expect(
            WebhookPayload.experience(.experienceCreated, before: nil, after: full).map { JSONWriter.string($0) }
                == #"{"id":7,"url":"https://a.example/x","team":"ABCDE12345","clip":"ABCDE12345.com.a.app.Clip","version":3,"#
                + #""status":"ACTIVE"}"#
        )
        #expect(
            JSONWriter.string(
                WebhookPayload.envelope(
                    type: .aasaChanged, timestamp: "t", data: WebhookPayload.aasaChanged(host: "a.example", etag: "\"ab\"")))
                == #"{"type":"aasa.changed","timestamp":"t","data":{"host":"a.example","etag":"\"ab\"","removed":false}}"#)
        #expect(
            JSONWriter.string(WebhookPayload.aasaChanged(host: "a.example", etag: nil))
                == #"{"host":"a.example","etag":null,"removed":true}"#)
    }

    /// An update's event names the members it changed, in the object's order, never the bookkeeping
    /// every write changes; an update that changed none has no event.
    @Test func anUpdateNamesWhatItChanged() throws {
        let before = try JSONParser.parse(
            #"{"id":7,"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","status":"ACTIVE","version":3,"updatedAt":"a"}"#
        )
        let after = try JSONParser.parse(
            #"{"id":7,"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S2","status":"DEACTIVATED","version":4,"updatedAt":"b"}"#
        )
        let data = try #require(WebhookPayload.experience(.experienceUpdated, before: before, after: after))
        #expect(data["changed"] == .array([.string("subtitle"), .string("status")]))
        #expect(data["version"] == .integer(4))
        let bookkeepingOnly = try JSONParser.parse(
            #"{"id":7,"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","status":"ACTIVE","version":4,"updatedAt":"b"}"#
        )
        #expect(WebhookPayload.experience(.experienceUpdated, before: before, after: bookkeepingOnly) == nil)
        // A creation or a removal is the whole object: no `changed`.
        #expect(WebhookPayload.experience(.experienceDeleted, before: before, after: nil)?["changed"] == nil)
    }

    /// Standard Webhooks: the signed content is `id.timestamp.body`; secrets are `whsec_` and base 64 of at least 24 bytes.
    @Test func signedContentAndSecrets() {
        #expect(
            String(
                decoding: WebhookSignature.signedContent(id: "msg_1", timestamp: 1_614_265_330, body: Array(#"{"a":1}"#.utf8)),
                as: UTF8.self)
                == #"msg_1.1614265330.{"a":1}"#)
        #expect(WebhookSignature.key(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")?.count == 24)
        #expect(WebhookSignature.key(secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
        #expect(WebhookSignature.key(secret: "whsec_AAAA") == nil)  // 3 bytes: too short
        #expect(WebhookSignature.key(secret: "whsec_not base64!") == nil)
        let key = [UInt8](repeating: 7, count: 32)
        #expect(WebhookSignature.key(secret: WebhookSignature.secret(key: key)) == key)
        #expect(WebhookSignature.header(hmac: [0xFF, 0x00]) == "v1,/wA=")
    }

    @Test func theRetryScheduleLastsADayWhateverTheJitter() {
        let s = WebhookRetrySchedule.standard
        let shortest = (1...s.delaysMilliseconds.count).map { s.delay(afterFailure: $0, unit: 0)! }.reduce(0, +)
        let longest = (1...s.delaysMilliseconds.count).map { s.delay(afterFailure: $0, unit: 0.999_999)! }.reduce(0, +)
        #expect(shortest >= 24 * 3_600_000)
        #expect(longest <= 31 * 3_600_000)
        #expect(s.delay(afterFailure: 1, unit: 0.5) == 5_000)
        #expect(s.delay(afterFailure: 1, unit: 0) == 4_500)
        // Grows: each wait at least as long as the one before.
        let mid = (1...s.delaysMilliseconds.count).map { s.delay(afterFailure: $0, unit: 0.5)! }
        #expect(mid == mid.sorted())
        #expect(s.delay(afterFailure: s.delaysMilliseconds.count + 1, unit: 0.5) == nil)
        #expect(s.delay(afterFailure: 0, unit: 0.5) == nil)
        // Out-of-range randomness is clamped, never a negative wait.
        #expect(s.delay(afterFailure: 1, unit: -5) == 4_500)
        #expect(s.delay(afterFailure: 1, unit: 5) == 5_500)
    }

    @Test(arguments: [
        ("127.0.0.1", WebhookTarget.AddressKind.loopback), ("127.1", .loopback), ("0x7f000001", .loopback), ("2130706433", .loopback),
        ("0177.0.0.1", .loopback), ("0.0.0.0", .unspecified), ("0", .unspecified), ("10.1.2.3", .private), ("172.16.0.1", .private),
        ("172.31.255.255", .private), ("172.32.0.1", .public), ("192.168.1.1", .private), ("100.64.0.1", .sharedAddressSpace),
        ("100.127.255.255", .sharedAddressSpace), ("100.128.0.1", .public), ("169.254.169.254", .linkLocal), ("224.0.0.1", .multicast),
        ("255.255.255.255", .reserved), ("192.0.2.1", .reserved), ("8.8.8.8", .public), ("93.184.215.14", .public),
    ])
    func ipv4Kinds(_ text: String, _ kind: WebhookTarget.AddressKind) throws {
        let address = try #require(IPAddress.parseIPv4(text))
        #expect(WebhookTarget.kind(address) == kind)
    }

    @Test(arguments: [
        ("::1", WebhookTarget.AddressKind.loopback), ("::", .unspecified), ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:8.8.8.8", .public), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fc00::1", .private), ("fd12:3456::1", .private), ("ff02::1", .multicast), ("64:ff9b::10.0.0.1", .private),
        ("2002:7f00:1::", .loopback), ("2001:db8::1", .reserved), ("::127.0.0.1", .reserved), ("2606:4700::1111", .public),
        ("0:0:0:0:0:0:0:1", .loopback),
    ])
    func ipv6Kinds(_ text: String, _ kind: WebhookTarget.AddressKind) throws {
        let address = try #require(IPAddress.parseIPv6(text))
        #expect(WebhookTarget.kind(address) == kind)
    }

    @Test(arguments: ["", ":::", "1::2::3", "12345::", "fe80::1%eth0", "::ffff:1.2.3", "::ffff:1.2.3.256", "g::1", "1:2:3:4:5:6:7:8:9"])
    func malformedIPv6(_ text: String) { #expect(IPAddress.parseIPv6(text) == nil) }

    @Test(arguments: ["1.2.3.4.5", "256.1.1.1", "1.2.3.256", "4294967296", "0x", "1..2", "a.b.c.d", "", "08.1.1.1"])
    func notIPv4(_ text: String) {
        // "0x" alone is 0 for inet_aton; the others are not addresses (a name, or out of range).
        if text == "0x" { #expect(IPAddress.parseIPv4(text) == .v4([0, 0, 0, 0])) } else { #expect(IPAddress.parseIPv4(text) == nil) }
    }

    func refusal(_ url: String, allowPrivate: Bool = false) -> String? {
        do {
            _ = try WebhookTarget.check(url, allowPrivate: allowPrivate)
            return nil
        } catch {
            return error.errors.first?.rule
        }
    }

    @Test func hostileURLsAreRefused() {
        #expect(refusal("file:///etc/passwd") == "webhook-url.scheme")
        #expect(refusal("gopher://example.com/") == "webhook-url.scheme")
        #expect(refusal("ftp://example.com/") == "webhook-url.scheme")
        #expect(refusal("example.com/hook") == "webhook-url.scheme")
        #expect(refusal("http://169.254.169.254/latest/meta-data/") == "webhook-url.private-target")
        #expect(refusal("http://[::ffff:127.0.0.1]/") == "webhook-url.private-target")
        #expect(refusal("http://0x7f000001/") == "webhook-url.private-target")
        #expect(refusal("http://2130706433/") == "webhook-url.private-target")
        #expect(refusal("http://0/") == "webhook-url.private-target")
        #expect(refusal("http://[::1]:8080/") == "webhook-url.private-target")
        #expect(refusal("http://100.64.1.1/") == "webhook-url.private-target")
        #expect(refusal("http://localhost:9/") == "webhook-url.private-target")
        #expect(refusal("http://api.localhost./") == "webhook-url.private-target")
        #expect(refusal("http://user:pass@example.com/") == "webhook-url.userinfo")
        #expect(refusal("http://example.com@127.0.0.1/") == "webhook-url.userinfo")
        #expect(refusal("https://exa\u{200B}mple.com/") == "webhook-url.characters")
        #expect(refusal("https://example.com/a b") == "webhook-url.characters")
        #expect(refusal("https://example.com/\u{0}") == "webhook-url.characters")
        #expect(refusal("https://example.com/" + String(repeating: "a", count: 5_000)) == "webhook-url.length")
        #expect(refusal("") == "webhook-url.required")
        #expect(refusal("http:///path") == "webhook-url.host")
        #expect(refusal("http://example.com:0/") == "webhook-url.port")
        #expect(refusal("http://example.com:65536/") == "webhook-url.port")
        #expect(refusal("http://[::1/") == "webhook-url.host")
        #expect(refusal("http://exa$mple.com/") == "webhook-url.host")
        // A trailing dot is a fully qualified spelling of the same target; an empty label is no host name.
        for dotted in ["http://127.0.0.1./", "http://192.168.1.1./", "http://2130706433./", "http://0x7f000001./", "http://127.1./"] {
            #expect(refusal(dotted) == "webhook-url.private-target", "\(dotted)")
        }
        #expect(refusal("http://localhost../") == "webhook-url.host")
        #expect(refusal("https://a..b.com/") == "webhook-url.host")
        #expect(refusal("https://.example.com/") == "webhook-url.host")
        #expect(refusal("http://[fec0::1]/") == "webhook-url.private-target")
        #expect(refusal("https://hooks.example.com./in") == nil)
    }

    /// docs/rules.md#webhook-urls: one spelling per endpoint, the one that is called.
    @Test func urlsAreNormalizedAndAFragmentIsRefused() throws {
        let cases = [
            ("HTTPS://Hooks.Example.COM/In?X=1", "https://hooks.example.com/In?X=1"),
            ("https://hooks.example.com:443/in", "https://hooks.example.com/in"),
            ("HTTP://hooks.example.com:80", "http://hooks.example.com/"),
            ("http://hooks.example.com:443/in", "http://hooks.example.com:443/in"),
            ("https://hooks.example.com:08443/in", "https://hooks.example.com:8443/in"),
            ("https://hooks.example.com?x", "https://hooks.example.com/?x"),
            ("http://0x5d.0xb8.0xd7.0x0e/in", "http://93.184.215.14/in"),
            ("http://1572394766/", "http://93.184.215.14/"),
            ("https://[2606:2800:220:1:248:1893:25C8:1946]:443/", "https://[2606:2800:220:1:248:1893:25c8:1946]/"),
        ]
        for (given, stored) in cases {
            #expect(try WebhookTarget.normalize(given, allowPrivate: false) == stored, "\(given)")
            #expect(try WebhookTarget.normalize(stored, allowPrivate: false) == stored, "\(stored) is a fixed point")
        }
        for url in ["https://hooks.example.com/in#frag", "https://hooks.example.com/in#", "HTTPS://hooks.example.com#x"] {
            #expect(throws: ValidationFailure.self, "\(url)") { try WebhookTarget.normalize(url, allowPrivate: false) }
            do { _ = try WebhookTarget.normalize(url, allowPrivate: false) } catch {
                #expect(error.errors.map(\.rule) == ["webhook-url.fragment"])
            }
        }
        // A URL stored before: read as the sender calls it.
        #expect(WebhookTarget.normalized(stored: "HTTP://Hooks.Example.com:80/in#frag") == "http://hooks.example.com/in")
        #expect(WebhookTarget.normalized(stored: "not a url") == "not a url")
    }

    @Test func publicAndAllowedTargets() throws {
        let parts = try WebhookTarget.check("HTTPS://Hooks.Example.com:8443/in?x=1#frag", allowPrivate: false)
        #expect(parts.scheme == "https" && parts.host == "hooks.example.com" && parts.port == 8443 && parts.target == "/in?x=1")
        #expect(try WebhookTarget.check("http://example.com", allowPrivate: false).target == "/")
        #expect(try WebhookTarget.check("http://93.184.215.14/", allowPrivate: false).address == .v4([93, 184, 215, 14]))
        // Allowed private targets: loopback and the rest, still only http(s).
        #expect(refusal("http://127.0.0.1:8080/hook", allowPrivate: true) == nil)
        #expect(try WebhookTarget.check("http://[::1]:9/", allowPrivate: true).host == "::1")
        #expect(refusal("file:///etc/passwd", allowPrivate: true) == "webhook-url.scheme")
    }
}
