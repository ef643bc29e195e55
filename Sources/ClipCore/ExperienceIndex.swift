import ByteScan
import StrictJSON

/// Every non-removed advanced experience and every host's default fallbacks, in memory, for
/// resolving without the database. Gives the same answers as `Resolver` (a test compares them on
/// generated data) at a cost that does not grow with the registry.
///
/// Registered URLs are keyed by host and path. A registered path covers an invocation path when
/// it equals it or is a prefix ending at a "/" (`NormalizedURL.pathCovers`), so the candidates of
/// an invocation are exactly those under its path's segment prefixes: probing them from the
/// longest down, each key's experiences in the specificity order (`NormalizedURL.isMoreSpecific`),
/// the first active one that matches is the most specific match. A lookup costs one table probe
/// per path segment.
///
/// Layout (an arena): one `Record` of plain integers per experience in a flat array, every string
/// in one byte buffer, and an open-addressing table from 64-bit keys to the first record of a
/// chain. A million experiences as Swift values (each with about ten heap references) took 959 MiB
/// and 7 s to build, and a lookup touched dictionary buckets, the slot array and several strings
/// (4.3 µs of probes at a million, bound by cache misses); here a lookup reads the table, the
/// records of its chain and the bytes it compares, and allocates nothing.
public struct ExperienceIndex: Sendable {
    /// One experience. Offsets point into `bytes`.
    struct Record {
        var id: Int64
        var version: Int64
        /// The key of its host and path (`key`), masked by `keyMask`.
        var key: UInt64
        /// The canonical URL, then the other fields (`appendData`).
        var data: Int
        var dataLength: Int32
        /// The localizations (`appendLocalization`), or -1.
        var localizations: Int
        var localizationsLength: Int32
        /// The next record with the same key, in the specificity order; -1 ends the chain.
        var next: Int32
        var hostLength: Int32
        var pathLength: Int32
        var urlLength: Int32
        /// `NormalizedURL.pathSegmentCount` and `distinctQueryItemCount`, for the specificity order.
        var segments: Int32
        var queryItems: Int32
        /// An index into `ExperienceStatus.allCases`; `Record.free` for a free slot.
        var status: UInt8
        static let free: UInt8 = 0xFF
    }

    private var records: [Record] = []
    private var bytes: [UInt8] = []
    /// Bytes of `bytes` that no record uses any more; compacted when they are most of it.
    private var garbage = 0
    /// Key → first record of its chain. Keys are hashes, so that a probe needs no String; a
    /// candidate's own host and path are compared before it is used (a collision costs a comparison).
    private var chains = UInt64Table()
    /// Host key → first `HostEntry` with that key: the hosts that have experiences (any status),
    /// for the "no experience on this host" answer and a lookup's first check. Found by the host's
    /// bytes, so that loading a million experiences makes no String per row (start-up's profile).
    private var hosts = UInt64Table()
    private var hostEntries: [HostEntry] = []
    private var freeHostEntries: [Int32] = []
    private struct HostEntry {
        var name: [UInt8]
        var experiences: Int
        /// Bit d is set when an experience of the host (any status) has a path of depth d
        /// (`depth`): a lookup probes only those depths. Kept while the host has experiences (a
        /// bit left by a removed one costs a probe, never an answer).
        var depths: UInt64
        /// The same for its experiences that require query items.
        var queryDepths: UInt64
        /// The next entry with the same key, or -1.
        var next: Int32
    }
    /// The largest id ever stored: a larger one cannot be present (loading in id order skips the lookup).
    private var largestID = Int64.min
    /// Experience id → slot (a `UInt64Table`: start-up's profile showed `Dictionary`'s hashing
    /// of a million ids at 14% of loading).
    private var slotOfID = UInt64Table(denseKeys: true)
    /// The slot the last localization went to, for loading them in experience order without a lookup.
    private var lastLocalized = -1
    private var freeSlots: [Int32] = []
    /// Slots stored by `load` and not yet in their keys' chains (`finishLoading`).
    private var unlinked: [Int32] = []
    private var clips: [AppID] = []
    /// Each clip's App ID as UTF-8, for answers (`AppID.rawValue` builds a String).
    private var clipTexts: [[UInt8]] = []
    private var clipNumbers: [AppID: Int32] = [:]
    /// Applied to every key: all bits but in tests, which force collisions with fewer.
    let keyMask: UInt64

    /// Default experiences offered on each host when no advanced experience matches.
    public private(set) var fallbacks: [String: [DefaultFallback]] = [:]
    /// `hostHash` of each host in `fallbacks`: a plain URL's host is looked up by its bytes, without
    /// the `String` a dictionary key needs (an allocation for a host of more than 15 bytes).
    private var fallbackHostHashes: Set<UInt64> = []

    public init() { self.init(capacity: 0) }

    /// An empty index with room for `capacity` experiences (no rehashing while loading).
    public init(capacity: Int) { self.init(capacity: capacity, keyBits: 64) }

    /// An empty index whose keys keep `keyMask`'s bits (a saved image's, `init(image:read:)`).
    private init(keyMask: UInt64) { self.keyMask = keyMask }

    /// `keyBits` < 64 keeps only that many bits of each key: a test hook that makes different
    /// hosts and paths share keys, as 64-bit hashes do only rarely.
    init(capacity: Int, keyBits: Int) {
        keyMask = keyBits >= 64 ? ~0 : (1 << UInt64(keyBits)) - 1
        records.reserveCapacity(capacity)
        // About 130 bytes of URL, clip number, texts and lengths per experience in the bench's data.
        bytes.reserveCapacity(capacity * 136)
        slotOfID = UInt64Table(capacity: capacity, denseKeys: true)
        chains = UInt64Table(capacity: capacity)
    }

    public var count: Int { slotOfID.count }

    /// Bytes held by the arena's arrays (for clip-bench; dictionaries not counted).
    public var arenaBytes: Int {
        records.capacity * MemoryLayout<Record>.stride + bytes.capacity + chains.footprint + hosts.footprint
    }

    /// Calls `body` with the start and byte count of each of the arena's large buffers, their whole
    /// reserved capacity, for advice to the kernel (`LiveIndex` asks for huge pages before
    /// loading). `body` must not read or write the memory.
    public func forEachArenaRegion(_ body: (UnsafeRawPointer, Int) -> Void) {
        records.withUnsafeBufferPointer { if let start = $0.baseAddress { body(start, records.capacity * MemoryLayout<Record>.stride) } }
        bytes.withUnsafeBufferPointer { if let start = $0.baseAddress { body(start, bytes.capacity) } }
        chains.forEachRegion(body)
        slotOfID.forEachRegion(body)
    }

    // MARK: Keys

    /// FNV-1a (64-bit) over host, a 0 byte, and path: computed for every prefix of a path in one
    /// pass (`bestSlot`), so a lookup hashes its URL once, however many probes it makes.
    static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always) static func hostHash(_ host: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = fnvOffset
        for b in host { h = (h ^ UInt64(PlainInvocationURL.lowercased(b))) &* fnvPrime }
        return (h ^ 0) &* fnvPrime
    }

    @inline(__always) static func extend(_ h: UInt64, _ path: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = h
        for b in path { h = (h ^ UInt64(b)) &* fnvPrime }
        return h
    }

    /// The key of an experience that requires query items: its host and path's FNV-1a
    /// (`pathHash`, before `keyMask`) and the hash of its first required item, "name=value" in the
    /// canonical order (`itemHash`). Such an experience can cover an invocation only if the
    /// invocation has that item, so a lookup probes one key per item it has, and a chain holds the
    /// experiences that share a first item rather than every one on the path. (In the bench's
    /// data, "https://h85.example/rent?id=N" for hundreds of N made one chain of hundreds of
    /// records: 3.5% of the requests walked it, a cache miss or two per record, and the median
    /// lookup at a million experiences went from 0.72 µs without them to 1.2 µs with them.)
    @inline(__always) static func itemKey(_ pathHash: UInt64, _ itemHash: UInt64) -> UInt64 {
        (((pathHash ^ UInt64(UInt8(ascii: "?"))) &* fnvPrime) ^ itemHash) &* fnvPrime
    }

    /// FNV-1a of a query item as the canonical text writes it: name, "=", value.
    @inline(__always) static func itemHash(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> UInt64 {
        extend((extend(fnvOffset, name) ^ UInt64(UInt8(ascii: "="))) &* fnvPrime, value)
    }

    // MARK: Changing

    public func experience(id: Int64) -> AdvancedExperience? { slot(id).map(materialize) }

    private func slot(_ id: Int64) -> Int? { slotOfID[UInt64(bitPattern: id)].map(Int.init) }

    /// Adds an experience, or replaces the one with its id (its URL or status may have changed).
    public mutating func upsert(_ experience: AdvancedExperience) {
        finishLoading()
        remove(id: experience.id)
        let url = experience.url
        let slot = newSlot()
        let data = bytes.count
        bytes.append(contentsOf: url.canonical.utf8)
        let hostLength = url.host.utf8.count, pathLength = url.path.utf8.count
        let clip = clipNumber(experience.clip)
        let image = experience.headerImage.map { Array($0.utf8) }, place = experience.place.map { JSONWriter.bytes($0) }
        image.withOptionalBuffer { image in
            place.withOptionalBuffer { place in
                appendData(
                    clip: clip, action: experience.action, defaultLanguage: experience.defaultLanguage, isPoweredBy: experience.isPoweredBy,
                    category: experience.businessCategory, headerImage: image, place: place)
            }
        }
        var record = Record(
            id: experience.id, version: Int64(experience.version), key: 0, data: data, dataLength: Int32(bytes.count - data),
            localizations: -1, localizationsLength: 0, next: -1, hostLength: Int32(hostLength), pathLength: Int32(pathLength),
            urlLength: Int32(url.canonical.utf8.count), segments: Int32(url.pathSegmentCount),
            queryItems: Int32(url.distinctQueryItemCount), status: Self.statusNumber(experience.status))
        if !experience.localizations.isEmpty {
            record.localizations = bytes.count
            // Sorted, so that the same experience always gives the same bytes.
            for (language, card) in experience.localizations.sorted(by: { $0.key < $1.key }) {
                appendLocalization(
                    to: &record, language: Self.languageNumber(language), title: Array(card.title.utf8), subtitle: Array(card.subtitle.utf8)
                )
            }
        }
        store(record, at: slot)
        compactIfMostlyGarbage()
    }

    public mutating func remove(id: Int64) {
        finishLoading()
        guard let slot = slot(id) else { return }
        slotOfID.remove(UInt64(bitPattern: id))
        let record = records[Int(slot)]
        unlink(Int(slot))
        countHost(of: record, by: -1)
        garbage += Int(record.dataLength) + Int(record.localizationsLength)
        records[Int(slot)].status = Record.free
        freeSlots.append(Int32(slot))
    }

    public mutating func setFallbacks(_ fallbacks: [String: [DefaultFallback]]) {
        self.fallbacks = fallbacks
        fallbackHostHashes = Set(
            fallbacks.keys.map {
                var host = $0; return host.withUTF8 { Self.hostHash($0) }
            })
    }

    private mutating func newSlot() -> Int {
        if let free = freeSlots.popLast() { return Int(free) }
        records.append(
            Record(
                id: 0, version: 0, key: 0, data: 0, dataLength: 0, localizations: -1, localizationsLength: 0, next: -1, hostLength: 0,
                pathLength: 0, urlLength: 0, segments: 0, queryItems: 0, status: Record.free))
        return records.count - 1
    }

    /// Stores `record` (its bytes written already) in `slot` and links it into its key's chain
    /// and the host counts.
    private mutating func store(_ record: Record, at slot: Int, linking: Bool = true) {
        var record = record
        record.key = withURL(record) { url in
            let pathHash = Self.extend(Self.hostHash(Self.host(url, record)), Self.path(url, record))
            let queryStart = 8 + Int(record.hostLength) + Int(record.pathLength)
            guard queryStart < url.count else { return pathHash & keyMask }
            // Keyed by its first required item too (a name alone, "?flag", matches as "flag=").
            let query = UnsafeBufferPointer(rebasing: url[(queryStart + 1)...])
            var first: UInt64 = 0
            _ = Self.forEachCanonicalItem(query) { name, value in
                first = Self.itemHash(name: UnsafeBufferPointer(rebasing: query[name]), value: UnsafeBufferPointer(rebasing: query[value]))
                return false
            }
            return Self.itemKey(pathHash, first) & keyMask
        }
        records[slot] = record
        slotOfID.set(UInt64(bitPattern: record.id), Int32(slot))
        if linking { link(slot) } else { unlinked.append(Int32(slot)) }
        largestID = max(largestID, record.id)
        countHost(of: record, by: 1)
    }

    /// The entry of `host` (any case), if it has experiences.
    private func hostEntry(_ host: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil) -> Int? {
        var entry = hosts[(hash ?? Self.hostHash(host)) & keyMask] ?? -1
        while entry >= 0 {
            let found = hostEntries[Int(entry)].name.withUnsafeBufferPointer { Self.equalHosts($0, host) }
            if found { return Int(entry) }
            entry = hostEntries[Int(entry)].next
        }
        return nil
    }

    /// Adds `delta` (+1 or -1) to the experiences of `record`'s host, adding or dropping its entry.
    /// (The host is found first, then the tables change: changing them inside `withURL` would
    /// copy them on write, once per experience.)
    private mutating func countHost(of record: Record, by delta: Int) {
        let (key, found, depth) = withURL(record) { url in
            let host = Self.host(url, record)
            return (Self.hostHash(host) & keyMask, hostEntry(host), Self.depth(Self.path(url, record)))
        }
        let queryDepth = Int(record.urlLength) > 8 + Int(record.hostLength) + Int(record.pathLength) ? depth : 0
        if let entry = found {
            hostEntries[entry].experiences += delta
            if delta > 0 {
                hostEntries[entry].depths |= depth
                hostEntries[entry].queryDepths |= queryDepth
            }
            guard hostEntries[entry].experiences == 0 else { return }
            // Unlink the entry from its key's chain and free it.
            let next = hostEntries[entry].next
            if hosts[key] == Int32(entry) {
                if next >= 0 { hosts.set(key, next) } else { hosts.remove(key) }
            } else {
                var previous = Int(hosts[key]!)
                while hostEntries[previous].next != Int32(entry) { previous = Int(hostEntries[previous].next) }
                hostEntries[previous].next = next
            }
            hostEntries[entry].name = []
            freeHostEntries.append(Int32(entry))
            return
        }
        guard delta > 0 else { return }
        let name = Array(bytes[(record.data + 8)..<(record.data + 8 + Int(record.hostLength))])
        let created = HostEntry(name: name, experiences: delta, depths: depth, queryDepths: queryDepth, next: hosts[key] ?? -1)
        let entry: Int
        if let free = freeHostEntries.popLast() {
            entry = Int(free)
            hostEntries[entry] = created
        } else {
            entry = hostEntries.count
            hostEntries.append(created)
        }
        hosts.set(key, Int32(entry))
    }

    /// The bit of a path's depth for `HostEntry.depths`: its number of "/" (0 for the root "/"),
    /// 63 for 63 or more. A function of the bytes alone, so that equal paths have equal depths.
    @inline(__always) static func depth(_ path: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard path.count > 1 else { return 1 }
        var slashes = 0
        for b in path where b == UInt8(ascii: "/") { slashes += 1 }
        return 1 << UInt64(min(slashes, 63))
    }

    private func hasExperiences(host: String) -> Bool {
        var host = host
        return host.withUTF8 { hostEntry($0) != nil }
    }

    /// Inserts `slot` into its key's chain before the first record it is more specific than.
    private mutating func link(_ slot: Int) {
        let key = records[slot].key
        guard let head = chains[key] else {
            records[slot].next = -1
            chains.set(key, Int32(slot))
            return
        }
        if precedes(slot, Int(head)) {
            records[slot].next = head
            chains.set(key, Int32(slot))
            return
        }
        var previous = Int(head)
        while records[previous].next >= 0, !precedes(slot, Int(records[previous].next)) { previous = Int(records[previous].next) }
        records[slot].next = records[previous].next
        records[previous].next = Int32(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let key = records[slot].key
        guard let head = chains[key] else { return }
        if Int(head) == slot {
            let next = records[slot].next
            if next >= 0 { chains.set(key, next) } else { chains.remove(key) }
            return
        }
        var previous = Int(head)
        while records[previous].next >= 0 && Int(records[previous].next) != slot { previous = Int(records[previous].next) }
        if Int(records[previous].next) == slot { records[previous].next = records[slot].next }
    }

    /// The specificity order (`NormalizedURL.isMoreSpecific`) on records: more path segments,
    /// then more distinct query items, then the smaller canonical text (ASCII, so bytes compare
    /// as the Strings do).
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let ra = records[a], rb = records[b]
        if ra.segments != rb.segments { return ra.segments > rb.segments }
        if ra.queryItems != rb.queryItems { return ra.queryItems > rb.queryItems }
        return withURL(ra) { ua in withURL(rb) { ub in ua.lexicographicallyPrecedes(ub) } }
    }

    /// Rewrites `bytes` without what removed experiences left, once that is most of it (many
    /// replays of one experience would otherwise grow it without bound).
    private mutating func compactIfMostlyGarbage() {
        guard garbage > 1 << 16, garbage * 2 > bytes.count else { return }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(bytes.count - garbage)
        for slot in records.indices where records[slot].status != Record.free {
            let r = records[slot]
            records[slot].data = fresh.count
            fresh.append(contentsOf: bytes[r.data..<(r.data + Int(r.dataLength))])
            if r.localizations >= 0 {
                records[slot].localizations = fresh.count
                fresh.append(contentsOf: bytes[r.localizations..<(r.localizations + Int(r.localizationsLength))])
            }
        }
        bytes = fresh
        garbage = 0
    }

    // MARK: Loading in bulk

    /// The number of `clip` for `load` (clips are shared between experiences and stored once).
    public mutating func clipNumber(_ clip: AppID) -> Int32 {
        if let n = clipNumbers[clip] { return n }
        clips.append(clip)
        clipTexts.append(Array(clip.rawValue.utf8))
        clipNumbers[clip] = Int32(clips.count - 1)
        return Int32(clips.count - 1)
    }

    /// Adds an experience from its stored columns without making Swift values of them (the start-up
    /// cost of a million: `LiveIndex` reads SQLite's column bytes straight into the arena). The
    /// URL is trusted as stored when it splits into a canonical form (`NormalizedURL(canonical:)`
    /// otherwise). Returns false for an id already present (nothing is changed then).
    public mutating func load(
        id: Int64, url: UnsafeBufferPointer<UInt8>, clip: Int32, action: Action, defaultLanguage: Language, isPoweredBy: Bool,
        category: BusinessCategory?, headerImage: UnsafeBufferPointer<UInt8>?, place: UnsafeBufferPointer<UInt8>?, status: ExperienceStatus,
        version: Int64
    ) throws(NormalizedURL.Problem) {
        if id <= largestID {
            finishLoading()
            remove(id: id)
        }
        let data = bytes.count
        let shape: (host: Int, path: Int, segments: Int, queryItems: Int)
        if let plain = Self.canonicalShape(url) {
            shape = plain
            bytes.append(contentsOf: url)
        } else {
            let parsed = try NormalizedURL(canonical: String(decoding: url, as: UTF8.self))
            shape = (parsed.host.utf8.count, parsed.path.utf8.count, parsed.pathSegmentCount, parsed.distinctQueryItemCount)
            bytes.append(contentsOf: parsed.canonical.utf8)
        }
        let urlLength = bytes.count - data
        appendData(
            clip: clip, action: action, defaultLanguage: defaultLanguage, isPoweredBy: isPoweredBy, category: category,
            headerImage: headerImage, place: place)
        let record = Record(
            id: id, version: version, key: 0, data: data, dataLength: Int32(bytes.count - data), localizations: -1, localizationsLength: 0,
            next: -1, hostLength: Int32(shape.host), pathLength: Int32(shape.path), urlLength: Int32(urlLength),
            segments: Int32(shape.segments), queryItems: Int32(shape.queryItems), status: Self.statusNumber(status))
        store(record, at: newSlot(), linking: false)
    }

    /// Links the experiences `load` stored into their keys' chains; lookups see them only then.
    /// They are linked in the order of their keys' slots in the table, so that its writes go
    /// front to back: linked as loaded, each missed the cache (start-up at a million experiences,
    /// `perf record`: the table's lookups in `link` 10% of loading). Chains end up the same in any
    /// order (`precedes` is a total order).
    public mutating func finishLoading() {
        guard !unlinked.isEmpty else { return }
        // A counting sort on the top bits of each key's slot: buckets of a few KB of the table.
        let bucketBits = min(chains.slotCount.trailingZeroBitCount, 12)
        let shift = chains.slotCount.trailingZeroBitCount - bucketBits
        var starts = [Int](repeating: 0, count: (1 << bucketBits) + 1)
        for slot in unlinked { starts[chains.homeSlot(records[Int(slot)].key) >> shift + 1] += 1 }
        for b in 0..<(1 << bucketBits) { starts[b + 1] += starts[b] }
        var ordered = [(key: UInt64, slot: Int32)](repeating: (0, 0), count: unlinked.count)
        for slot in unlinked {
            let key = records[Int(slot)].key, bucket = chains.homeSlot(key) >> shift
            ordered[starts[bucket]] = (key, slot)
            starts[bucket] += 1
        }
        unlinked = []
        for (key, slot) in ordered {
            // The first of its key: the chain is this record alone (`load` stored it with no next).
            if chains[key] == nil { chains.set(key, slot) } else { link(Int(slot)) }
        }
    }

    /// Adds a localization to the experience `id` (loaded already). The localizations of one
    /// experience must come one after the other (`LiveIndex` reads them ordered by experience).
    public mutating func loadLocalization(
        id: Int64, language: Language, title: UnsafeBufferPointer<UInt8>, subtitle: UnsafeBufferPointer<UInt8>
    ) {
        // Loaded in experience order: the same slot as the last localization, or the next one.
        let slot: Int
        if lastLocalized >= 0 && lastLocalized < records.count && records[lastLocalized].id == id
            && records[lastLocalized].status != Record.free
        {
            slot = lastLocalized
        } else if lastLocalized + 1 < records.count && records[lastLocalized + 1].id == id
            && records[lastLocalized + 1].status != Record.free
        {
            slot = lastLocalized + 1
        } else if let found = self.slot(id) {
            slot = found
        } else {
            return
        }
        lastLocalized = slot
        var record = records[slot]
        if record.localizations >= 0 && record.localizations + Int(record.localizationsLength) != bytes.count {
            // Not the last block written: copy it to the end so that it can grow.
            let old = record.localizations
            record.localizations = bytes.count
            bytes.append(contentsOf: bytes[old..<(old + Int(record.localizationsLength))])
            garbage += Int(record.localizationsLength)
        }
        if record.localizations < 0 { record.localizations = bytes.count }
        appendLocalization(to: &record, language: Self.languageNumber(language), title: title, subtitle: subtitle)
        records[slot] = record
    }

    /// Host and path lengths, segments and distinct query items of a URL already in canonical form
    /// as the registry writes it ("https://", an LDH host, a plain path, query items sorted, each
    /// with "="); nil for anything else, which `NormalizedURL(canonical:)` checks in full.
    static func canonicalShape(_ url: UnsafeBufferPointer<UInt8>) -> (host: Int, path: Int, segments: Int, queryItems: Int)? {
        let prefix: StaticString = "https://"
        guard url.count > 9, url.count <= NormalizedURL.maxLength,
            url.prefix(8).elementsEqual(UnsafeBufferPointer(start: prefix.utf8Start, count: 8))
        else { return nil }
        var i = 8
        while i < url.count, url[i] != UInt8(ascii: "/"), url[i] != UInt8(ascii: "?") { i += 1 }
        guard i < url.count, url[i] == UInt8(ascii: "/"), DomainName.isNormalLDH(UnsafeBufferPointer(rebasing: url[8..<i])) else {
            return nil
        }
        let host = i - 8, pathStart = i
        var segments = 0
        while i < url.count, url[i] != UInt8(ascii: "?") {
            if url[i] == UInt8(ascii: "/") { segments += 1 }
            i += 1
        }
        guard case .some(let normal) = PlainInvocationURL.plainPath(url, pathStart..<i), (normal?.upperBound ?? pathStart + 1) == i else {
            return nil
        }
        let path = i - pathStart
        if path == 1 { segments = 0 }
        guard i < url.count else { return (host, path, segments, 0) }
        // Items strictly increasing, each with an "=" and only bytes the query keeps as they are:
        // the canonical text of a set of distinct items.
        var items = 0, previous: Range<Int>? = nil, start = i + 1
        while start <= url.count {
            var end = start, equals = 0
            while end < url.count, url[end] != UInt8(ascii: "&") {
                if url[end] == UInt8(ascii: "=") { equals += 1 } else if !NormalizedURL.isQueryByte(url[end]) { return nil }
                end += 1
            }
            guard equals == 1 else { return nil }
            if let previous, !url[previous].lexicographicallyPrecedes(url[start..<end]) { return nil }
            previous = start..<end
            items += 1
            start = end + 1
        }
        return (host, path, segments, items)
    }

    // MARK: The arena's bytes

    /// After the canonical URL: clip number (4 bytes), action, default language, powered-by,
    /// category (0xFF: none), then the header image and the place (JSON), each a 4-byte length
    /// (0xFFFF_FFFF: none) and its bytes.
    private mutating func appendData(
        clip: Int32, action: Action, defaultLanguage: Language, isPoweredBy: Bool, category: BusinessCategory?,
        headerImage: UnsafeBufferPointer<UInt8>?,
        place: UnsafeBufferPointer<UInt8>?
    ) {
        appendUInt32(UInt32(bitPattern: clip))
        bytes.append(UInt8(Self.actions.firstIndex(of: action)!))
        bytes.append(Self.languageNumber(defaultLanguage))
        bytes.append(isPoweredBy ? 1 : 0)
        bytes.append(category.map { UInt8(Self.categories.firstIndex(of: $0)!) } ?? 0xFF)
        appendField(headerImage)
        appendField(place)
    }

    private mutating func appendField(_ field: UnsafeBufferPointer<UInt8>?) {
        if let field {
            appendUInt32(UInt32(field.count))
            bytes.append(contentsOf: field)
        } else {
            appendUInt32(.max)
        }
    }

    /// Each localization: language, then title and subtitle, each a 4-byte length and its bytes.
    private mutating func appendLocalization<T: Collection<UInt8>>(to record: inout Record, language: UInt8, title: T, subtitle: T) {
        let start = bytes.count
        bytes.append(language)
        appendUInt32(UInt32(title.count))
        bytes.append(contentsOf: title)
        appendUInt32(UInt32(subtitle.count))
        bytes.append(contentsOf: subtitle)
        record.localizationsLength += Int32(bytes.count - start)
    }

    private mutating func appendUInt32(_ n: UInt32) {
        withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads a record's fields from `bytes`.
    struct Fields {
        var clip: Int
        var action: Int
        var defaultLanguage: UInt8
        var isPoweredBy: Bool
        var category: UInt8
        var headerImage: Range<Int>?
        var place: Range<Int>?
    }

    private func fields(_ r: Record) -> Fields {
        var i = r.data + Int(r.urlLength)
        let clip = Int(readUInt32(i))
        i += 4
        var f = Fields(
            clip: clip, action: Int(bytes[i]), defaultLanguage: bytes[i + 1], isPoweredBy: bytes[i + 2] != 0, category: bytes[i + 3],
            headerImage: nil, place: nil)
        i += 4
        var length = readUInt32(i)
        i += 4
        if length != .max {
            f.headerImage = i..<(i + Int(length))
            i += Int(length)
        }
        length = readUInt32(i)
        i += 4
        if length != .max { f.place = i..<(i + Int(length)) }
        return f
    }

    @inline(__always) private func readUInt32(_ i: Int) -> UInt32 {
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    /// The title and subtitle of `language` in a record's localizations, if it has it.
    private func card(_ r: Record, _ language: UInt8) -> (title: Range<Int>, subtitle: Range<Int>)? {
        guard r.localizations >= 0 else { return nil }
        var i = r.localizations
        let end = i + Int(r.localizationsLength)
        while i < end {
            let lang = bytes[i]
            let titleLength = Int(readUInt32(i + 1))
            let title = (i + 5)..<(i + 5 + titleLength)
            let subtitleLength = Int(readUInt32(title.upperBound))
            let subtitle = (title.upperBound + 4)..<(title.upperBound + 4 + subtitleLength)
            if lang == language { return (title, subtitle) }
            i = subtitle.upperBound
        }
        return nil
    }

    static let actions = Action.allCases
    static let languages = Language.allCases
    static let categories = BusinessCategory.allCases
    static let statuses = ExperienceStatus.allCases
    static let active = statusNumber(.active)
    static let actionTexts = actions.map { Array($0.rawValue.utf8) }
    static let languageTexts = languages.map { Array($0.rawValue.utf8) }
    static let categoryTexts = categories.map { Array($0.rawValue.utf8) }

    static func languageNumber(_ language: Language) -> UInt8 { UInt8(languages.firstIndex(of: language)!) }
    static func statusNumber(_ status: ExperienceStatus) -> UInt8 { UInt8(statuses.firstIndex(of: status)!) }

    @inline(__always) private func withURL<T>(_ r: Record, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[r.data..<(r.data + Int(r.urlLength))])) }
    }
    @inline(__always) static func host(_ url: UnsafeBufferPointer<UInt8>, _ r: Record) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: url[8..<(8 + Int(r.hostLength))])
    }
    @inline(__always) static func path(_ url: UnsafeBufferPointer<UInt8>, _ r: Record) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: url[(8 + Int(r.hostLength))..<(8 + Int(r.hostLength) + Int(r.pathLength))])
    }

    /// The experience of a record as a Swift value (timestamps left out: no answer served from
    /// the index shows them).
    private func materialize(_ slot: Int) -> AdvancedExperience {
        let r = records[slot]
        let f = fields(r)
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        var localizations: [Language: CardText] = [:]
        for language in Self.languages.indices {
            if let card = card(r, UInt8(language)) {
                localizations[Self.languages[language]] = CardText(title: text(card.title), subtitle: text(card.subtitle))
            }
        }
        // The URL and place were checked when stored: reading them back cannot fail.
        let url = try! NormalizedURL(canonical: text(r.data..<(r.data + Int(r.urlLength))))
        return AdvancedExperience(
            id: r.id, url: url, clip: clips[f.clip], action: Self.actions[f.action],
            defaultLanguage: Self.languages[Int(f.defaultLanguage)],
            isPoweredBy: f.isPoweredBy, businessCategory: f.category == 0xFF ? nil : Self.categories[Int(f.category)],
            localizations: localizations, headerImage: f.headerImage.map(text), place: f.place.map { try! JSONParser.parse(text($0)) },
            status: Self.statuses[Int(r.status)], version: Int(r.version))
    }

    // MARK: Lookup

    /// The slot of the most specific active experience covering the URL of `host` (any case)
    /// and `path` (normalized; "/" for the root), whose required query items `itemsMatch`; `items`
    /// are the hashes of the invocation's query items (`itemHash`).
    private func bestSlot(
        host: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>, items: UnsafeBufferPointer<UInt64>,
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

    /// The most specific active experience covering `url`, if any.
    public func bestMatch(_ url: NormalizedURL) -> AdvancedExperience? { bestSlot(url).map(materialize) }

    private func bestSlot(_ url: NormalizedURL) -> Int? {
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
                    bestSlot(host: hostBytes, path: pathBytes, items: UnsafeBufferPointer(hashes)) { query in
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
    public func matchID(normalized url: NormalizedURL) -> Int64? { bestSlot(url).map { records[$0].id } }

    /// The answer `Resolver.resolve` gives, without the candidate explanation.
    public func resolve(_ invocationURL: String, preferences: [Language]) -> Resolution {
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return Resolver.unresolvable(invocationURL, problem: error) }
        return resolve(invocationURL, url: url, preferences: preferences)
    }

    /// The same, for a URL the caller normalized already.
    public func resolve(_ invocationURL: String, url: NormalizedURL, preferences: [Language]) -> Resolution {
        Resolver.answer(
            invocationURL, url: url, winner: bestMatch(url), hostHasExperiences: hasExperiences(host: url.host),
            fallbacks: fallbacks[url.host] ?? [], preferences: preferences)
    }

    // MARK: Answers as bytes

    /// For a plain raw invocation URL (`PlainInvocationURL`), the slot of the active experience it
    /// resolves to, if any; nil when the URL is not plain and the full rules must read it.
    func plainMatch(_ invocationURL: UnsafeBufferPointer<UInt8>) -> Int?? {
        guard let plain = PlainInvocationURL(invocationURL) else { return nil }
        return .some(plainMatch(invocationURL, plain))
    }

    /// The slot of the active experience a plain URL, already read, resolves to.
    private func plainMatch(_ invocationURL: UnsafeBufferPointer<UInt8>, _ plain: PlainInvocationURL) -> Int? {
        let host = UnsafeBufferPointer(rebasing: invocationURL[plain.host])
        let path = plain.path.map { UnsafeBufferPointer(rebasing: invocationURL[$0]) } ?? Self.rootPath
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: PlainInvocationURL.maxQueryItems) { hashes in
            var count = 0
            _ = plain.forEachQueryItem(invocationURL) { n, v in
                hashes[count] = Self.itemHash(
                    name: UnsafeBufferPointer(rebasing: invocationURL[n]), value: UnsafeBufferPointer(rebasing: invocationURL[v]))
                count += 1
                return true
            }
            return bestSlot(host: host, path: path, items: UnsafeBufferPointer(rebasing: hashes[..<count])) { query in
                // Every required item among the invocation's (at most `maxQueryItems`, compared pair by pair).
                Self.forEachCanonicalItem(query) { name, value in
                    !plain.forEachQueryItem(invocationURL) { n, v in
                        !(invocationURL[n].elementsEqual(query[name]) && invocationURL[v].elementsEqual(query[value]))
                    }
                }
            }
        }
    }

    /// Normalization, probes, nothing more (clip-bench's `lookup`): the id of the experience a raw
    /// invocation URL resolves to (the full rules for a URL that is not plain).
    public func matchID(_ invocationURL: UnsafeBufferPointer<UInt8>) -> Int64? {
        if let plain = plainMatch(invocationURL) { return plain.map { records[$0].id } }
        guard let url = try? NormalizedURL(String(decoding: invocationURL, as: UTF8.self)) else { return nil }
        return bestSlot(url).map { records[$0].id }
    }

    /// Appends to `out` the bytes of `Resolution.json(explain: false)` when the raw invocation URL
    /// is plain (`PlainInvocationURL`) and resolves to an advanced experience; false otherwise
    /// (`out` unchanged), and the caller takes `resolve`. Allocates nothing once `out` has room.
    public func writeAdvancedAnswer(_ invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], into out: inout [UInt8]) -> Bool {
        guard case .some(.some(let slot)) = plainMatch(invocationURL) else { return false }
        writeAnswer(slot: slot, invocationURL: invocationURL, preferences: preferences, into: &out)
        return true
    }

    /// What `resolve` answers for a plain raw invocation URL (`PlainInvocationURL`), found from its bytes.
    public enum PlainAnswer: Equatable, Sendable {
        /// An advanced experience: its answer was appended (`writeAdvancedAnswer`).
        case advanced
        /// Nothing: no active experience covers the URL and no clip with a default experience is
        /// associated with its host. `host` is the URL's host within its bytes (to be lower-cased
        /// to be the normalized host); `hostHasExperiences` picks `Resolver`'s reason.
        case noMatch(host: Range<Int>, hostHasExperiences: Bool)
    }

    /// `writeAdvancedAnswer`, and also telling a plain URL that resolves to nothing, so that its
    /// 404 is written from bytes too (the 2% of the bench's URLs that match nothing took the full
    /// `Resolution` and its problem answer: about 40 allocations each). nil: not plain, or a
    /// default experience answers (`out` unchanged), and the caller takes `resolve`. Allocates nothing.
    public func writePlainAnswer(_ invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], into out: inout [UInt8])
        -> PlainAnswer?
    {
        guard let plain = PlainInvocationURL(invocationURL) else { return nil }
        if let slot = plainMatch(invocationURL, plain) {
            writeAnswer(slot: slot, invocationURL: invocationURL, preferences: preferences, into: &out)
            return .advanced
        }
        let host = UnsafeBufferPointer(rebasing: invocationURL[plain.host])
        let hash = Self.hostHash(host)
        // A host with a default experience answers it (rare): the full rules render that.
        guard !fallbackHostHashes.contains(hash) else { return nil }
        return .noMatch(host: plain.host, hostHasExperiences: hostEntry(host, hash: hash) != nil)
    }

    /// The same bytes for an advanced `resolution` this index gave (its experience's version still
    /// current); nil otherwise.
    public func advancedAnswerBytes(_ resolution: Resolution) -> [UInt8]? {
        guard case .advanced(let e, let language) = resolution.match, resolution.notes.isEmpty, let slot = slot(e.id),
            records[Int(slot)].version == Int64(e.version)
        else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var text = resolution.invocationURL
        text.withUTF8 { writeAnswer(slot: Int(slot), invocationURL: $0, preferences: [language], into: &out) }
        return out
    }

    /// `Resolution.advancedAnswerBytes` of `Resolution.experienceJSON`, from the arena: the
    /// members in the same order, the strings escaped by the same writer.
    private func writeAnswer(slot: Int, invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], into out: inout [UInt8]) {
        let r = records[slot]
        let f = fields(r)
        // The card language (`AdvancedExperience.language(for:)`): the first preferred one it has.
        var language = f.defaultLanguage
        var card: (title: Range<Int>, subtitle: Range<Int>)?
        for preference in preferences {
            if let found = self.card(r, Self.languageNumber(preference)) {
                language = Self.languageNumber(preference)
                card = found
                break
            }
        }
        if card == nil { card = self.card(r, language) }
        bytes.withUnsafeBufferPointer { arena in
            let slice = { (range: Range<Int>) in UnsafeBufferPointer(rebasing: arena[range]) }
            let url = slice(r.data..<(r.data + Int(r.urlLength)))
            let title = card.map { slice($0.title) } ?? slice(0..<0)
            let subtitle = card.map { slice($0.subtitle) } ?? slice(0..<0)
            let headerImage = f.headerImage.map(slice) ?? slice(0..<0)
            let place = f.place.map(slice) ?? slice(0..<0)
            // One piece of room for the whole answer: its members' names and enumerations (under 512 bytes),
            // two integers, each string escaped at worst, the place's JSON as it is.
            let room =
                512 + 2 * 20 + JSONWriter.stringRoom(invocationURL.count) + JSONWriter.stringRoom(url.count)
                + JSONWriter.stringRoom(clipTexts[f.clip].count) + JSONWriter.stringRoom(title.count)
                + JSONWriter.stringRoom(subtitle.count) + JSONWriter.stringRoom(headerImage.count) + place.count
            out.append(atMost: room) { out in
                out.write(#"{"matched":"advanced","invocationURL":"#)
                JSONWriter.writeString(utf8: invocationURL, to: &out)
                out.write(#","experience":{"id":"#)
                JSONWriter.writeInteger(r.id, to: &out)
                out.write(#","url":"#)
                JSONWriter.writeString(utf8: url, to: &out)
                out.write(#","clip":"#)
                clipTexts[f.clip].withUnsafeBufferPointer { JSONWriter.writeString(utf8: $0, to: &out) }
                out.write(#","action":""#)
                out.write(Self.actionTexts[f.action])
                out.write(#"","language":""#)
                out.write(Self.languageTexts[Int(language)])
                out.write(#"","title":"#)
                JSONWriter.writeString(utf8: title, to: &out)
                out.write(#","subtitle":"#)
                JSONWriter.writeString(utf8: subtitle, to: &out)
                if f.category != 0xFF {
                    out.write(#","category":""#)
                    out.write(Self.categoryTexts[Int(f.category)])
                    out.write(UInt8(ascii: "\""))
                }
                out.write(f.isPoweredBy ? #","poweredBy":true"# : #","poweredBy":false"#)
                if f.headerImage != nil {
                    out.write(#","headerImage":"#)
                    JSONWriter.writeString(utf8: headerImage, to: &out)
                }
                if f.place != nil {
                    out.write(#","place":"#)
                    out.write(place)
                }
                out.write(#","version":"#)
                JSONWriter.writeInteger(r.version, to: &out)
                out.write("}}")
            }
        }
    }
}

// MARK: Saved image

/// The index as bytes, to be saved beside the database and read back at the next start instead of
/// reading every row again (`LiveIndex`; docs/architecture.md#the-read-model): the arena's arrays
/// as they are in memory, after a header of counts. Default fallbacks are not in it (they are few,
/// and read from the database).
extension ExperienceIndex {
    /// A problem with an image read back: it is not used (the index is built from the database).
    public struct ImageProblem: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The image's first section: these numbers, each a `UInt64`, in this order.
    private enum ImageMeta: Int, CaseIterable {
        case format, layout, keyMask, garbage, largestID, records, bytes, chainSlots, chainCount, hostSlots, hostCount, hostEntries
        case hostNameBytes, freeHostEntries, idSlots, idCount, freeSlots, clips, clipTextBytes
    }

    /// A host entry as saved: its name's bytes follow every entry's, in order.
    private struct SavedHostEntry {
        var experiences: Int64
        var depths: UInt64
        var queryDepths: UInt64
        var next: Int32
        var nameLength: Int32
    }

    /// Changed whenever the sections or what their numbers mean change. (What the compiler decides,
    /// the records' layout and the enumerations' order, is in `imageLayout`.)
    static let imageFormat: UInt64 = 1

    /// FNV-1a over the layout of the structs saved as raw bytes and over the raw values of the
    /// enumerations the arena stores by position: an image written by a build where these differ
    /// would be read wrongly, so it is not read at all.
    static let imageLayout: UInt64 = {
        var h = fnvOffset
        func mix(_ n: Int) { h = (h ^ UInt64(truncatingIfNeeded: n)) &* fnvPrime }
        func mix(_ text: String) {
            for b in text.utf8 { mix(Int(b)) }
            mix(-1)
        }
        let fields: [PartialKeyPath<Record>] = [
            \.id, \.version, \.key, \.data, \.dataLength, \.localizations, \.localizationsLength, \.next, \.hostLength, \.pathLength,
            \.urlLength, \.segments, \.queryItems, \.status,
        ]
        mix(MemoryLayout<Record>.size)
        mix(MemoryLayout<Record>.stride)
        for field in fields { mix(MemoryLayout<Record>.offset(of: field) ?? -1) }
        let hostFields: [PartialKeyPath<SavedHostEntry>] = [\.experiences, \.depths, \.queryDepths, \.next, \.nameLength]
        mix(MemoryLayout<SavedHostEntry>.stride)
        for field in hostFields { mix(MemoryLayout<SavedHostEntry>.offset(of: field) ?? -1) }
        for text in actions.map(\.rawValue) + languages.map(\.rawValue) + categories.map(\.rawValue) + statuses.map(\.rawValue) {
            mix(text)
        }
        return h
    }()

    /// Passes the image to `write`, section by section, in order.
    public func writeImage(_ write: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var linked = self
        linked.finishLoading()
        try linked.writeLinkedImage(write)
    }

    private func writeLinkedImage(_ write: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var meta = [UInt64](repeating: 0, count: ImageMeta.allCases.count)
        func set(_ field: ImageMeta, _ value: UInt64) { meta[field.rawValue] = value }
        let savedHosts = hostEntries.map {
            SavedHostEntry(
                experiences: Int64($0.experiences), depths: $0.depths, queryDepths: $0.queryDepths, next: $0.next,
                nameLength: Int32($0.name.count))
        }
        let hostNames = hostEntries.flatMap(\.name)
        let clipLengths = clipTexts.map { Int32($0.count) }, clipBytes = clipTexts.flatMap { $0 }
        set(.format, Self.imageFormat)
        set(.layout, Self.imageLayout)
        set(.keyMask, keyMask)
        set(.garbage, UInt64(garbage))
        set(.largestID, UInt64(bitPattern: largestID))
        set(.records, UInt64(records.count))
        set(.bytes, UInt64(bytes.count))
        set(.chainSlots, UInt64(chains.slotCount))
        set(.chainCount, UInt64(chains.count))
        set(.hostSlots, UInt64(hosts.slotCount))
        set(.hostCount, UInt64(hosts.count))
        set(.hostEntries, UInt64(hostEntries.count))
        set(.hostNameBytes, UInt64(hostNames.count))
        set(.freeHostEntries, UInt64(freeHostEntries.count))
        set(.idSlots, UInt64(slotOfID.slotCount))
        set(.idCount, UInt64(slotOfID.count))
        set(.freeSlots, UInt64(freeSlots.count))
        set(.clips, UInt64(clipTexts.count))
        set(.clipTextBytes, UInt64(clipBytes.count))
        try meta.withUnsafeBytes(write)
        try records.withUnsafeBytes(write)
        try bytes.withUnsafeBytes(write)
        try chains.withSlots { keys, values in
            try write(keys)
            try write(values)
        }
        try hosts.withSlots { keys, values in
            try write(keys)
            try write(values)
        }
        try savedHosts.withUnsafeBytes(write)
        try hostNames.withUnsafeBytes(write)
        try freeHostEntries.withUnsafeBytes(write)
        try slotOfID.withSlots { keys, values in
            try write(keys)
            try write(values)
        }
        try freeSlots.withUnsafeBytes(write)
        try clipLengths.withUnsafeBytes(write)
        try clipBytes.withUnsafeBytes(write)
    }

    /// Reads back an image of `byteCount` bytes that `writeImage` wrote: `read` fills each buffer it
    /// is given, in order, or throws. Everything a lookup follows (offsets, lengths, links, slots,
    /// the numbers of enumeration cases) is checked before the index is returned, so that a damaged
    /// image is an error, never a read out of bounds or a chain that loops.
    public init(image byteCount: Int, read: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        let metaCount = ImageMeta.allCases.count
        guard byteCount >= metaCount * 8 else { throw ImageProblem("shorter than its header") }
        let meta: [UInt64] = try Self.readImageArray(count: metaCount, read)
        guard meta[ImageMeta.format.rawValue] == Self.imageFormat, meta[ImageMeta.layout.rawValue] == Self.imageLayout else {
            throw ImageProblem("written by a build with another layout")
        }
        // Counts beyond 2^40 are nothing this index holds; bounding them first keeps the sum below from overflowing.
        func count(_ field: ImageMeta) throws(ImageProblem) -> Int {
            let value = meta[field.rawValue]
            guard value < 1 << 40 else { throw ImageProblem("an impossible count (\(field))") }
            return Int(value)
        }
        let recordCount = try count(.records), byteTotal = try count(.bytes)
        let chainSlots = try count(.chainSlots), hostSlots = try count(.hostSlots), idSlots = try count(.idSlots)
        let entryCount = try count(.hostEntries), nameBytes = try count(.hostNameBytes), freeEntryCount = try count(.freeHostEntries)
        let freeSlotCount = try count(.freeSlots), clipCount = try count(.clips), clipBytes = try count(.clipTextBytes)
        let sections =
            metaCount * 8 + recordCount * MemoryLayout<Record>.stride + byteTotal + (chainSlots + hostSlots + idSlots) * 12
            + entryCount * MemoryLayout<SavedHostEntry>.stride + nameBytes + (freeEntryCount + freeSlotCount + clipCount) * 4 + clipBytes
        guard sections == byteCount else { throw ImageProblem("its sections do not add up to its length") }

        self.init(keyMask: meta[ImageMeta.keyMask.rawValue])
        records = try Self.readImageArray(count: recordCount, read)
        bytes = try Self.readImageArray(count: byteTotal, read)
        let chainKeys: [UInt64] = try Self.readImageArray(count: chainSlots, read)
        let chainValues: [Int32] = try Self.readImageArray(count: chainSlots, read)
        let hostKeys: [UInt64] = try Self.readImageArray(count: hostSlots, read)
        let hostValues: [Int32] = try Self.readImageArray(count: hostSlots, read)
        let savedHosts: [SavedHostEntry] = try Self.readImageArray(count: entryCount, read)
        let hostNames: [UInt8] = try Self.readImageArray(count: nameBytes, read)
        freeHostEntries = try Self.readImageArray(count: freeEntryCount, read)
        let idKeys: [UInt64] = try Self.readImageArray(count: idSlots, read)
        let idValues: [Int32] = try Self.readImageArray(count: idSlots, read)
        freeSlots = try Self.readImageArray(count: freeSlotCount, read)
        let clipLengths: [Int32] = try Self.readImageArray(count: clipCount, read)
        let clipText: [UInt8] = try Self.readImageArray(count: clipBytes, read)

        guard
            let chains = UInt64Table(
                slotKeys: chainKeys, values: chainValues, count: try count(.chainCount), denseKeys: false, valueBound: recordCount),
            let hosts = UInt64Table(
                slotKeys: hostKeys, values: hostValues, count: try count(.hostCount), denseKeys: false, valueBound: entryCount),
            let slotOfID = UInt64Table(
                slotKeys: idKeys, values: idValues, count: try count(.idCount), denseKeys: true, valueBound: recordCount)
        else { throw ImageProblem("a table that is not one") }
        self.chains = chains
        self.hosts = hosts
        self.slotOfID = slotOfID
        garbage = try count(.garbage)
        largestID = Int64(bitPattern: meta[ImageMeta.largestID.rawValue])

        var nameStart = 0
        hostEntries.reserveCapacity(entryCount)
        for saved in savedHosts {
            guard saved.nameLength >= 0, Int(saved.nameLength) <= nameBytes - nameStart, saved.next >= -1, Int(saved.next) < entryCount
            else { throw ImageProblem("a host entry out of bounds") }
            let end = nameStart + Int(saved.nameLength)
            hostEntries.append(
                HostEntry(
                    name: Array(hostNames[nameStart..<end]), experiences: Int(saved.experiences), depths: saved.depths,
                    queryDepths: saved.queryDepths, next: saved.next))
            nameStart = end
        }
        guard nameStart == nameBytes, freeHostEntries.allSatisfy({ $0 >= 0 && Int($0) < entryCount }) else {
            throw ImageProblem("host entries out of bounds")
        }
        var clipStart = 0
        for length in clipLengths {
            guard length >= 0, Int(length) <= clipBytes - clipStart else { throw ImageProblem("a clip out of bounds") }
            let text = Array(clipText[clipStart..<(clipStart + Int(length))])
            guard let clip = try? AppID(String(decoding: text, as: UTF8.self)), clip.rawValue.utf8.elementsEqual(text) else {
                throw ImageProblem("a clip that is not an App ID")
            }
            clipNumbers[clip] = Int32(clips.count)
            clips.append(clip)
            clipTexts.append(text)
            clipStart += Int(length)
        }
        guard clipStart == clipBytes else { throw ImageProblem("clips out of bounds") }
        try checkImageLinks()
    }

    /// An array of `count` elements read as raw bytes (plain integers and structs of them only).
    private static func readImageArray<T>(count: Int, _ read: (UnsafeMutableRawBufferPointer) throws -> Void) throws -> [T] {
        try [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Every record's bytes in bounds and well formed, every chain and host chain ending without
    /// visiting an entry twice, every free slot free, and the id table naming every live record.
    private func checkImageLinks() throws(ImageProblem) {
        var live = 0
        for r in records {
            guard r.next >= -1, Int(r.next) < records.count else { throw ImageProblem("a link out of bounds") }
            guard r.status != Record.free else { continue }
            live += 1
            try checkImageRecord(r)
        }
        guard live == slotOfID.count, freeSlots.allSatisfy({ $0 >= 0 && Int($0) < records.count && records[Int($0)].status == Record.free })
        else { throw ImageProblem("slots that disagree with the id table") }
        var seen = [Bool](repeating: false, count: records.count)
        var problem: ImageProblem?
        chains.forEachValue { head in
            var slot = Int(head)
            while slot >= 0, problem == nil {
                if seen[slot] || records[slot].status == Record.free { problem = ImageProblem("a chain that loops or holds a free slot") }
                seen[slot] = true
                slot = Int(records[slot].next)
            }
        }
        slotOfID.forEachValue { slot in
            if records[Int(slot)].status == Record.free { problem = ImageProblem("an id of a free slot") }
        }
        var seenHosts = [Bool](repeating: false, count: hostEntries.count)
        hosts.forEachValue { head in
            var entry = Int(head)
            while entry >= 0, problem == nil {
                if seenHosts[entry] { problem = ImageProblem("a host chain that loops") }
                seenHosts[entry] = true
                entry = Int(hostEntries[entry].next)
            }
        }
        if let problem { throw problem }
    }

    /// A live record's URL, fields and localizations inside `bytes`, in the shape `appendData` and
    /// `appendLocalization` write, with enumeration numbers in range.
    private func checkImageRecord(_ r: Record) throws(ImageProblem) {
        let bad = ImageProblem("a record out of bounds")
        guard Int(r.status) < Self.statuses.count, r.data >= 0, r.dataLength >= 0, r.data <= bytes.count - Int(r.dataLength),
            r.hostLength > 0, r.pathLength > 0, 8 + Int(r.hostLength) + Int(r.pathLength) <= Int(r.urlLength),
            Int(r.urlLength) + 16 <= Int(r.dataLength), r.segments >= 0, r.queryItems >= 0
        else { throw bad }
        let end = r.data + Int(r.dataLength)
        var i = r.data + Int(r.urlLength)
        guard Int(readUInt32(i)) < clipTexts.count, Int(bytes[i + 4]) < Self.actions.count, Int(bytes[i + 5]) < Self.languages.count,
            bytes[i + 6] <= 1, bytes[i + 7] == 0xFF || Int(bytes[i + 7]) < Self.categories.count
        else { throw bad }
        i += 8
        for _ in 0..<2 {
            guard i + 4 <= end else { throw bad }
            let length = readUInt32(i)
            i += 4
            if length != .max {
                guard Int(length) <= end - i else { throw bad }
                i += Int(length)
            }
        }
        guard i == end else { throw bad }
        guard r.localizations >= 0 else {
            guard r.localizationsLength == 0 else { throw bad }
            return
        }
        guard r.localizationsLength >= 0, r.localizations <= bytes.count - Int(r.localizationsLength) else { throw bad }
        let localizationsEnd = r.localizations + Int(r.localizationsLength)
        i = r.localizations
        while i < localizationsEnd {
            guard i + 5 <= localizationsEnd, Int(bytes[i]) < Self.languages.count else { throw bad }
            i += 1
            for _ in 0..<2 {
                guard i + 4 <= localizationsEnd else { throw bad }
                let length = Int(readUInt32(i))
                i += 4
                guard length <= localizationsEnd - i else { throw bad }
                i += length
            }
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    /// `withUnsafeBufferPointer` for an optional array: nil stays nil.
    func withOptionalBuffer<T>(_ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        switch self {
        case .some(let array): try array.withUnsafeBufferPointer { try body($0) }
        case .none: try body(nil)
        }
    }
}
