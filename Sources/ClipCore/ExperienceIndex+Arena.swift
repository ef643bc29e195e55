import ByteScan
import StrictJSON

extension ExperienceIndex {
    // MARK: The arena's bytes

    /// After the canonical URL: clip number (4 bytes), action, default language, powered-by,
    /// category (0xFF: none), then the header image and the place (JSON), each a 4-byte length
    /// (0xFFFF_FFFF: none) and its bytes.
    mutating func appendData(
        clip: Int32, action: Action, defaultLanguage: Language, isPoweredBy: Bool, category: BusinessCategory?,
        headerImage: UnsafeBufferPointer<UInt8>?,
        place: UnsafeBufferPointer<UInt8>?
    ) {
        appendUInt32(UInt32(bitPattern: clip))
        bytes.append(UInt8(Self.actions.firstIndex(of: action)!))
        bytes.append(Self.languageNumber(defaultLanguage))
        bytes.append(isPoweredBy ? 1 : 0)
        bytes.append(category.map { UInt8(Self.categories.firstIndex(of: $0)!) } ?? 0xFF)
        appendField(headerImage)
        appendField(place)
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

    /// Reads a record's fields from `bytes`.
    struct Fields {
        var clip: Int
        var action: Int
        var defaultLanguage: UInt8
        var isPoweredBy: Bool
        var category: UInt8
        var headerImage: Range<Int>?
        var place: Range<Int>?
    }

    func fields(_ r: Record) -> Fields {
        var i = r.data + Int(r.urlLength)
        let clip = Int(readUInt32(i))
        i += 4
        var f = Fields(
            clip: clip, action: Int(bytes[i]), defaultLanguage: bytes[i + 1], isPoweredBy: bytes[i + 2] != 0, category: bytes[i + 3],
            headerImage: nil, place: nil)
        i += 4
        var length = readUInt32(i)
        i += 4
        if length != .max {
            f.headerImage = i..<(i + Int(length))
            i += Int(length)
        }
        length = readUInt32(i)
        i += 4
        if length != .max { f.place = i..<(i + Int(length)) }
        return f
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
    static let languageTexts = languages.map { Array($0.rawValue.utf8) }
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
        let f = fields(r)
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        var localizations: [Language: CardText] = [:]
        for language in Self.languages.indices {
            if let card = card(r, UInt8(language)) {
                localizations[Self.languages[language]] = CardText(title: text(card.title), subtitle: text(card.subtitle))
            }
        }
        // The URL and place were checked when stored: reading them back cannot fail.
        let url = try! NormalizedURL(canonical: text(r.data..<(r.data + Int(r.urlLength))))
        return AdvancedExperience(
            id: r.id, url: url, clip: clips[f.clip], action: Self.actions[f.action],
            defaultLanguage: Self.languages[Int(f.defaultLanguage)],
            isPoweredBy: f.isPoweredBy, businessCategory: f.category == 0xFF ? nil : Self.categories[Int(f.category)],
            localizations: localizations, headerImage: f.headerImage.map(text), place: f.place.map { try! JSONParser.parse(text($0)) },
            status: Self.statuses[Int(r.status)], version: Int(r.version))
    }
}
