/// A map from 64-bit keys to 32-bit values in two flat arrays: open addressing with linear
/// probing, at most half full, and backward-shift deletion (Knuth, TAOCP vol. 3 §6.4, Algorithm R),
/// so that no tombstones accumulate under upserts and removals. A probe reads one or two adjacent
/// slots of two arrays and allocates nothing, where a `Dictionary` hashes the key with SipHash
/// first (the probe cost the read model's profile showed at a million experiences).
///
/// The keys are already hashes (FNV-1a), so a slot is the key's low bits after one multiply that
/// spreads them (Fibonacci hashing, TAOCP vol. 3 §6.4).
struct UInt64Table: Sendable {
    private var keys: [UInt64]
    /// `Self.empty` marks a free slot.
    private var values: [Int32]
    private var mask: Int
    private var shift: UInt64
    /// Keys that are small consecutive integers (row ids) take their low bits as their slot.
    private let denseKeys: Bool
    private(set) var count = 0

    static let empty: Int32 = -1

    /// `denseKeys`: the keys are mostly consecutive integers, such as SQLite row ids, inserted in
    /// order: each goes to the slot after the last one's, so that loading them writes the table
    /// front to back instead of at random (start-up at a million experiences: inserting a million
    /// ids at Fibonacci-hashed slots missed the cache each time; `perf record`: `set` 7% of loading).
    init(capacity: Int = 0, denseKeys: Bool = false) {
        self.denseKeys = denseKeys
        var slots = 16
        while slots < capacity * 2 { slots *= 2 }
        keys = Array(repeating: 0, count: slots)
        values = Array(repeating: Self.empty, count: slots)
        mask = slots - 1
        shift = UInt64(64 - slots.trailingZeroBitCount)
    }

    @inline(__always) private func home(_ key: UInt64) -> Int {
        denseKeys ? Int(truncatingIfNeeded: key) & mask : Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot a probe for `key` starts at, and the number of slots: for inserting many keys in
    /// slot order (`ExperienceIndex.finishLoading`).
    func homeSlot(_ key: UInt64) -> Int { home(key) }
    var slotCount: Int { mask + 1 }

    subscript(key: UInt64) -> Int32? {
        var i = home(key)
        while true {
            let v = values[i]
            if v == Self.empty { return nil }
            if keys[i] == key { return v }
            i = (i + 1) & mask
        }
    }

    /// Sets the value of `key`; `value` must not be `Self.empty`.
    mutating func set(_ key: UInt64, _ value: Int32) {
        precondition(value != Self.empty)
        if (count + 1) * 2 > values.count { grow() }
        var i = home(key)
        while values[i] != Self.empty {
            if keys[i] == key {
                values[i] = value
                return
            }
            i = (i + 1) & mask
        }
        keys[i] = key
        values[i] = value
        count += 1
    }

    mutating func remove(_ key: UInt64) {
        var i = home(key)
        while true {
            if values[i] == Self.empty { return }
            if keys[i] == key { break }
            i = (i + 1) & mask
        }
        // Backward shift: move later entries of the probe run into the hole when their home
        // slot does not lie (cyclically) after the hole.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            if values[j] == Self.empty { break }
            let h = home(keys[j])
            let stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if stays { continue }
            keys[hole] = keys[j]
            values[hole] = values[j]
            hole = j
        }
        values[hole] = Self.empty
        count -= 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        self = UInt64Table(capacity: oldValues.count, denseKeys: denseKeys)
        for i in oldValues.indices where oldValues[i] != Self.empty { set(oldKeys[i], oldValues[i]) }
    }

    /// The arrays' storage (`ExperienceIndex.forEachArenaRegion`).
    func forEachRegion(_ body: (UnsafeRawPointer, Int) -> Void) {
        keys.withUnsafeBufferPointer { if let start = $0.baseAddress { body(start, $0.count * 8) } }
        values.withUnsafeBufferPointer { if let start = $0.baseAddress { body(start, $0.count * 4) } }
    }

    /// The slots as stored, keys then values, for a saved image (`ExperienceIndex.writeImage`).
    func withSlots<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try keys.withUnsafeBytes { k in try values.withUnsafeBytes { v in try body(k, v) } }
    }

    /// A table from slots `withSlots` gave, read back; nil unless they are a table's: a power of
    /// two of at least 16 slots, every value `empty` or in `0..<valueBound`, `count` of them used
    /// and at most half.
    init?(slotKeys keys: [UInt64], values: [Int32], count: Int, denseKeys: Bool, valueBound: Int) {
        let slots = values.count
        guard slots >= 16, slots & (slots - 1) == 0, keys.count == slots, count * 2 <= slots else { return nil }
        var used = 0
        for v in values where v != Self.empty {
            guard v >= 0, Int(v) < valueBound else { return nil }
            used += 1
        }
        guard used == count else { return nil }
        self.keys = keys
        self.values = values
        self.denseKeys = denseKeys
        self.count = count
        mask = slots - 1
        shift = UInt64(64 - slots.trailingZeroBitCount)
    }

    /// Calls `body` with every value stored, in slot order.
    func forEachValue(_ body: (Int32) -> Void) {
        for v in values where v != Self.empty { body(v) }
    }

    /// Bytes held (for the read model's memory figures).
    var footprint: Int { keys.capacity * 8 + values.capacity * 4 }
}
