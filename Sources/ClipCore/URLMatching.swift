/// The registry's two matching rules, each written once (docs/rules.md, "Matching and
/// specificity"): which registered URLs match an invocation URL, and which of them is the most
/// specific. `Resolver`, `ExperienceIndex` and `ExperienceApplinks` all use these.
///
/// Apple documents the longest-prefix match ("Associating your App Clip with your website",
/// https://developer.apple.com/documentation/appclip/associating-your-app-clip-with-your-website,
/// and App Store Connect's advanced App Clip experiences); what it leaves unsaid (segment
/// boundaries, query items, ties) is settled here, and docs/rules.md says how.
extension NormalizedURL {
    // MARK: The match rule

    /// True when this registered URL matches `invocation`: the same host, a path that covers the
    /// invocation's (`pathCovers`), and every one of its query items among the invocation's (a
    /// registered query is a set of required items; the invocation may carry more, in any order).
    public func matches(_ invocation: NormalizedURL) -> Bool {
        matches(invocation, invocationItems: Set(invocation.queryItems))
    }

    /// `matches`, for a caller testing many registered URLs against one invocation:
    /// `invocationItems` is `Set(invocation.queryItems)`, built once.
    public func matches(_ invocation: NormalizedURL, invocationItems: Set<QueryItem>) -> Bool {
        host == invocation.host && pathCovers(invocation) && queryItems.allSatisfy(invocationItems.contains)
    }

    /// A registered path P covers an invocation path Q when Q = P, or Q starts with P followed by
    /// "/": segment-aware, so "/store" covers "/store/12" but not "/stores". "/" covers every path.
    /// Paths are compared byte for byte (they are normalized, so ASCII).
    public func pathCovers(_ invocation: NormalizedURL) -> Bool {
        let p = path.utf8, q = invocation.path.utf8
        if path == "/" || p.elementsEqual(q) { return true }
        guard q.count > p.count, q.starts(with: p) else { return false }
        return q[q.index(q.startIndex, offsetBy: p.count)] == UInt8(ascii: "/")
    }

    /// The registered query items absent from `invocationItems`, sorted (for explanations).
    public func missingQueryItems(_ invocationItems: Set<QueryItem>) -> [QueryItem] {
        Set(queryItems).subtracting(invocationItems).sorted()
    }

    /// True when this path is a character prefix of `invocation`'s but not on a segment boundary:
    /// the "near miss" a character-prefix reading would match and this registry does not.
    public func isCharacterPrefixNearMiss(of invocation: NormalizedURL) -> Bool {
        path != "/" && invocation.path.utf8.starts(with: path.utf8) && !pathCovers(invocation)
    }

    // MARK: The specificity order

    /// Path segments; the root "/" has none.
    public var pathSegmentCount: Int { path == "/" ? 0 : path.utf8.lazy.filter { $0 == UInt8(ascii: "/") }.count }

    /// Query items counted once each, as `matches` reads them: a registered query is a set of
    /// required items, so "?a=1&a=1" requires no more than "?a=1".
    public var distinctQueryItemCount: Int { queryItems.count < 2 ? queryItems.count : Set(queryItems).count }

    /// Of two registered URLs that both match an invocation, the more specific: more path
    /// segments, then more distinct query items, then the smaller canonical text, so that no
    /// answer depends on insertion order. A strict total order on canonical URLs.
    public static func isMoreSpecific(_ a: NormalizedURL, than b: NormalizedURL) -> Bool {
        let sa = a.pathSegmentCount, sb = b.pathSegmentCount
        if sa != sb { return sa > sb }
        let qa = a.distinctQueryItemCount, qb = b.distinctQueryItemCount
        if qa != qb { return qa > qb }
        return a.canonical < b.canonical
    }
}
