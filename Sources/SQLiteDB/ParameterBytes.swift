/// The UTF-8 bytes of a statement's text parameters, kept in one buffer that SQLite reads in
/// place (SQLITE_STATIC, https://sqlite.org/c3ref/bind_blob.html) until the statement is bound
/// again or finalized. The buffer is reused from one binding to the next, so binding text
/// allocates nothing once it is large enough; SQLITE_TRANSIENT instead made SQLite allocate and
/// copy every text value (callgrind, 10k-line import: sqlite3_bind_text 4.6% of all instructions,
/// most of it malloc, memcpy and free).
///
/// `reset(capacity:)` invalidates every pointer `append` returned before: call it only when
/// every parameter that points into the buffer is about to be bound anew.
final class ParameterBytes {
    /// Past this a binding's text is not kept (a large body bound once must not stay allocated
    /// with a cached statement): `reset` answers false and SQLite copies the texts as before.
    static let largestKept = 64 * 1024

    private(set) var capacity = 0
    private var used = 0
    private var storage: UnsafeMutableRawPointer?

    init() {}

    deinit { storage?.deallocate() }

    /// Empties the buffer and makes room for `capacity` bytes in all; false (and no buffer)
    /// when that is more than `largestKept`.
    func reset(capacity needed: Int) -> Bool {
        used = 0
        guard needed <= Self.largestKept else {
            storage?.deallocate()
            storage = nil
            capacity = 0
            return false
        }
        if needed > capacity {
            storage?.deallocate()
            // Rounded up, so that slightly longer texts next time do not reallocate.
            capacity = max(256, needed.nextPowerOfTwo)
            storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        }
        return true
    }

    /// Copies `bytes` after the bytes appended since `reset`, which must have made room for
    /// them; returns where they are.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
        precondition(used + bytes.count <= capacity, "ParameterBytes: reset(capacity:) made no room for these bytes")
        let destination = storage! + used
        if let base = bytes.baseAddress { destination.copyMemory(from: base, byteCount: bytes.count) }
        used += bytes.count
        return UnsafePointer(destination.assumingMemoryBound(to: CChar.self))
    }
}

extension Int {
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
