import ByteScan
import StrictJSON

extension ExperienceIndex {
    // MARK: Changing

    public func experience(id: Int64) -> AdvancedExperience? { slot(id).map(materialize) }

    func slot(_ id: Int64) -> Int? { slotOfID[UInt64(bitPattern: id)].map(Int.init) }

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
        var columns = ExperienceValueColumns(experience)
        var status: UInt8 = 0
        var windowed = false
        // Values of an `AdvancedExperience` are one of their field's kind: nothing here throws.
        try! appendData(clip: clip, status: &status, windowed: &windowed, &columns)
        var record = Record(
            id: experience.id, version: Int64(experience.version), key: 0, data: data, dataLength: Int32(bytes.count - data),
            localizations: -1, localizationsLength: 0, next: -1, hostLength: Int32(hostLength), pathLength: Int32(pathLength),
            urlLength: Int32(url.canonical.utf8.count), segments: Int32(url.pathSegmentCount),
            queryItems: Int32(url.distinctQueryItemCount), status: status, windowed: windowed)
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

    mutating func newSlot() -> Int {
        if let free = freeSlots.popLast() { return Int(free) }
        records.append(
            Record(
                id: 0, version: 0, key: 0, data: 0, dataLength: 0, localizations: -1, localizationsLength: 0, next: -1, hostLength: 0,
                pathLength: 0, urlLength: 0, segments: 0, queryItems: 0, status: Record.free, windowed: false))
        return records.count - 1
    }

    /// Stores `record` (its bytes written already) in `slot` and links it into its key's chain
    /// and the host counts.
    mutating func store(_ record: Record, at slot: Int, linking: Bool = true) {
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
    func hostEntry(_ host: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil) -> Int? {
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
    mutating func countHost(of record: Record, by delta: Int) {
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

    func hasExperiences(host: String) -> Bool {
        var host = host
        return host.withUTF8 { hostEntry($0) != nil }
    }

    /// Inserts `slot` into its key's chain before the first record it is more specific than.
    mutating func link(_ slot: Int) {
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

    mutating func unlink(_ slot: Int) {
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
    mutating func compactIfMostlyGarbage() {
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
}
