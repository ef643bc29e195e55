/// An invocation URL that is already in normal form but for the case of its scheme and host, a
/// trailing "/", a fragment and the default port: what nearly every request carries. Read in place, as byte ranges
/// of the caller's buffer, so that a lookup needs no `String` (the read model's profile: building
/// a `NormalizedURL` cost more than the probes at a million experiences). Anything else (percent
/// escapes, dot segments, another port, IDNA, control characters, non-ASCII bytes) is `nil`, and the
/// caller takes the full rules (`NormalizedURL.init`); where this type answers, it answers as they
/// do (a test compares them on generated URLs).
struct PlainInvocationURL {
    /// The host, to be lower-cased (`lowercasedHostByte`).
    let host: Range<Int>
    /// The normalized path within the bytes: no trailing "/" unless it is the root; `nil` when the
    /// URL has no path (the normalized path is then "/").
    let path: Range<Int>?
    /// The query's bytes between "?" and "#" or the end (items split on "&", empty ones ignored).
    let query: Range<Int>?

    /// A bound on an invocation's query items, so that matching them pair by pair stays cheap;
    /// more take the full rules (a `Set`).
    static let maxQueryItems = 32

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        // The canonical form adds a "/" to an empty path: stay within `maxLength` after it.
        guard n > 8, n < NormalizedURL.maxLength else { return nil }
        // No byte the full rules would strip, refuse, percent-encode or map (RFC 3986 §2; WHATWG URL).
        for b in bytes where b <= 0x20 || b >= 0x7F { return nil }
        // Scheme "https" in any case, then "//" (RFC 3986 §3.1: the scheme is case-insensitive).
        guard bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"), bytes[2] | 0x20 == UInt8(ascii: "t"),
            bytes[3] | 0x20 == UInt8(ascii: "p"), bytes[4] | 0x20 == UInt8(ascii: "s"), bytes[5] == UInt8(ascii: ":"),
            bytes[6] == UInt8(ascii: "/"), bytes[7] == UInt8(ascii: "/")
        else { return nil }
        var i = 8
        while i < n, bytes[i] != UInt8(ascii: "/"), bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#"),
            bytes[i] != UInt8(ascii: ":")
        {
            i += 1
        }
        // A host of lower-cased letters, digits, hyphens and dots that needs no IDNA: exactly the
        // hosts `DomainName.normalize` returns as they are (no userinfo, no "\").
        guard DomainName.isNormalLDH(UnsafeBufferPointer(rebasing: bytes[8..<i]).lazy.map(Self.lowercased)) else { return nil }
        host = 8..<i
        if i < n, bytes[i] == UInt8(ascii: ":") {
            // A port that is the scheme's default or empty is the same as none (RFC 3986 §3.2.3,
            // §6.2.3), as the full rules drop it: ":443", ":0443", ":". About 1% of the bench's
            // requests carry ":443"; through the full rules each made 11 allocations (clip-bench).
            i += 1
            let portStart = i
            while i < n, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            guard i == n || bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "?") || bytes[i] == UInt8(ascii: "#") else {
                return nil
            }
            let digits = UnsafeBufferPointer(rebasing: bytes[portStart..<i]).drop { $0 == UInt8(ascii: "0") }
            guard i == portStart || digits.elementsEqual("443".utf8) else { return nil }
        }
        let pathStart = i
        while i < n, bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#") { i += 1 }
        guard let normalPath = Self.plainPath(bytes, pathStart..<i) else { return nil }
        path = normalPath
        if i < n, bytes[i] == UInt8(ascii: "?") {
            let queryStart = i + 1
            var items = 0, equals = 0, itemLength = 0
            i = queryStart
            while i < n, bytes[i] != UInt8(ascii: "#") {
                let b = bytes[i]
                if b == UInt8(ascii: "&") {
                    if itemLength > 0 { items += 1 }
                    itemLength = 0
                    equals = 0
                } else {
                    itemLength += 1
                    // One "=" splits name and value; another would be percent-encoded, and so
                    // would a byte outside RFC 3986 §3.4 (`isQueryByte`), or a "%" normalized.
                    if b == UInt8(ascii: "=") {
                        equals += 1
                        guard equals == 1 else { return nil }
                    } else {
                        guard NormalizedURL.isQueryByte(b) else { return nil }
                    }
                }
                i += 1
            }
            if itemLength > 0 { items += 1 }
            guard items <= Self.maxQueryItems else { return nil }
            query = queryStart..<i
        } else {
            query = nil
        }
    }

    @inline(__always) static func lowercased(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// `NormalizedURL.plainPath` on a range: the path as its own normal form but for trailing
    /// slashes, or nil when the full rules must normalize it. `.some(nil)` is the root.
    static func plainPath(_ bytes: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>) -> Range<Int>?? {
        var end = raw.upperBound
        while end > raw.lowerBound + 1, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        if raw.isEmpty || end == raw.lowerBound + 1 && bytes[raw.lowerBound] == UInt8(ascii: "/") { return .some(nil) }
        guard bytes[raw.lowerBound] == UInt8(ascii: "/") else { return nil }
        var previous: UInt8 = 0
        for b in bytes[raw.lowerBound..<end] {
            guard NormalizedURL.isPathByte(b), !(b == UInt8(ascii: ".") && previous == UInt8(ascii: "/")) else { return nil }
            previous = b
        }
        return .some(raw.lowerBound..<end)
    }

    /// Calls `body` with each query item's name and value ranges (a missing "=" gives an empty
    /// value, which matches like one: `NormalizedURL.QueryItem`).
    func forEachQueryItem(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) -> Bool) -> Bool {
        guard let query else { return true }
        var start = query.lowerBound
        while start < query.upperBound {
            var end = start
            var eq = -1
            while end < query.upperBound, bytes[end] != UInt8(ascii: "&") {
                if bytes[end] == UInt8(ascii: "=") && eq < 0 { eq = end }
                end += 1
            }
            if end > start {
                let name = start..<(eq < 0 ? end : eq), value = eq < 0 ? end..<end : (eq + 1)..<end
                guard body(name, value) else { return false }
            }
            start = end + 1
        }
        return true
    }
}
