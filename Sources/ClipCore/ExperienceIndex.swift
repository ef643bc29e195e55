/// Every non-removed advanced experience and every host's default fallbacks, in memory, for
/// resolving without the database. Gives the same answers as `Resolver` (a test compares them on
/// generated data) at a cost that does not grow with the registry.
///
/// Registered URLs are keyed by host and path. A registered path covers an invocation path when
/// it equals it or is a prefix ending at a "/" (`NormalizedURL.pathCovers`), so the candidates of
/// an invocation are exactly those under its path's segment prefixes: probing them from the
/// longest down, each key's experiences in the specificity order (`NormalizedURL.isMoreSpecific`),
/// the first active one that `matches` is the most specific match. A lookup costs one dictionary
/// probe per path segment.
public struct ExperienceIndex: Sendable {
    /// Hash of (host, path) → slots of its experiences, most query items first, then by URL.
    /// Keys are hashes so that a probe needs no String; a candidate's own host and path are
    /// compared before it is used (hash collisions only cost a comparison).
    private var byHostPath: [Int: [Int32]] = [:]
    /// Experiences (any status) per host, for the "no experience on this host" answer.
    private var hostCounts: [String: Int] = [:]
    private var slots: [AdvancedExperience?] = []
    private var slotOfID: [Int64: Int32] = [:]
    private var freeSlots: [Int32] = []
    /// Default experiences offered on each host when no advanced experience matches.
    public private(set) var fallbacks: [String: [DefaultFallback]] = [:]

    public init() {}

    /// An empty index with room for `capacity` experiences (no rehashing while loading).
    public init(capacity: Int) {
        slots.reserveCapacity(capacity)
        slotOfID.reserveCapacity(capacity)
        byHostPath.reserveCapacity(capacity)
    }

    public var count: Int { slotOfID.count }

    public func experience(id: Int64) -> AdvancedExperience? { slotOfID[id].flatMap { slots[Int($0)] } }

    /// Adds an experience, or replaces the one with its id (its URL or status may have changed).
    public mutating func upsert(_ experience: AdvancedExperience) {
        remove(id: experience.id)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = experience
        } else {
            slot = Int32(slots.count)
            slots.append(experience)
        }
        slotOfID[experience.id] = slot
        let url = experience.url
        let key = Self.key(url.host, Substring(url.path))
        var list = byHostPath[key, default: []]
        let position = list.firstIndex { Self.precedes(experience, slots[Int($0)]!) } ?? list.endIndex
        list.insert(slot, at: position)
        byHostPath[key] = list
        hostCounts[url.host, default: 0] += 1
    }

    /// FNV-1a (64-bit) over host, a 0 byte, and path: computed for every prefix of a path in one
    /// pass (`bestMatch`), so a lookup hashes its URL once, however many probes it makes.
    static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    static func key(_ host: String, _ path: Substring) -> Int {
        var h = hostHash(host)
        for b in path.utf8 { h = (h ^ UInt64(b)) &* fnvPrime }
        return Int(bitPattern: UInt(h))
    }

    static func hostHash(_ host: String) -> UInt64 {
        var h = fnvOffset
        for b in host.utf8 { h = (h ^ UInt64(b)) &* fnvPrime }
        return (h ^ 0) &* fnvPrime
    }

    public mutating func remove(id: Int64) {
        guard let slot = slotOfID.removeValue(forKey: id), let old = slots[Int(slot)] else { return }
        slots[Int(slot)] = nil
        freeSlots.append(slot)
        let url = old.url
        let key = Self.key(url.host, Substring(url.path))
        if var list = byHostPath[key] {
            list.removeAll { $0 == slot }
            byHostPath[key] = list.isEmpty ? nil : list
        }
        let remaining = (hostCounts[url.host] ?? 1) - 1
        hostCounts[url.host] = remaining > 0 ? remaining : nil
    }

    public mutating func setFallbacks(_ fallbacks: [String: [DefaultFallback]]) { self.fallbacks = fallbacks }

    /// The specificity order (`NormalizedURL.isMoreSpecific`) among experiences with the same path.
    static func precedes(_ a: AdvancedExperience, _ b: AdvancedExperience) -> Bool { NormalizedURL.isMoreSpecific(a.url, than: b.url) }

    /// The most specific active experience covering `url`, if any.
    public func bestMatch(_ url: NormalizedURL) -> AdvancedExperience? {
        guard hostCounts[url.host] != nil else { return nil }
        // The keys of the path's segment prefixes, in one pass: "/a/b" gives "/a" then "/a/b".
        var probes: [(key: Int, length: Int)] = []
        var h = Self.hostHash(url.host)
        var length = 0
        for b in url.path.utf8 {
            if b == UInt8(ascii: "/") && length > 0 { probes.append((Int(bitPattern: UInt(h)), length)) }
            h = (h ^ UInt64(b)) &* Self.fnvPrime
            length += 1
        }
        probes.append((Int(bitPattern: UInt(h)), length))
        probes.reverse()  // longest first: more path segments are more specific
        if url.path != "/" { probes.append((Self.key(url.host, "/"), 1)) }
        // The invocation's query items as a set, built only for a candidate that requires some.
        var items: Set<NormalizedURL.QueryItem>?
        for (key, length) in probes {
            guard let list = byHostPath[key] else { continue }
            for slot in list {
                guard let candidate = slots[Int(slot)], candidate.status == .active, candidate.url.path.utf8.count == length else {
                    continue
                }
                if !candidate.url.queryItems.isEmpty && items == nil { items = Set(url.queryItems) }
                // A hash names a key; the match rule itself decides (a collision costs a comparison).
                guard candidate.url.matches(url, invocationItems: items ?? []) else { continue }
                return candidate
            }
        }
        return nil
    }

    /// The answer `Resolver.resolve` gives, without the candidate explanation.
    public func resolve(_ invocationURL: String, preferences: [Language]) -> Resolution {
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return Resolver.unresolvable(invocationURL, problem: error) }
        return resolve(invocationURL, url: url, preferences: preferences)
    }

    /// The same, for a URL the caller normalized already.
    public func resolve(_ invocationURL: String, url: NormalizedURL, preferences: [Language]) -> Resolution {
        Resolver.answer(
            invocationURL, url: url, winner: bestMatch(url), hostHasExperiences: hostCounts[url.host] != nil,
            fallbacks: fallbacks[url.host] ?? [], preferences: preferences)
    }
}
