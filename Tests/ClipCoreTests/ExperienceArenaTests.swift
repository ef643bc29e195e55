import Foundation
import StrictJSON
import TestSupport
import Testing
@testable import ClipCore

/// The read model's arena: its table of 64-bit keys, forced key collisions, removal and slot
/// reuse, growth and compaction, enormous and invisible strings, and the plain-URL fast path,
/// each against an independent answer (a `Dictionary`, the `Resolver`, `JSONWriter`, the full
/// normalization rules).
struct ExperienceArenaTests {
    typealias Generator = ExperienceIndexTests.Generator

    /// With `denseKeys` the keys that are multiples of 2^32 all share home slot 0: one long probe
    /// run, which removals must shift back.
    @Test(arguments: [false, true])
    func uint64TableAgreesWithADictionary(denseKeys: Bool) {
        var g = Generator(state: 99)
        var table = UInt64Table(denseKeys: denseKeys)
        var reference: [UInt64: Int32] = [:]
        for step in 0..<20_000 {
            // Few distinct keys, many of them sharing probe runs: removals must shift entries back.
            let key = UInt64(g.next(300)) &* (g.next(2) == 0 ? 1 : 0x1_0000_0000)
            switch g.next(3) {
            case 0:
                table.remove(key)
                reference[key] = nil
            default:
                let value = Int32(step)
                table.set(key, value)
                reference[key] = value
            }
            if step % 97 == 0 {
                for probe in 0..<UInt64(300) {
                    #expect(table[probe] == reference[probe], "step \(step), key \(probe)")
                    #expect(table[probe &* 0x1_0000_0000] == reference[probe &* 0x1_0000_0000])
                }
            }
        }
        #expect(table.count == reference.count)
    }

    static func experience(_ g: inout Generator, id: Int64, url: String) -> AdvancedExperience {
        var e = ResolverTests.experience(id, url, status: g.next(5) == 0 ? .deactivated : .active)
        if g.next(3) == 0 { e.localizations[.FR] = CardText(title: "Carte \(id) \u{2028}\"é\"", subtitle: "\u{0}\t\\") }
        if g.next(4) == 0 { e.businessCategory = .FOOD_AND_DRINK }
        if g.next(4) == 0 { e.headerImage = String(repeating: "ab", count: 32) }
        if g.next(5) == 0 { e.place = ["name": "Café \u{200B}", "lat": .double(48.5), "tags": [1, "x"]] }
        e.isPoweredBy = g.next(2) == 0
        e.version = 1 + g.next(1000)
        return e
    }

    /// The index against the Resolver with keys cut to 0–8 bits: every chain holds experiences
    /// of other hosts and paths, and the bytes must decide.
    @Test(arguments: [0, 1, 3, 8, 64])
    func collidingKeysAnswerLikeTheResolver(keyBits: Int) throws {
        var g = Generator(state: 4242 + UInt64(keyBits))
        for round in 0..<25 {
            var index = ExperienceIndex(capacity: 0, keyBits: keyBits)
            var all: [Int64: AdvancedExperience] = [:]
            var seen: Set<String> = []
            for id in 1...Int64(40) {
                let url = try NormalizedURL(ExperienceIndexTests.registered(&g))
                guard seen.insert(url.canonical).inserted else { continue }
                let e = Self.experience(&g, id: id, url: url.canonical)
                all[id] = e
                index.upsert(e)
            }
            for id in all.keys.sorted() where g.next(4) == 0 {
                if g.next(2) == 0 {
                    index.remove(id: id)
                    all[id] = nil
                } else {
                    var e = all[id]!
                    e.status = e.status == .active ? .deactivated : .active
                    e.version += 1
                    all[id] = e
                    index.upsert(e)
                }
            }
            #expect(index.count == all.count)
            for (id, e) in all { #expect(index.experience(id: id) == e, "round \(round): \(id)") }
            for _ in 0..<80 {
                var invocation = ExperienceIndexTests.registered(&g)
                if g.next(2) == 0 { invocation += (invocation.contains("?") ? "&" : "?") + "utm=qr" }
                if g.next(3) == 0 { invocation = invocation.replacingOccurrences(of: "https://", with: "HTTPS://") }
                if g.next(4) == 0 { invocation = invocation.uppercased() }
                if g.next(5) == 0 { invocation += "/#frag" }
                try Self.expectSameAnswers(index, all: Array(all.values), invocation, preferences: g.next(2) == 0 ? [.FR] : [])
            }
        }
    }

    /// Many experiences on one path that differ only in the query items they require ("/rent?id=N",
    /// some with two items, a bare "?flag", one without a query), at deeper and shallower paths,
    /// with keys cut to 0–64 bits: an experience is keyed by its first required item, and a lookup
    /// must still find the most specific one by any item the invocation has, in any order, after
    /// removals that reuse slots and leave a host's depths behind.
    @Test(arguments: [0, 2, 64])
    func experiencesRequiringQueryItemsAnswerLikeTheResolver(keyBits: Int) throws {
        var g = Generator(state: 777 + UInt64(keyBits))
        var index = ExperienceIndex(capacity: 0, keyBits: keyBits)
        var all: [Int64: AdvancedExperience] = [:]
        var id: Int64 = 0
        func add(_ url: String) throws {
            // URLs are unique among experiences that are not removed (as in the registry).
            let canonical = try NormalizedURL(url).canonical
            guard !all.values.contains(where: { $0.url.canonical == canonical }) else { return }
            id += 1
            let e = Self.experience(&g, id: id, url: canonical)
            all[id] = e
            index.upsert(e)
        }
        try add("https://r.example/rent")
        try add("https://r.example/rent?flag")
        try add("https://r.example/a/b/c/d/e?id=3")
        for n in 0..<60 {
            try add("https://r.example/rent?id=\(n)")
            if n % 7 == 0 { try add("https://r.example/rent?id=\(n)&zone=\(n % 3)") }
            if n % 11 == 0 { try add("https://r.example/rent/menu?id=\(n)") }
        }
        for removed in all.keys.sorted() where g.next(5) == 0 {
            index.remove(id: removed)
            all[removed] = nil
        }
        try add("https://r.example/rent?id=5")
        try add("https://r.example/rent?zone=1&id=7")
        for _ in 0..<400 {
            var items = ["id=\(g.next(70))", "zone=\(g.next(4))", "utm=qr", "flag"].filter { _ in g.next(2) == 0 }
            if g.next(2) == 0 { items.reverse() }
            let path = ["/rent", "/rent/menu", "/rent/menu/x", "/a/b/c/d/e/f", "/", ""][g.next(6)]
            let invocation = "https://r.example\(path)" + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
            try Self.expectSameAnswers(index, all: Array(all.values), invocation, preferences: [])
        }
    }

    /// The plain path's answer (bytes) and the full rules' answer agree, wherever the plain path answers.
    static func expectSameAnswers(
        _ index: ExperienceIndex, all: [AdvancedExperience], _ invocation: String, preferences: [Language]
    ) throws {
        let full: Resolution
        do {
            let parsed = try NormalizedURL(invocation)
            full = Resolver.resolve(
                invocation, url: parsed, candidates: all.filter { $0.url.host == parsed.host }, fallbacks: [], preferences: preferences,
                at: .earliest)
        } catch {
            full = Resolver.unresolvable(invocation, problem: error)
        }
        let viaIndex = index.resolve(invocation, preferences: preferences, at: .earliest)
        #expect(viaIndex.json(explain: false) == full.json(explain: false), "\(invocation)")
        var out: [UInt8] = [1, 2]
        let wrote = Array(invocation.utf8).withUnsafeBufferPointer {
            index.writeAdvancedAnswer($0, preferences: preferences, at: .earliest, into: &out)
        }
        if wrote {
            #expect(Array(out.dropFirst(2)) == JSONWriter.bytes(full.json(explain: false)), "\(invocation)")
        } else {
            #expect(out == [1, 2])
            // Not written: either not plain, or no advanced match.
            if case .advanced = full.match {
                #expect(Array(invocation.utf8).withUnsafeBufferPointer { PlainInvocationURL($0) == nil }, "\(invocation) is plain")
            }
        }
        if case .advanced = full.match, full.notes.isEmpty {
            #expect(index.advancedAnswerBytes(viaIndex) == JSONWriter.bytes(full.json(explain: false)), "\(invocation)")
        }
    }

    /// Experiences loaded from their columns (`load`, as `LiveIndex` reads them, linked into their
    /// chains at the end in the table's order) give the experiences and answers of ones upserted,
    /// with forced key collisions, a reload of an id already loaded, and lookups after
    /// `finishLoading`.
    @Test(arguments: [0, 3, 64])
    func loadedExperiencesAnswerLikeUpsertedOnes(keyBits: Int) throws {
        var g = Generator(state: 31 + UInt64(keyBits))
        var loaded = ExperienceIndex(capacity: 16, keyBits: keyBits)
        var all: [Int64: AdvancedExperience] = [:]
        var seen: Set<String> = []
        func load(_ e: AdvancedExperience) throws {
            let url = Array(e.url.canonical.utf8)
            let clip = loaded.clipNumber(e.clip)
            var columns = ExperienceValueColumns(e)
            try url.withUnsafeBufferPointer { url in
                try loaded.load(id: e.id, url: url, clip: clip, version: Int64(e.version), columns: &columns)
            }
            for (language, card) in e.localizations.sorted(by: { $0.key < $1.key }) {
                let title = Array(card.title.utf8), subtitle = Array(card.subtitle.utf8)
                title.withUnsafeBufferPointer { t in
                    subtitle.withUnsafeBufferPointer { loaded.loadLocalization(id: e.id, language: language, title: t, subtitle: $0) }
                }
            }
        }
        for id in 1...Int64(300) {
            var text = ExperienceIndexTests.registered(&g)
            if g.next(4) == 0 { text = "https://q.example/rent?id=\(g.next(40))" + (g.next(3) == 0 ? "&zone=1" : "") }
            let url = try NormalizedURL(text)
            guard seen.insert(url.canonical).inserted else { continue }
            let e = Self.experience(&g, id: id, url: url.canonical)
            all[id] = e
            try load(e)
            // An id loaded again (out of order): the index links what it holds first.
            if id == 150, var again = all[100] {
                again.version += 1
                all[100] = again
                try load(again)
            }
        }
        loaded.finishLoading()
        #expect(loaded.count == all.count)
        for (id, e) in all { #expect(loaded.experience(id: id) == e, "\(id)") }
        for _ in 0..<300 {
            var invocation = g.next(4) == 0 ? "https://q.example/rent?id=\(g.next(40))&zone=1" : ExperienceIndexTests.registered(&g)
            if g.next(2) == 0 { invocation += (invocation.contains("?") ? "&" : "?") + "utm=qr" }
            try Self.expectSameAnswers(loaded, all: Array(all.values), invocation, preferences: g.next(2) == 0 ? [.FR] : [])
        }
    }

    @Test func removedSlotsAreReusedAndTheArenaCompacts() throws {
        var index = ExperienceIndex()
        let big = String(repeating: "Ω", count: 20_000)  // 40 KB a title: removals soon leave most bytes unused
        for round in 0..<6 {
            for id in Int64(1)...Int64(20) {
                var e = ResolverTests.experience(id, "https://a.example/store/\(id)", title: big)
                e.version = round + 1
                index.upsert(e)
            }
            for id in Int64(1)...Int64(20) where id % 2 == Int64(round % 2) { index.remove(id: id) }
        }
        #expect(index.count == 10)
        // Ten live experiences of ~40 KB each; without compaction six rounds would hold ~4.8 MB.
        #expect(index.arenaBytes < 3 << 20)
        for id in Int64(1)...Int64(20) {
            let answer = index.resolve("https://a.example/store/\(id)/x", preferences: [], at: .earliest)
            // The last round (5) removed the odd ids.
            if id % 2 == 0 {
                guard case .advanced(let e, _) = answer.match else {
                    Issue.record("\(id) should match")
                    continue
                }
                #expect(e.id == id && e.defaultCard.title == big && e.version == 6, "\(id)")
            } else {
                #expect(answer.match == nil, "\(id)")
            }
        }
        // Removing everything and adding again reuses the slots.
        for id in Int64(1)...Int64(20) { index.remove(id: id) }
        #expect(index.count == 0)
        #expect(
            index.resolve("https://a.example/store/1", preferences: [], at: .earliest).reason?.contains("no experience is registered")
                == true)
        index.upsert(ResolverTests.experience(99, "https://b.example/"))
        #expect(index.resolve("https://b.example/anything", preferences: [], at: .earliest).match != nil)
    }

    @Test func growsFromEmptyToThousandsAndEnormousStrings() throws {
        var index = ExperienceIndex()
        var all: [AdvancedExperience] = []
        for id in Int64(1)...Int64(3000) {
            let e = ResolverTests.experience(id, "https://h\(id % 7).example/s/\(id)/t/\(id % 13)")
            all.append(e)
            index.upsert(e)
        }
        // A path near the URL length limit, and an enormous title with every kind of escape.
        let longPath = "/" + String(repeating: "segment/", count: 500).dropLast()
        var huge = ResolverTests.experience(
            5000, "https://long.example" + longPath, title: String(repeating: "\u{1}\"\\\u{2029}\u{FEFF}x", count: 50_000))
        huge.place = ["name": .string(String(repeating: "p", count: 100_000))]
        all.append(huge)
        index.upsert(huge)
        #expect(index.count == 3001)
        for id in stride(from: Int64(1), through: 3000, by: 37) {
            try Self.expectSameAnswers(index, all: all, "https://H\(id % 7).example/s/\(id)/t/\(id % 13)/more?q=1", preferences: [])
        }
        try Self.expectSameAnswers(index, all: all, "https://long.example" + longPath + "/", preferences: [])
        try Self.expectSameAnswers(index, all: all, "https://long.example" + longPath + "/and/more", preferences: [.FR])
    }

    /// Hostile invocation URLs: the plain path refuses what it cannot read as the full rules do, and
    /// answers as they do where it reads.
    @Test func invisibleAndHostileInvocationURLs() throws {
        var index = ExperienceIndex()
        let registered = [
            "https://a.example/", "https://a.example/store", "https://a.example/store?id=1", "https://a.example/store?flag",
            "https://xn--caf-dma.example/menu", "https://a.example/caf%C3%A9", "https://a.example/a%2Fb",
        ]
        var all: [AdvancedExperience] = []
        for (i, url) in registered.enumerated() {
            let e = ResolverTests.experience(Int64(i + 1), url)
            all.append(e)
            index.upsert(e)
        }
        let hostile = [
            "", " ", "https://", "https://a.example", "https://a.example/store\u{200B}", "https://a\u{200B}.example/store",
            "https://a.example/store\t", "\thttps://a.example/store", "https://a.example/store\u{0}", "https://a.example/\u{7F}",
            "https://a.example:443/store", "https://a.example:/store", "https://a.example:8443/store", "https://user@a.example/store",
            "https://a.example:0443/store?id=1", "https://A.EXAMPLE:443", "https://a.example:443:443/store",
            "https://a.example:443@b.example/",
            "https://:443/store", "https://a.example:443#x", "https://a.example:4 43/store",
            "https://a.example/./store", "https://a.example/x/../store", "https://a.example\\store", "https://a.example/store%3F",
            "https://a.example/store?id=1&id=1", "https://a.example/store?id=%31", "https://a.example/store?flag=",
            "https://a.example/store?flag",
            "https://a.example/store?=1&&id=1", "https://a.example/store?id=1=2", "https://café.example/menu",
            "https://xn--caf-dma.example/menu",
            "https://a.example/café", "https://a.example/caf%c3%a9", "https://a.example/a%2fb", "https://a.example./store",
            "https://A.EXAMPLE/STORE", "https://a.example/store//", "https://a.example//store", "https://a..example/store",
            "https://-a.example/store", "https://1.2.3.4/store", "https://[::1]/store", "https://a.example/store#?id=1",
            "http://a.example/store", "https:a.example/store", "https://a.example/store?" + String(repeating: "x=1&", count: 40) + "id=1",
            "https://a.example/" + String(repeating: "a", count: 5000),
        ]
        for url in hostile { try Self.expectSameAnswers(index, all: all, url, preferences: []) }
    }

    /// Where `PlainInvocationURL` reads a URL, the full rules give the same host, path and query items.
    @Test func plainInvocationURLsAgreeWithTheFullRules() throws {
        var g = Generator(state: 2024)
        let alphabet = [
            "a", "Z", "0", "-", ".", "/", "//", "?", "&", "=", "#", "%41", "%2f", "..", "\\", ":", "@", "~", "*", " ", "\u{7F}", "é",
            "\u{200B}", "xn--", ":443", ":0443", ":8443", ":44", ":4430",
        ]
        var plainCount = 0
        for _ in 0..<20_000 {
            let host = (0..<(1 + g.next(6))).map { _ in ["a", "B", "0", "-", ".", "x", "xn--"][g.next(7)] }.joined() + ".example"
            let rest = (0..<g.next(12)).map { _ in alphabet[g.next(alphabet.count)] }.joined()
            let text = (g.next(2) == 0 ? "https://" : "HTTPS://") + host + rest
            let bytes = Array(text.utf8)
            guard let plain = bytes.withUnsafeBufferPointer({ PlainInvocationURL($0) }) else { continue }
            plainCount += 1
            let full = try #require(try? NormalizedURL(text), "\(text)")
            #expect(String(decoding: bytes[plain.host].map(PlainInvocationURL.lowercased), as: UTF8.self) == full.host, "\(text)")
            #expect(plain.path.map { String(decoding: bytes[$0], as: UTF8.self) } ?? "/" == full.path, "\(text)")
            var items: [NormalizedURL.QueryItem] = []
            _ = bytes.withUnsafeBufferPointer { buffer in
                plain.forEachQueryItem(buffer) { name, value in
                    items.append(
                        .init(name: String(decoding: bytes[name], as: UTF8.self), value: String(decoding: bytes[value], as: UTF8.self)))
                    return true
                }
            }
            #expect(items == full.queryItems, "\(text)")
        }
        #expect(plainCount > 500)
    }

    /// Stored canonical URLs are split as `NormalizedURL(canonical:)` does, or left to it.
    @Test func canonicalShapesAgreeWithNormalizedURLs() throws {
        var g = Generator(state: 77)
        for _ in 0..<3000 {
            let url = try NormalizedURL(ExperienceIndexTests.registered(&g) + ["", "?b=2&a=1", "?flag", "?a=%C3%A9"][g.next(4)])
            let shape = Array(url.canonical.utf8).withUnsafeBufferPointer { ExperienceIndex.canonicalShape($0) }
            guard let shape else {
                #expect(url.canonical.contains("?"), "\(url.canonical) should be read in place")
                continue
            }
            #expect(shape.host == url.host.utf8.count && shape.path == url.path.utf8.count, "\(url.canonical)")
            #expect(shape.segments == url.pathSegmentCount && shape.queryItems == url.distinctQueryItemCount, "\(url.canonical)")
        }
        // Not canonical: left to the full rules.
        for text in ["https://a.example/b/", "https://a.example/b?b=1&a=1", "https://A.example/", "http://a.example/", "https://a.example"]
        {
            #expect(Array(text.utf8).withUnsafeBufferPointer { ExperienceIndex.canonicalShape($0) } == nil, "\(text)")
        }
    }
}
