import ByteScan
import StrictJSON

extension ExperienceIndex {
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
    /// cost of a million: `LiveIndex` reads SQLite's column bytes straight into the arena); every
    /// field of `ExperienceField.all` is asked of `columns`. The URL is trusted as stored when it
    /// splits into a canonical form (`NormalizedURL(canonical:)` otherwise). An id already present
    /// is replaced.
    public mutating func load(
        id: Int64, url: UnsafeBufferPointer<UInt8>, clip: Int32, version: Int64, columns: inout some ExperienceColumns
    ) throws {
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
        var status: UInt8 = 0
        var windowed = false
        do { try appendData(clip: clip, status: &status, windowed: &windowed, &columns) } catch {
            bytes.removeSubrange(data...)
            throw error
        }
        let record = Record(
            id: id, version: version, key: 0, data: data, dataLength: Int32(bytes.count - data), localizations: -1, localizationsLength: 0,
            next: -1, hostLength: Int32(shape.host), pathLength: Int32(shape.path), urlLength: Int32(urlLength),
            segments: Int32(shape.segments), queryItems: Int32(shape.queryItems), status: status, windowed: windowed)
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
}
