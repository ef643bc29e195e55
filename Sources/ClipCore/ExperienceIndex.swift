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
        /// It has a `liveFrom` or `liveUntil`: served only within them (`isLive`).
        var windowed: Bool
    }

    var records: [Record] = []
    var bytes: [UInt8] = []
    /// Bytes of `bytes` that no record uses any more; compacted when they are most of it.
    var garbage = 0
    /// Key → first record of its chain. Keys are hashes, so that a probe needs no String; a
    /// candidate's own host and path are compared before it is used (a collision costs a comparison).
    var chains = UInt64Table()
    /// Host key → first `HostEntry` with that key: the hosts that have experiences (any status),
    /// for the "no experience on this host" answer and a lookup's first check. Found by the host's
    /// bytes, so that loading a million experiences makes no String per row (start-up's profile).
    var hosts = UInt64Table()
    var hostEntries: [HostEntry] = []
    var freeHostEntries: [Int32] = []
    struct HostEntry {
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
    var largestID = Int64.min
    /// Experience id → slot (a `UInt64Table`: start-up's profile showed `Dictionary`'s hashing
    /// of a million ids at 14% of loading).
    var slotOfID = UInt64Table(denseKeys: true)
    /// The slot the last localization went to, for loading them in experience order without a lookup.
    var lastLocalized = -1
    var freeSlots: [Int32] = []
    /// Slots stored by `load` and not yet in their keys' chains (`finishLoading`).
    var unlinked: [Int32] = []
    var clips: [AppID] = []
    /// Each clip's App ID as UTF-8, for answers (`AppID.rawValue` builds a String).
    var clipTexts: [[UInt8]] = []
    var clipNumbers: [AppID: Int32] = [:]
    /// Applied to every key: all bits but in tests, which force collisions with fewer.
    let keyMask: UInt64

    /// Default experiences offered on each host when no advanced experience matches.
    public internal(set) var fallbacks: [String: [DefaultFallback]] = [:]
    /// `hostHash` of each host in `fallbacks`: a plain URL's host is looked up by its bytes, without
    /// the `String` a dictionary key needs (an allocation for a host of more than 15 bytes).
    var fallbackHostHashes: Set<UInt64> = []

    public init() { self.init(capacity: 0) }

    /// An empty index with room for `capacity` experiences (no rehashing while loading).
    public init(capacity: Int) { self.init(capacity: capacity, keyBits: 64) }

    /// An empty index whose keys keep `keyMask`'s bits (a saved image's, `init(image:read:)`).
    init(keyMask: UInt64) { self.keyMask = keyMask }

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

}
