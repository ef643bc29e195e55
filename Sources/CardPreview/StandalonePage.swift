import ClipCore

/// A page served by a registry made into a file that opens on its own: each header image the page
/// loads from the registry (`src="/v1/images/{sha256}"`, as `CardPreviewPage` writes it) inlined as a
/// `data:` URI (RFC 2397), and the code links made absolute on the registry's origin. Every text the
/// page shows is escaped, so neither pattern can come from stored text (`"` is `&quot;` there).
public enum StandalonePage {
    /// The SHA-256 of every header image the page loads from the registry, in order, without repeats.
    public static func servedImages(_ html: String) -> [String] {
        var found: [String] = []
        for sha in matches(html, prefix: srcPrefix) where !found.contains(sha) { found.append(sha) }
        return found
    }

    /// `html` with each served image replaced by `sources[sha]` (a `data:` URI) where given, and with
    /// `href="/v1/codes?` links on `origin` (already a URL such as `https://registry.example`).
    public static func make(_ html: String, sources: [String: String], origin: String) -> String {
        var out = html
        for (sha, source) in sources {
            out = out.replacingAll(srcPrefix + sha + "\"", with: "src=\"" + HTMLText.escaped(source) + "\"")
        }
        return out.replacingAll("href=\"/v1/codes?", with: "href=\"" + HTMLText.escaped(origin) + "/v1/codes?")
    }

    static let srcPrefix = "src=\"" + CardPreviewPage.imagePath

    /// The 64 lower-case hexadecimal digits after each `prefix` that a `"` closes.
    static func matches(_ html: String, prefix: String) -> [String] {
        var result: [String] = []
        var rest = Substring(html)
        while let range = rest.range(of: prefix) {
            let after = rest[range.upperBound...]
            let candidate = after.prefix(65)
            if candidate.count == 65, candidate.last == "\"",
                candidate.dropLast().allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) })
            {
                result.append(String(candidate.dropLast()))
            }
            rest = after
        }
        return result
    }
}

extension StringProtocol {
    /// The first occurrence of `needle`, by Unicode scalars (no Foundation in this module).
    func range(of needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return nil }
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(needle) {
                var end = start
                for _ in needle { end = index(after: end) }
                return start..<end
            }
            start = index(after: start)
        }
        return nil
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
