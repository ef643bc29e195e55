import ByteScan
import StrictJSON

extension ExperienceIndex {
    // MARK: The arena's bytes

    /// After the canonical URL: the clip number (4 bytes), then the fields of `ExperienceField.all`
    /// (`arenaFields`): one byte each for those of one byte (a case's position, a flag's 0 or 1,
    /// 0xFF unset), then the runs of the others, each a 4-byte length (0xFFFF_FFFF: unset) and its
    /// bytes. The status lives in the record (lookups read it). Every field is asked of `columns`.
    /// `windowed`: the experience has a `liveFrom` or `liveUntil`; its window then follows the fields as two 8-byte
    /// seconds (`windowTrailer`), which lookups compare with the moment (`isLive`) without reading the fields.
    mutating func appendData(clip: Int32, status: inout UInt8, windowed: inout Bool, _ columns: inout some ExperienceColumns) throws {
        appendUInt32(UInt32(bitPattern: clip))
        for (position, field) in Self.arenaFields.enumerated() {
            switch field.slot {
            case .byte: bytes.append(try columns.code(position))
            case .status: status = try columns.code(position)
            case .run: break
            }
        }
        windowed = false
        var from = Int64.min, until = Int64.max
        for (position, field) in Self.arenaFields.enumerated() where field.slot == .run {
            try columns.withBytes(position) { run in
                if field.kind == .instant, let run {
                    windowed = true
                    if let bound = Instant(canonical: run) {
                        if field.isWindowStart { from = bound.seconds } else { until = bound.seconds }
                    }
                }
                appendField(run)
            }
        }
        if windowed {
            appendUInt64(UInt64(bitPattern: from))
            appendUInt64(UInt64(bitPattern: until))
        }
    }

    /// The bytes of a windowed record's window at the end of its data: `liveFrom` then `liveUntil`, in seconds.
    static let windowTrailer = 16

    /// Whether a windowed record is served at `at` (`ExperienceState.live` but for its status, which the lookup
    /// checks first): from `liveFrom` included to `liveUntil` excluded (docs/rules.md#experiences-in-time).
    @inline(__always) func isLive(_ r: Record, at: Instant) -> Bool {
        let end = r.data + Int(r.dataLength)
        let from = Int64(bitPattern: readUInt64(end - Self.windowTrailer)), until = Int64(bitPattern: readUInt64(end - 8))
        return at.seconds >= from && at.seconds < until
    }

    mutating func appendUInt64(_ n: UInt64) {
        withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always) func readUInt64(_ i: Int) -> UInt64 {
        UInt64(readUInt32(i)) | UInt64(readUInt32(i + 4)) << 32
    }

    mutating func appendField(_ field: UnsafeBufferPointer<UInt8>?) {
        if let field {
            appendUInt32(UInt32(field.count))
            bytes.append(contentsOf: field)
        } else {
            appendUInt32(.max)
        }
    }

    /// Each localization: language, then title and subtitle, each a 4-byte length and its bytes.
    mutating func appendLocalization<T: Collection<UInt8>>(to record: inout Record, language: UInt8, title: T, subtitle: T) {
        let start = bytes.count
        bytes.append(language)
        appendUInt32(UInt32(title.count))
        bytes.append(contentsOf: title)
        appendUInt32(UInt32(subtitle.count))
        bytes.append(contentsOf: subtitle)
        record.localizationsLength += Int32(bytes.count - start)
    }

    mutating func appendUInt32(_ n: UInt32) {
        withUnsafeBytes(of: n.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Where a field of `ExperienceField.all` lives in a record, and what the resolve answer writes
    /// for it (`writeAnswer`). Plain values only: the answer's loop copies no reference.
    struct ArenaField: Equatable {
        enum Slot: Equatable {
            /// One byte after the clip number, the n-th.
            case byte(Int)
            /// A length and its bytes, after the bytes of the one-byte fields.
            case run
            /// The record's `status`.
            case status
        }
        let slot: Slot
        let kind: ExperienceField.Kind
        let inAnswer: Bool
        /// `ExperienceField.liveFrom` (else, for an instant, `liveUntil`).
        let isWindowStart: Bool
        /// Its first member in `answerMembers`: a one-byte field's member for each of its values
        /// (`,"action":"OPEN"`), a run's member up to its value (`,"place":`).
        let firstMember: Int
    }

    static let arenaFields: [ArenaField] = {
        var bytesBefore = 0, members = 0
        return ExperienceField.all.enumerated().map { position, field in
            defer { members += answerMemberTexts(field).count }
            switch field.kind {
            case _ where position == ExperienceField.statusPosition:
                return ArenaField(slot: .status, kind: field.kind, inAnswer: field.inAnswer, isWindowStart: false, firstMember: members)
            case .enumeration, .flag:
                defer { bytesBefore += 1 }
                return ArenaField(
                    slot: .byte(bytesBefore), kind: field.kind, inAnswer: field.inAnswer, isWindowStart: false, firstMember: members)
            case .text, .json, .instant:
                return ArenaField(
                    slot: .run, kind: field.kind, inAnswer: field.inAnswer, isWindowStart: field.name == ExperienceField.liveFrom.name,
                    firstMember: members)
            }
        }
    }()

    static func answerMemberTexts(_ field: ExperienceField) -> [String] {
        switch field.kind {
        case .enumeration: field.cases.map { ",\"\(field.name)\":\"\($0)\"" }
        case .flag: [",\"\(field.name)\":false", ",\"\(field.name)\":true"]
        case .text, .json, .instant: [",\"\(field.name)\":"]
        }
    }

    /// The answer's members of every field (`ArenaField.firstMember`), as bytes.
    static let answerMembers: [[UInt8]] = ExperienceField.all.flatMap { answerMemberTexts($0).map { Array($0.utf8) } }
    static let arenaByteFields = arenaFields.filter { if case .byte = $0.slot { true } else { false } }.count
    static let arenaRuns = arenaFields.filter { $0.slot == .run }.count
    static let languageByte: Int = {
        guard case .byte(let n) = arenaFields[ExperienceField.languagePosition].slot else { preconditionFailure("language is one byte") }
        return n
    }()

    /// The clip number of a record.
    @inline(__always) func clipNumber(_ r: Record) -> Int { Int(readUInt32(r.data + Int(r.urlLength))) }

    /// The byte of a one-byte field (`ArenaField.Slot.byte`).
    @inline(__always) func fieldByte(_ r: Record, _ n: Int) -> UInt8 { bytes[r.data + Int(r.urlLength) + 4 + n] }

    /// Each field of a record, in `ExperienceField.all` order: its byte (for the status, the
    /// record's), or the range of its run (nil: unset).
    @inline(__always) func forEachField(
        _ r: Record, _ body: (_ position: Int, _ field: ArenaField, _ byte: UInt8, _ run: Range<Int>?) -> Void
    ) {
        let start = r.data + Int(r.urlLength) + 4
        var i = start + Self.arenaByteFields
        for (position, field) in Self.arenaFields.enumerated() {
            switch field.slot {
            case .byte(let n): body(position, field, bytes[start + n], nil)
            case .status: body(position, field, r.status, nil)
            case .run:
                let length = readUInt32(i)
                i += 4
                if length == .max {
                    body(position, field, 0xFF, nil)
                } else {
                    body(position, field, 0, i..<(i + Int(length)))
                    i += Int(length)
                }
            }
        }
    }

    @inline(__always) func readUInt32(_ i: Int) -> UInt32 {
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    /// The title and subtitle of `language` in a record's localizations, if it has it.
    func card(_ r: Record, _ language: UInt8) -> (title: Range<Int>, subtitle: Range<Int>)? {
        guard r.localizations >= 0 else { return nil }
        var i = r.localizations
        let end = i + Int(r.localizationsLength)
        while i < end {
            let lang = bytes[i]
            let titleLength = Int(readUInt32(i + 1))
            let title = (i + 5)..<(i + 5 + titleLength)
            let subtitleLength = Int(readUInt32(title.upperBound))
            let subtitle = (title.upperBound + 4)..<(title.upperBound + 4 + subtitleLength)
            if lang == language { return (title, subtitle) }
            i = subtitle.upperBound
        }
        return nil
    }

    static let actions = Action.allCases
    static let languages = Language.allCases
    static let categories = BusinessCategory.allCases
    static let statuses = ExperienceStatus.allCases
    static let active = statusNumber(.active)
    static let actionTexts = actions.map { Array($0.rawValue.utf8) }
    static let languageTexts = languages.map { Array($0.spelling.utf8) }
    static let categoryTexts = categories.map { Array($0.rawValue.utf8) }

    static func languageNumber(_ language: Language) -> UInt8 { UInt8(languages.firstIndex(of: language)!) }
    static func statusNumber(_ status: ExperienceStatus) -> UInt8 { UInt8(statuses.firstIndex(of: status)!) }

    @inline(__always) func withURL<T>(_ r: Record, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[r.data..<(r.data + Int(r.urlLength))])) }
    }
    @inline(__always) static func host(_ url: UnsafeBufferPointer<UInt8>, _ r: Record) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: url[8..<(8 + Int(r.hostLength))])
    }
    @inline(__always) static func path(_ url: UnsafeBufferPointer<UInt8>, _ r: Record) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: url[(8 + Int(r.hostLength))..<(8 + Int(r.hostLength) + Int(r.pathLength))])
    }

    /// The experience of a record as a Swift value (timestamps left out: no answer served from
    /// the index shows them).
    func materialize(_ slot: Int) -> AdvancedExperience {
        let r = records[slot]
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        var localizations: [Language: CardText] = [:]
        for language in Self.languages.indices {
            if let card = card(r, UInt8(language)) {
                localizations[Self.languages[language]] = CardText(title: text(card.title), subtitle: text(card.subtitle))
            }
        }
        // The URL and place were checked when stored: reading them back cannot fail.
        let url = try! NormalizedURL(canonical: text(r.data..<(r.data + Int(r.urlLength))))
        var experience = AdvancedExperience(
            id: r.id, url: url, clip: clips[clipNumber(r)], localizations: localizations, version: Int(r.version))
        forEachField(r) { position, field, byte, run in
            let value: FieldValue =
                switch (field.kind, run) {
                case (.enumeration, _), (.flag, _): byte == 0xFF ? .none : .code(Int(byte))
                case (.text, let run?), (.instant, let run?): .text(text(run))
                case (.json, let run?): .json(try! JSONParser.parse(text(run)))
                case (.text, nil), (.json, nil), (.instant, nil): .none
                }
            ExperienceField.all[position].set(value, in: &experience)
        }
        return experience
    }
}

/// The stored columns of an experience's fields (`ExperienceField.all`), as the read model takes
/// them (`ExperienceIndex.load`): LiveIndex reads SQLite's column bytes, `upsert` an experience's values.
public protocol ExperienceColumns {
    /// A one-byte field (`ExperienceField.Kind.enumeration` or `.flag`): its case's position in
    /// `cases`, 0 or 1 for a flag, 0xFF when unset.
    mutating func code(_ position: Int) throws -> UInt8
    /// A field of `.text` or `.json`: its bytes (JSON as `JSONWriter` writes it), nil when unset.
    mutating func withBytes(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) throws
}

/// An experience's field values as `ExperienceColumns` (`ExperienceIndex.upsert`).
public struct ExperienceValueColumns: ExperienceColumns {
    let values: [FieldValue]
    public init(_ experience: AdvancedExperience) { values = ExperienceField.values(of: experience) }
    public func code(_ position: Int) -> UInt8 {
        if case .code(let n) = values[position] { UInt8(n) } else { 0xFF }
    }
    public func withBytes(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
        switch values[position] {
        case .text(let text): Array(text.utf8).withUnsafeBufferPointer { body($0) }
        case .json(let json): JSONWriter.bytes(json).withUnsafeBufferPointer { body($0) }
        case .none, .code: body(nil)
        }
    }
}
