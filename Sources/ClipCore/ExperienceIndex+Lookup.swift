import ByteScan
import StrictJSON

extension ExperienceIndex {
    // MARK: Lookup

    /// The slot of the most specific experience live at `at` covering the URL of `host` (any case)
    /// and `path` (normalized; "/" for the root), whose required query items `itemsMatch`; `items`
    /// are the hashes of the invocation's query items (`itemHash`).
    func bestSlot(
        host: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>, items: UnsafeBufferPointer<UInt64>, at: Instant,
        itemsMatch: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Int? {
        let hostHash = Self.hostHash(host)
        guard let entry = hostEntry(host, hash: hostHash) else { return nil }
        // Only the depths the host has can hold a match: in the bench's data a host's paths are at
        // most 4 deep and requests up to 7, so this skips about half of the probes.
        let depths = hostEntries[entry].depths, queryDepths = hostEntries[entry].queryDepths
        return bytes.withUnsafeBufferPointer { arena -> Int? in
            /// The most specific active experience at the prefix of `length` whose key is `key`.
            func firstCovering(_ key: UInt64, length: Int) -> Int? {
                var slot = chains[key & keyMask] ?? -1
                while slot >= 0 {
                    let current = Int(slot), r = records[current]
                    slot = r.next
                    // A key names host, path and first item; the bytes decide (a collision costs a comparison).
                    guard r.status == Self.active, Int(r.pathLength) == length, Int(r.hostLength) == host.count else { continue }
                    // docs/rules.md#experiences-in-time: one outside its window is skipped like a deactivated one.
                    if r.windowed && !isLive(r, at: at) { continue }
                    let url = UnsafeBufferPointer(rebasing: arena[r.data..<(r.data + Int(r.urlLength))])
                    guard Self.equalHosts(Self.host(url, r), host), Self.path(url, r).elementsEqual(path.prefix(length)) else {
                        continue
                    }
                    let queryStart = 8 + Int(r.hostLength) + Int(r.pathLength)
                    guard queryStart == url.count || itemsMatch(UnsafeBufferPointer(rebasing: url[(queryStart + 1)...])) else {
                        continue
                    }
                    return current
                }
                return nil
            }
            /// The most specific at the prefix of `length` (hash `pathHash`, depth bit `depth`): the
            /// one without query items, or one keyed by an item the invocation has.
            func best(_ pathHash: UInt64, length: Int, depth: UInt64) -> Int? {
                guard depths & depth != 0 else { return nil }
                var best = firstCovering(pathHash, length: length)
                if queryDepths & depth != 0 {
                    for item in items {
                        if let found = firstCovering(Self.itemKey(pathHash, item), length: length),
                            best.map({ precedes(found, $0) }) ?? true
                        {
                            best = found
                        }
                    }
                }
                return best
            }
            // The path's segment prefixes, longest first (more path segments are more specific),
            // then the root: "/a/b" probes "/a/b" (depth 2), "/a" (depth 1), then "/".
            var slashes = 0
            for b in path where b == UInt8(ascii: "/") { slashes += 1 }
            return withUnsafeTemporaryAllocation(of: (hash: UInt64, length: Int).self, capacity: slashes + 1) { prefixes in
                var count = 0
                var h = hostHash
                for (length, b) in path.enumerated() {
                    if b == UInt8(ascii: "/") && length > 0 {
                        prefixes[count] = (h, length)
                        count += 1
                    }
                    h = (h ^ UInt64(b)) &* Self.fnvPrime
                }
                if let found = best(h, length: path.count, depth: Self.depth(path)) { return found }
                for p in stride(from: count - 1, through: 0, by: -1) {
                    // The prefix ending before the (p + 2)th "/" holds p + 1 of them.
                    if let found = best(prefixes[p].hash, length: prefixes[p].length, depth: 1 << UInt64(min(p + 1, 63))) { return found }
                }
                guard path.count > 1 else { return nil }
                return best(Self.extend(hostHash, Self.rootPath), length: 1, depth: 1)
            }
        }
    }

    /// The root path "/", as bytes (a static string's: never freed).
    static var rootPath: UnsafeBufferPointer<UInt8> {
        let slash: StaticString = "/"
        return UnsafeBufferPointer(start: slash.utf8Start, count: 1)
    }

    /// `stored` (lower-case) equals `given` in any case (RFC 3986 §6.2.2.1: the host is case-insensitive).
    @inline(__always) static func equalHosts(_ stored: UnsafeBufferPointer<UInt8>, _ given: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == given.count else { return false }
        for i in 0..<stored.count where stored[i] != PlainInvocationURL.lowercased(given[i]) { return false }
        return true
    }

    /// Calls `body` with each canonical query item's name and value ("name=value", split at the first "=").
    static func forEachCanonicalItem(_ query: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) -> Bool) -> Bool {
        var start = 0
        while start < query.count {
            var end = start
            while end < query.count, query[end] != UInt8(ascii: "&") { end += 1 }
            let item = start..<end
            let eq = query[item].firstIndex(of: UInt8(ascii: "=")) ?? end
            guard body(start..<eq, eq < end ? (eq + 1)..<end : end..<end) else { return false }
            start = end + 1
        }
        return true
    }

    /// The most specific experience live at `at` covering `url`, if any.
    public func bestMatch(_ url: NormalizedURL, at: Instant) -> AdvancedExperience? { bestSlot(url, at: at).map(materialize) }

    func bestSlot(_ url: NormalizedURL, at: Instant) -> Int? {
        var host = url.host, path = url.path
        // The invocation's query items as a set, built only for a candidate that requires some.
        var items: Set<NormalizedURL.QueryItem>?
        let queryItems = url.queryItems
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: queryItems.count) { hashes in
            for (i, item) in queryItems.enumerated() {
                var name = item.name, value = item.value ?? ""
                hashes[i] = name.withUTF8 { n in value.withUTF8 { v in Self.itemHash(name: n, value: v) } }
            }
            return host.withUTF8 { hostBytes in
                path.withUTF8 { pathBytes in
                    bestSlot(host: hostBytes, path: pathBytes, items: UnsafeBufferPointer(hashes), at: at) { query in
                        if items == nil { items = Set(url.queryItems) }
                        return Self.forEachCanonicalItem(query) { name, value in
                            items!.contains(
                                .init(
                                    name: String(decoding: query[name], as: UTF8.self), value: String(decoding: query[value], as: UTF8.self)
                                ))
                        }
                    }
                }
            }
        }
    }

    /// The probes alone (clip-bench's `probe`): the id of the experience a normalized URL resolves to.
    public func matchID(normalized url: NormalizedURL, at: Instant) -> Int64? { bestSlot(url, at: at).map { records[$0].id } }

    /// The answer `Resolver.resolve` gives, without the candidate explanation.
    public func resolve(_ invocationURL: String, preferences: [Language], at: Instant) -> Resolution {
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return Resolver.unresolvable(invocationURL, problem: error) }
        return resolve(invocationURL, url: url, preferences: preferences, at: at)
    }

    /// The same, for a URL the caller normalized already.
    public func resolve(_ invocationURL: String, url: NormalizedURL, preferences: [Language], at: Instant) -> Resolution {
        Resolver.answer(
            invocationURL, url: url, winner: bestMatch(url, at: at), hostHasExperiences: hasExperiences(host: url.host),
            fallbacks: fallbacks[url.host] ?? [], preferences: preferences)
    }
}
