import ClipStore
import Locking

/// Hosts as requests send them → as `Registry.normalizeHost` makes them, for the served AASA's hot
/// route: normalizing (the DomainName rules) made `String`s on every request, and it is a pure
/// function, so its results are kept. At most `capacity` of them: past that (a client sending
/// made-up hosts) it starts over, so no client can grow it.
final class NormalizedHosts: Sendable {
    private struct Entry {
        let raw: [UInt8]
        let normalized: String
    }
    private let entries = Locked<[Int: Entry]>([:])
    static let capacity = 4096

    /// The normalized host; throws as `Registry.normalizeHost` does (nothing is kept then).
    func normalize(_ raw: UnsafeBufferPointer<UInt8>) throws(RegistryError) -> String {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(raw))
        let key = hasher.finalize()
        if let entry = entries.withLock({ $0[key] }), entry.raw.elementsEqual(raw) { return entry.normalized }
        let normalized = try Registry.normalizeHost(String(decoding: raw, as: UTF8.self))
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = Entry(raw: Array(raw), normalized: normalized)
        }
        return normalized
    }
}
