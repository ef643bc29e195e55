import Testing
@testable import ClipCore

struct NormalizedURLTests {
    @Test(arguments: [
        ("https://Bikesrental.Example/rent", "https://bikesrental.example/rent"),
        ("HTTPS://bikesrental.example:443/rent/", "https://bikesrental.example/rent"),
        ("https://bikesrental.example:/rent", "https://bikesrental.example/rent"),
        ("https://bikesrental.example.", "https://bikesrental.example/"),
        ("https://bikesrental.example", "https://bikesrental.example/"),
        ("https://bikesrental.example/", "https://bikesrental.example/"),
        ("https://shop.example/a/./b/../c", "https://shop.example/a/c"),
        ("https://shop.example/a/%2e%2E/c", "https://shop.example/c"),
        ("https://shop.example/%7euser/%41%62", "https://shop.example/~user/Ab"),
        ("https://shop.example/a%2fb", "https://shop.example/a%2Fb"),
        ("https://shop.example/caf\u{E9}", "https://shop.example/caf%C3%A9"),
        ("https://shop.example/a b", "https://shop.example/a%20b"),
        ("https://shop.example/Store", "https://shop.example/Store"),
        ("https://shop.example/rent?b=2&a=1", "https://shop.example/rent?a=1&b=2"),
        ("https://shop.example/rent?a=1&a=1&&", "https://shop.example/rent?a=1"),
        ("https://shop.example/rent?q=%7e%2f", "https://shop.example/rent?q=~%2F"),
        ("https://shop.example/rent#frag", "https://shop.example/rent"),
        ("  https://shop.example/x \n", "https://shop.example/x"),
        ("https://b\u{FC}cher.example/", "https://xn--bcher-kva.example/"),
        ("https://B\u{DC}CHER.example/", "https://xn--bcher-kva.example/"),
        ("https://\u{4F8B}\u{3002}\u{6D4B}\u{8BD5}/", "https://xn--fsq.xn--0zwm56d/"),
        ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"),
        ("https://shop.example\\path", "https://shop.example/path"),
    ])
    func normalizes(_ input: String, _ expected: String) throws {
        #expect(try NormalizedURL(input).canonical == expected)
    }

    @Test(arguments: [
        ("http://shop.example/", "url.scheme"),
        ("ftp://shop.example/", "url.scheme"),
        ("shop.example/rent", "url.format"),
        ("/rent", "url.format"),
        ("https:shop.example", "url.format"),
        ("", "url.format"),
        ("https://user:pw@shop.example/", "url.userinfo"),
        ("https://shop.example:8443/", "url.port"),
        ("https://shop.example:44a/", "url.port"),
        ("https://[::1]/", "url.host"),
        ("https://192.168.0.1/", "url.host"),
        ("https://localhost/", "url.host"),
        ("https://shop..example/", "url.host"),
        ("https://-shop.example/", "url.host"),
        ("https://sh_op.example/", "url.host"),
        ("https://xn--zz.example/", "url.host"),
        ("https://shop.example/%zz", "url.percentEncoding"),
        ("https://shop.example/%4", "url.percentEncoding"),
        ("https://shop.example/a\u{0}b", "url.format"),
        ("https:///rent", "url.host"),
    ])
    func refuses(_ input: String, _ rule: String) {
        #expect {
            _ = try NormalizedURL(input)
        } throws: { error in
            (error as? NormalizedURL.Problem)?.rule == rule
        }
    }

    /// Found by the url fuzz target: an input under the limit whose normalized form (each
    /// non-ASCII byte percent-encoded) was over it, so it could not be parsed back.
    @Test func normalizedFormMustFitTheLimitToo() {
        let input = "https://a.example/" + String(repeating: "\u{FFFD}", count: 1000)
        #expect(input.utf8.count < NormalizedURL.maxLength)
        #expect(throws: NormalizedURL.Problem.tooLong) { try NormalizedURL(input) }
    }

    @Test func registrationRefusesFragment() {
        #expect(throws: NormalizedURL.Problem.fragmentNotAllowed) { try NormalizedURL("https://shop.example/a#b", allowFragment: false) }
    }

    @Test func pathCoverageIsSegmentAware() throws {
        let store = try NormalizedURL("https://shop.example/store")
        #expect(store.pathCovers(try NormalizedURL("https://shop.example/store")))
        #expect(store.pathCovers(try NormalizedURL("https://shop.example/store/12")))
        #expect(!store.pathCovers(try NormalizedURL("https://shop.example/stores")))
        #expect(store.isCharacterPrefixNearMiss(of: try NormalizedURL("https://shop.example/stores")))
        #expect(try NormalizedURL("https://shop.example/").pathCovers(try NormalizedURL("https://shop.example/anything/at/all")))
    }

    /// A registered query is a set, and "?flag" requires what "?flag=" does: the canonical text
    /// (a registration's identity) must not depend on which of the two spellings came first.
    @Test func canonicalQueryDoesNotDependOnItemOrder() throws {
        let a = try NormalizedURL("https://shop.example/p?flag&flag=&b=1"), b = try NormalizedURL("https://shop.example/p?b=1&flag=&flag")
        #expect(a.canonical == b.canonical)
        #expect(a.canonical == "https://shop.example/p?b=1&flag")
        #expect(a.distinctQueryItemCount == 2 && b.distinctQueryItemCount == 2)
        #expect(try NormalizedURL(canonical: a.canonical) == a)
        // Not adjacent once sorted ("flag%2F" sorts between them): still one.
        let c = try NormalizedURL("https://shop.example/p?flag=&flag%2F&flag"),
            d = try NormalizedURL("https://shop.example/p?flag&flag%2F&flag=")
        #expect(c.canonical == "https://shop.example/p?flag&flag%2F" && d.canonical == c.canonical)
    }

    /// The match rule on its own: host, segment-aware path, required query items (any order, more allowed).
    @Test func matchRule() throws {
        let registered = try NormalizedURL("https://shop.example/store?id=1&zone=b")
        #expect(registered.matches(try NormalizedURL("https://SHOP.example/store/12?zone=b&utm=qr&id=1")))
        #expect(!registered.matches(try NormalizedURL("https://shop.example/store/12?zone=b")))
        #expect(!registered.matches(try NormalizedURL("https://shop.example/stores?id=1&zone=b")))
        #expect(!registered.matches(try NormalizedURL("https://www.shop.example/store?id=1&zone=b")))
        #expect(try NormalizedURL("https://shop.example/?flag").matches(try NormalizedURL("https://shop.example/x?flag=")))
    }

    @Test func segmentCounts() throws {
        #expect(try NormalizedURL("https://shop.example").pathSegmentCount == 0)
        #expect(try NormalizedURL("https://shop.example/a").pathSegmentCount == 1)
        #expect(try NormalizedURL("https://shop.example/a/b/").pathSegmentCount == 2)
    }
}
