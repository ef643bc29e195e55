import ByteScan
import StrictJSON

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
    enum ImageMeta: Int, CaseIterable {
        case format, layout, keyMask, garbage, largestID, records, bytes, chainSlots, chainCount, hostSlots, hostCount, hostEntries
        case hostNameBytes, freeHostEntries, idSlots, idCount, freeSlots, clips, clipTextBytes
    }

    /// A host entry as saved: its name's bytes follow every entry's, in order.
    struct SavedHostEntry {
        var experiences: Int64
        var depths: UInt64
        var queryDepths: UInt64
        var next: Int32
        var nameLength: Int32
    }

    /// Changed whenever the sections or what their numbers mean change. (What the compiler decides,
    /// the records' layout and the enumerations' order, is in `imageLayout`.)
    static let imageFormat: UInt64 = 3

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
            \.urlLength, \.segments, \.queryItems, \.status, \.windowed,
        ]
        mix(MemoryLayout<Record>.size)
        mix(MemoryLayout<Record>.stride)
        for field in fields { mix(MemoryLayout<Record>.offset(of: field) ?? -1) }
        let hostFields: [PartialKeyPath<SavedHostEntry>] = [\.experiences, \.depths, \.queryDepths, \.next, \.nameLength]
        mix(MemoryLayout<SavedHostEntry>.stride)
        for field in hostFields { mix(MemoryLayout<SavedHostEntry>.offset(of: field) ?? -1) }
        // The fields' arena layout (`arenaFields`) and the cases their bytes number.
        for field in ExperienceField.all {
            mix(field.name)
            mix("\(field.kind)")
            for text in field.cases { mix(text) }
        }
        for text in languages.map(\.rawValue) + statuses.map(\.rawValue) { mix(text) }
        return h
    }()

    /// Passes the image to `write`, section by section, in order.
    public func writeImage(_ write: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var linked = self
        linked.finishLoading()
        try linked.writeLinkedImage(write)
    }

    func writeLinkedImage(_ write: (UnsafeRawBufferPointer) throws -> Void) rethrows {
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

        try restoreHostEntries(savedHosts, names: hostNames)
        try restoreClips(lengths: clipLengths, text: clipText)
        try checkImageLinks()
    }

    /// The host entries from their saved form and the names laid end to end, each checked to be
    /// within the names and the entries.
    mutating func restoreHostEntries(_ savedHosts: [SavedHostEntry], names hostNames: [UInt8]) throws {
        let entryCount = savedHosts.count, nameBytes = hostNames.count
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
    }

    /// The clips from their lengths and their texts laid end to end, each an App ID written as it reads.
    mutating func restoreClips(lengths clipLengths: [Int32], text clipText: [UInt8]) throws {
        let clipBytes = clipText.count
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
    }

    /// An array of `count` elements read as raw bytes (plain integers and structs of them only).
    static func readImageArray<T>(count: Int, _ read: (UnsafeMutableRawBufferPointer) throws -> Void) throws -> [T] {
        // An empty array is not made through `unsafeUninitializedCapacity`: with no room asked for, that
        // writes the count of the standard library's one shared empty storage, a data race under
        // ThreadSanitizer with any thread growing an empty array.
        guard count > 0 else { return [] }
        return try [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            try read(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Every record's bytes in bounds and well formed, every chain and host chain ending without
    /// visiting an entry twice, every free slot free, and the id table naming every live record.
    func checkImageLinks() throws(ImageProblem) {
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
    func checkImageRecord(_ r: Record) throws(ImageProblem) {
        let bad = ImageProblem("a record out of bounds")
        guard Int(r.status) < Self.statuses.count, r.data >= 0, r.dataLength >= 0, r.data <= bytes.count - Int(r.dataLength),
            r.hostLength > 0, r.pathLength > 0, 8 + Int(r.hostLength) + Int(r.pathLength) <= Int(r.urlLength),
            Int(r.urlLength) + 4 + Self.arenaByteFields + 4 * Self.arenaRuns <= Int(r.dataLength), r.segments >= 0, r.queryItems >= 0
        else { throw bad }
        let end = r.data + Int(r.dataLength)
        var i = r.data + Int(r.urlLength)
        guard Int(readUInt32(i)) < clipTexts.count else { throw bad }
        i += 4
        for (position, field) in Self.arenaFields.enumerated() {
            let cases = ExperienceField.all[position]
            guard case .byte(let n) = field.slot else { continue }
            let byte = bytes[i + n]
            let count = field.kind == .flag ? 2 : cases.cases.count
            guard Int(byte) < count || (byte == 0xFF && cases.isOptional) else { throw bad }
        }
        i += Self.arenaByteFields
        for field in Self.arenaFields where field.slot == .run {
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
