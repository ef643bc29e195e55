import StrictJSON

/// Card text of one language: title ≤ 30 and subtitle ≤ 56 characters (HIG, docs/apple-formats.md#the-app-clip-card),
/// counted as Swift `Character`s (user-perceived characters).
public struct CardText: Hashable, Sendable {
    public var title: String
    public var subtitle: String
    public init(title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
    }
}

/// Every stored free text (card titles and subtitles, default-experience subtitles, app names,
/// token names, the strings of a `place`) is checked here, and only here.
public enum TextLimits {
    // Hard limits from the HIG and "Configuring App Clip experiences" (docs/apple-formats.md#the-app-clip-card).
    public static let titleMax = 30
    public static let subtitleMax = 56
    // Older guidance (WWDC20 10146), kept as warnings (docs/apple-formats.md#the-app-clip-card).
    public static let titleAdvised = 18
    public static let subtitleAdvised = 43
    /// App Store Connect's limit for an app name (our choice to apply it to the stored name).
    public static let appNameMax = 30
    /// Our choice for names that are ours alone (API tokens) and for the strings of a `place`.
    public static let tokenNameMax = 100
    public static let placeTextMax = 256

    /// An app's name: may be empty (an app not named yet), at most `appNameMax`.
    public static func checkAppName(_ name: String, field: String = "name") -> [FieldError] {
        check(name, field: field, max: appNameMax, allowEmpty: true)
    }

    /// An API token's name: required, at most `tokenNameMax`.
    public static func checkTokenName(_ name: String, field: String = "name") -> [FieldError] {
        check(name, field: field, max: tokenNameMax)
    }

    /// A limit in user-perceived characters alone lets one base letter carry any number of
    /// combining marks ("1 character" of 800 KB). So the UTF-8 size is capped too, at this many
    /// bytes per allowed character: room for every character to be an emoji with a skin-tone
    /// modifier and a variation selector (4 + 4 + 3 bytes), more than real text needs. The
    /// UTF-16 length is bounded with it (never more code units than UTF-8 bytes).
    public static let bytesPerCharacter = 12
    /// UAX #15 §13 (Stream-Safe Text Format): no more than 30 non-starters in a row.
    public static let maxNonStartersInARow = 30

    /// Errors for text over the limits, empty (unless `allowEmpty`) or without a visible
    /// character, beginning with a combining mark, with surrounding spaces, or holding control,
    /// invisible or unrenderable characters. Surrounding spaces are refused, not trimmed: what is
    /// stored is what the client sent, byte for byte (an export re-imports to the same bytes).
    public static func check(_ text: String, field: String, max: Int, allowEmpty: Bool = false) -> [FieldError] {
        var errors: [FieldError] = []
        func fail(_ rule: String, _ message: String) {
            // The rule's name is the field's last part ("localizations.FR.title" -> "title"); found only
            // for an error: splitting the field (by Characters) for every text was most of this
            // check's instructions (callgrind, 20k-line import: 366 M for 40k texts).
            let last = field.split(separator: ".").last ?? Substring(field)
            let name = last.split(separator: "[").first.map(String.init) ?? String(last)
            errors.append(FieldError(field: field, rule: "\(name).\(rule)", message: message))
        }
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 == UInt8(ascii: " ") }) {
            if !allowEmpty || !utf8.isEmpty { fail("empty", "must not be empty") }
            return errors
        }
        let maxBytes = max * bytesPerCharacter
        if utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: one byte per character (CR LF, the one two-byte character, is refused below).
            // No Unicode property is looked up here: a text that is not all spaces and has no
            // control character has a visible character (0x21...0x7E) and begins with no mark.
            if utf8.count > max { fail("length", "is \(utf8.count) characters; the limit is \(max)") }
            if utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { fail("control", "must be one line without control characters") }
            if utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ") { fail("spaces", "must not begin or end with a space") }
            return errors
        }
        if utf8.count > maxBytes {
            // Counting characters of a huge text is the work the byte cap is there to avoid.
            fail("length", "is \(utf8.count) bytes in UTF-8; the limit is \(maxBytes) (\(max) characters)")
        } else if text.count > max {
            fail("length", "is \(text.count) characters; the limit is \(max)")
        }
        // One pass; Unicode properties are looked up only from U+0300 on (below it, the controls,
        // U+00AD and the spaces are known, every other character is visible, and every character
        // is a starter).
        var nonStarters = 0, scanned = 0
        var needsContext = false
        var tooManyMarks = false
        var sawVisible = false
        for s in text.unicodeScalars {
            scanned += 1
            if scanned > maxBytes { break }
            if s.value < 0x300 {
                nonStarters = 0
                if s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0xAD {
                    needsContext = true
                } else if s.value != 0x20 && s.value != 0xA0 {
                    sawVisible = true
                }
                continue
            }
            let p = s.properties
            nonStarters = p.canonicalCombiningClass.rawValue == 0 ? 0 : nonStarters + 1
            if nonStarters > maxNonStartersInARow { tooManyMarks = true }
            let category = p.generalCategory
            if p.isDefaultIgnorableCodePoint || isRefused(s, category) { needsContext = true }
            if !sawVisible, isVisible(s, p, category) { sawVisible = true }
        }
        if needsContext, let bad = forbidden(Array(text.unicodeScalars.prefix(maxBytes + 1))) {
            fail(
                "control",
                "must be one line of visible text without control, invisible formatting or unrenderable characters (U+\(hex(bad.scalar)) is \(bad.why))"
            )
        }
        // A mark that is default-ignorable (a variation selector, U+034F) is refused above already.
        if let first = text.unicodeScalars.first, first.value >= 0x300, isMark(first.properties.generalCategory),
            !first.properties.isDefaultIgnorableCodePoint
        {
            fail("combining", "must not begin with a combining mark (U+\(hex(first))): it has no base character to combine with")
        }
        if tooManyMarks { fail("combining", "has more than \(maxNonStartersInARow) combining marks in a row (UAX #15 stream-safe text)") }
        if !sawVisible {
            // Only spaces, blanks and invisible characters: it looks empty, whatever else is wrong.
            if !allowEmpty || !utf8.isEmpty { fail("empty", "must contain at least one visible character") }
        } else if let first = text.unicodeScalars.first, let last = text.unicodeScalars.last, isSpace(first) || isSpace(last) {
            fail("spaces", "must not begin or end with a space")
        }
        return errors
    }

    /// A space at either end: White_Space (PropList.txt), or a blank glyph (below) that looks
    /// like one.
    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x80 ? s == " " : s.properties.isWhitespace || isBlankGlyph(s)
    }

    /// Graphic characters whose glyph is blank by design: U+2800 BRAILLE PATTERN BLANK (the
    /// Braille cell with no dots, Unicode §21.1: not a space character for Unicode, so neither
    /// White_Space nor ignorable) and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (§21.2).
    static func isBlankGlyph(_ s: Unicode.Scalar) -> Bool { s.value == 0x2800 || s.value == 0x1D159 }

    /// A character that shows nothing, or nothing a reader could type back: a space or separator (Z*), one that
    /// `isRefused` (controls, format characters, private use, unassigned, U+FFFC), a Default_Ignorable_Code_Point
    /// (the Hangul fillers, variation selectors, U+034F, U+17B4–U+17B5, U+180B–U+180F, …) or a blank glyph. What
    /// is printed for others to read (a QR code's URL) may hold none of them.
    public static func isInvisible(_ s: Unicode.Scalar) -> Bool {
        let p = s.properties
        switch p.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        case let category: return isRefused(s, category) || p.isDefaultIgnorableCodePoint || isBlankGlyph(s)
        }
    }

    static func isMark(_ category: Unicode.GeneralCategory) -> Bool {
        category == .nonspacingMark || category == .spacingMark || category == .enclosingMark
    }

    /// Characters refused wherever they are (beyond the Default_Ignorable_Code_Points, which
    /// `firstForbidden` refuses with its exceptions), by General_Category (UAX #44,
    /// UnicodeData.txt, as the Swift runtime's Unicode tables give it: Unicode 16 in Swift 6.3):
    /// - Cc controls, Zl/Zp (U+2028/U+2029): a stored text is one line;
    /// - Cf format characters: invisible by nature. Besides the default-ignorable ones (bidi
    ///   controls, U+FEFF, …) this is U+FFF9–U+FFFB (interlinear annotation controls), the
    ///   Egyptian hieroglyph format controls U+13430–U+1343F, and the prepended concatenation
    ///   marks (Prepended_Concatenation_Mark, PropList.txt: U+0600–U+0605, U+06DD, U+070F,
    ///   U+0890–U+0891, U+08E2, U+110BD, U+110CD), which span the digits after them in Arabic,
    ///   Syriac and Kaithi numbers (an Arabic number sign, an end-of-ayah ornament). Our choice
    ///   is to refuse them too: a card title or subtitle has no use for them, and without the
    ///   digits they format, or in a font without them, they show as nothing or as a stray box;
    /// - Co private-use characters (U+E000–U+F8FF, planes 15–16): no meaning outside an agreement
    ///   that the card's readers are not party to; iOS shows a box or nothing;
    /// - Cn unassigned code points (noncharacters included) and Cs (never in a Swift string):
    ///   nothing to render. A character assigned after the runtime's Unicode version is refused
    ///   until the toolchain knows it;
    /// - U+FFFC OBJECT REPLACEMENT CHARACTER (So): a placeholder for an embedded object that a
    ///   plain-text card does not have (Unicode §23.8); it renders as a box.
    static func isRefused(_ s: Unicode.Scalar, _ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .control, .format, .privateUse, .unassigned, .surrogate, .lineSeparator, .paragraphSeparator: return true
        default: return s.value == 0xFFFC
        }
    }

    /// A visible character: a graphic base character, one of General_Category L (letters),
    /// N (numbers), P (punctuation) or S (symbols) (Unicode §2.4 "graphic characters", without
    /// the marks, which need a base, and Zs, which is White_Space like every Z and Cc space);
    /// not a Default_Ignorable_Code_Point (DerivedCoreProperties.txt; this removes the Hangul
    /// fillers U+115F, U+1160, U+3164 and U+FFA0, letters by category that show nothing); not
    /// a blank glyph (U+2800 BRAILLE PATTERN BLANK, U+1D159); and not U+FFFC, which is refused.
    static func isVisible(_ s: Unicode.Scalar, _ p: Unicode.Scalar.Properties, _ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return !p.isDefaultIgnorableCodePoint && !isBlankGlyph(s) && s.value != 0xFFFC
        default:
            return false
        }
    }

    static func hex(_ s: Unicode.Scalar) -> String {
        let digits = String(s.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }

    /// What a refused scalar is, for the message.
    static func describe(_ s: Unicode.Scalar) -> String {
        let p = s.properties
        if p.isNoncharacterCodePoint { return "a noncharacter" }
        switch p.generalCategory {
        case .control: return "a control character"
        case .lineSeparator, .paragraphSeparator: return "a line or paragraph separator"
        case .privateUse: return "a private-use character"
        case .unassigned: return "an unassigned code point"
        case .format: return "an invisible formatting character"
        default: return s.value == 0xFFFC ? "the object replacement character" : "an invisible character"
        }
    }

    /// The first scalar that may not be stored: one that `isRefused` (controls, format
    /// characters, separators, private use, unassigned and noncharacters, U+FFFC), or a
    /// Default_Ignorable_Code_Point (UAX #44; the invisible ones: U+00AD, U+200B–U+200F, the
    /// bidi controls U+202A–U+202E and U+2066–U+2069, U+2060–U+2064, U+FEFF, U+180E, …), except
    /// where a writing system or an emoji needs one (these are all Cf or default-ignorable Mn):
    /// - U+200C/U+200D after a virama (canonical combining class 9): RFC 5892 Appendix A.1–A.2;
    /// - U+200D between a letter and a virama: Bengali র‍্যাব (ra, ZWJ, virama gives the
    ///   ya-phala form), the Devanagari eyelash ra र‍् (Unicode §12.1), Gurmukhi, Malayalam;
    /// - U+200C between two letters of a cursive-joining script (`isCursiveJoiningContext`):
    ///   Persian کتاب‌ها, RFC 5892 Appendix A.1;
    /// - U+200D between two emoji (an emoji ZWJ sequence, UTS #51 ED-16);
    /// - one variation selector right after a base it selects a variant of (`selectsAVariant`);
    /// - tag characters only in the three RGI emoji tag sequences (`rgiTagSequenceLength`).
    public static func firstForbidden(_ scalars: [Unicode.Scalar]) -> Unicode.Scalar? { forbidden(scalars)?.scalar }

    /// `firstForbidden`, with what the scalar is (or which rule it breaks) for the message.
    static func forbidden(_ scalars: [Unicode.Scalar]) -> (scalar: Unicode.Scalar, why: String)? {
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            i += 1
            let p = s.properties
            let category = p.generalCategory
            guard p.isDefaultIgnorableCodePoint || isRefused(s, category) else { continue }
            let at = i - 1
            let previous = at > 0 ? scalars[at - 1] : nil
            let next = i < scalars.count ? scalars[i] : nil
            switch s.value {
            case 0x200C, 0x200D:
                if let previous, previous.properties.canonicalCombiningClass.rawValue == 9 { continue }
                if s.value == 0x200C, isCursiveJoiningContext(scalars, at: at) { continue }
                if s.value == 0x200D, let next, next.properties.canonicalCombiningClass == .virama, isAfterLetter(scalars, at: at) {
                    continue
                }
                if s.value == 0x200D, let next, next.properties.isEmoji, let base = emojiBase(scalars, before: at), base.properties.isEmoji,
                    base.value > 0x7F
                {
                    continue
                }
                return (s, describe(s))
            case 0xE0001, 0xE0020...0xE007F:
                if let length = rgiTagSequenceLength(scalars, at: at) {
                    i = at + length
                    continue
                }
                return (
                    s, "a tag character outside the three RGI emoji tag sequences, the flags of England, Scotland and Wales (UTS #51 §2.8)"
                )
            default:
                if p.isVariationSelector {
                    if let previous, selectsAVariant(s, of: previous) { continue }
                    return (
                        s,
                        "a variation selector after a character it selects no variant of (VS15/VS16 follow an emoji, VS1–VS14 an ideograph or a math symbol, VS17–VS256 an ideograph, the Mongolian ones a Mongolian letter)"
                    )
                }
                return (s, describe(s))
            }
        }
        return nil
    }

    /// A variation selector is invisible: after a character that has no variant for it, it only
    /// makes two texts that look alike differ. So it is accepted only after
    /// - U+FE0E/U+FE0F (VS15/VS16, text or emoji presentation): a character with the Emoji
    ///   property (UTS #51 §1.4.3, emoji-variation-sequences.txt; keycaps: #, * and the digits
    ///   are Emoji, so `#️⃣` is base, VS16, U+20E3);
    /// - U+FE00–U+FE0D (VS1–VS14, standardized variation sequences, StandardizedVariants.txt):
    ///   an ideograph (Ideographic: CJK unified and compatibility ideographs) or a math symbol
    ///   (Sm). Our approximation: StandardizedVariants.txt also has sequences for a few letters
    ///   (Myanmar, Phags-pa, Manichaean), U+0030 and Egyptian hieroglyphs, refused here;
    /// - U+E0100–U+E01EF (VS17–VS256, ideographic variation sequences, Unicode §23.4, the IVD):
    ///   an ideograph, as in 葛󠄀;
    /// - U+180B–U+180D, U+180F (Mongolian free variation selectors, Unicode §13.5): a Mongolian
    ///   letter (U+1820–U+18AF, L*).
    static func selectsAVariant(_ selector: Unicode.Scalar, of base: Unicode.Scalar) -> Bool {
        let p = base.properties
        switch selector.value {
        case 0xFE0E, 0xFE0F: return p.isEmoji
        case 0xFE00...0xFE0D: return p.isIdeographic || p.generalCategory == .mathSymbol
        case 0xE0100...0xE01EF: return p.isIdeographic
        case 0x180B...0x180D, 0x180F: return (0x1820...0x18AF).contains(base.value) && isLetter(p.generalCategory)
        default: return false
        }
    }

    /// The scalar before `index` is a letter (L*), or a letter and its nuktas (canonical
    /// combining class 7: U+0930 U+093C, the decomposed ऱ U+0931).
    static func isAfterLetter(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, scalars[before].properties.canonicalCombiningClass == .nukta { before -= 1 }
        return before >= 0 && isLetter(scalars[before].properties.generalCategory)
    }

    /// RFC 5892 Appendix A.1 allows a ZWNJ, besides after a virama, in the context
    /// `(Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})`
    /// (Persian می‌خواهم, Urdu, Kurdish). Swift does not expose Joining_Type
    /// (ArabicShaping.txt), so this approximates it: the nearest scalar on each side that is not
    /// a nonspacing mark (Mn, which is what joining type T is made of: harakat, …) must be a
    /// letter of a cursive-joining script (`isCursiveJoiningLetter`). It accepts a little more
    /// than the RFC (a right-joining letter such as alef before the ZWNJ, where it changes
    /// nothing) and no ZWNJ in any other script outside a virama.
    static func isCursiveJoiningContext(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, scalars[before].properties.generalCategory == .nonspacingMark { before -= 1 }
        guard before >= 0, isCursiveJoiningLetter(scalars[before]) else { return false }
        var after = index + 1
        while after < scalars.count, scalars[after].properties.generalCategory == .nonspacingMark { after += 1 }
        return after < scalars.count && isCursiveJoiningLetter(scalars[after])
    }

    /// A letter (General_Category L*) of the scripts whose letters have joining types D, L or R:
    /// Arabic (U+0600–U+06FF, U+0750–U+077F, U+0870–U+089F, U+08A0–U+08FF and the presentation
    /// forms U+FB50–U+FDFF, U+FE70–U+FEFF), Syriac (U+0700–U+074F), N'Ko (U+07C0–U+07FF),
    /// Mandaic (U+0840–U+085F) and Mongolian (U+1800–U+18AF). Not covered: the other
    /// cursive-joining scripts (Adlam, Hanifi Rohingya, Manichaean, Psalter Pahlavi, Sogdian,
    /// Phags-pa, Arabic Extended-C).
    static func isCursiveJoiningLetter(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0600...0x06FF, 0x0700...0x074F, 0x0750...0x077F, 0x07C0...0x07FF, 0x0840...0x085F, 0x0870...0x089F,
            0x08A0...0x08FF, 0x1800...0x18AF, 0xFB50...0xFDFF, 0xFE70...0xFEFF:
            return isLetter(s.properties.generalCategory)
        default:
            return false
        }
    }

    static func isLetter(_ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    /// The tags of the RGI emoji tag sequences (emoji-sequences.txt, RGI_Emoji_Tag_Sequence:
    /// U+1F3F4 WAVING BLACK FLAG, these tags, U+E007F CANCEL TAG): the flags of England,
    /// Scotland and Wales. UTS #51 §2.8 (ED-14a) allows any tag spec, but only these three are
    /// recommended for general interchange; any other run of tags is text that no one sees (a
    /// hidden sentence renders as one black flag), so it is refused.
    static let rgiTagSpecs: Set<String> = ["gbeng", "gbsct", "gbwls"]

    /// The number of scalars (5 tags and U+E007F) of the RGI emoji tag sequence whose first
    /// tag is at `index`, right after its U+1F3F4; nil for any other tag character.
    static func rgiTagSequenceLength(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        guard index > 0, scalars[index - 1].value == 0x1F3F4, index + 6 <= scalars.count, scalars[index + 5].value == 0xE007F else {
            return nil
        }
        var spec = ""
        for s in scalars[index..<index + 5] {
            guard (0xE0061...0xE007A).contains(s.value), let letter = Unicode.Scalar(s.value - 0xE0000) else { return nil }
            spec.unicodeScalars.append(letter)
        }
        return rgiTagSpecs.contains(spec) ? 6 : nil
    }

    /// The emoji a ZWJ follows, skipping its modifiers and variation selector.
    static func emojiBase(_ scalars: [Unicode.Scalar], before index: Int) -> Unicode.Scalar? {
        var j = index - 1
        while j >= 0, scalars[j].properties.isEmojiModifier || scalars[j].properties.isVariationSelector { j -= 1 }
        return j >= 0 ? scalars[j] : nil
    }

    /// The rule of the advice on a long title (the other is on the subtitle).
    public static let titleAdvisedRule = "title.advised"

    /// Warnings for text over the older 18/43 guidance.
    public static func advice(_ card: CardText, field: String) -> [FieldError] {
        var warnings: [FieldError] = []
        let titleCount = characterCount(card.title), subtitleCount = characterCount(card.subtitle)
        if titleCount > titleAdvised {
            warnings.append(
                FieldError(
                    field: "\(field).title", rule: titleAdvisedRule,
                    message: "is \(titleCount) characters; older guidance advises at most \(titleAdvised)"))
        }
        if subtitleCount > subtitleAdvised {
            warnings.append(
                FieldError(
                    field: "\(field).subtitle", rule: "subtitle.advised",
                    message: "is \(subtitleCount) characters; older guidance advises at most \(subtitleAdvised)"))
        }
        return warnings
    }

    /// `text.count` (user-perceived characters, UAX #29 grapheme clusters). In ASCII without CR
    /// every byte is one: CR LF is the one cluster of two ASCII characters (GB3), and ASCII has
    /// no Extend, SpacingMark or Prepend character (GB9, GB9a, GB9b). Counting clusters was 3.8k
    /// instructions a card (callgrind, 20k-line import).
    static func characterCount(_ text: String) -> Int {
        text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) ? text.utf8.count : text.count
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        guard let ascii = set.asciiValue else { return String(drop { $0 == set }.reversed().drop { $0 == set }.reversed()) }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != ascii }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != ascii })!
        return String(self[first...last])
    }
}

public struct Team: Sendable, Equatable {
    public var id: TeamID
    public var name: String
    public init(id: TeamID, name: String = "") {
        self.id = id
        self.name = name
    }
}

public struct App: Sendable, Equatable {
    public var bundleID: BundleID
    public var team: TeamID
    public var appStoreID: AppStoreID?
    public var name: String
    public var version: Int
    public init(bundleID: BundleID, team: TeamID, appStoreID: AppStoreID? = nil, name: String = "", version: Int = 1) {
        self.bundleID = bundleID
        self.team = team
        self.appStoreID = appStoreID
        self.name = name
        self.version = version
    }
    public var appID: AppID { AppID(team: team, bundleID: bundleID) }
}

public struct Clip: Sendable, Equatable {
    public var appID: AppID
    public var appBundleID: BundleID
    public var hosts: [String]
    public init(appID: AppID, appBundleID: BundleID, hosts: [String] = []) {
        self.appID = appID
        self.appBundleID = appBundleID
        self.hosts = hosts
    }
}

/// A host associated with a clip: the clip is listed in the host's AASA `appclips` entry.
public struct DomainAssociation: Sendable, Equatable {
    public var clip: AppID
    public var host: String
    public init(clip: AppID, host: String) {
        self.clip = clip
        self.host = host
    }
}

/// The default experience of a clip: action, and per-locale subtitle and header image
/// (docs/apple-formats.md#default-experience: no title; the header image belongs to each localization).
public struct DefaultExperience: Sendable, Equatable {
    public struct Localization: Sendable, Equatable {
        public var subtitle: String
        public var headerImage: String?
        public init(subtitle: String, headerImage: String? = nil) {
            self.subtitle = subtitle
            self.headerImage = headerImage
        }
    }
    public var clip: AppID
    public var action: Action
    /// Keyed by locale, e.g. "en-US".
    public var localizations: [String: Localization]
    public var version: Int
    public init(clip: AppID, action: Action, localizations: [String: Localization], version: Int = 1) {
        self.clip = clip
        self.action = action
        self.localizations = localizations
        self.version = version
    }

    /// The content of a default experience as it is set: at least one localization (App Store
    /// Connect asks for one), each keyed by any spelling of an App Store locale and kept under that
    /// locale (`AppStoreLocale.locale`: `FR`, `fr`, `fr_fr` are fr-FR), with a subtitle within the
    /// card's limit (`TextLimits.subtitleMax`). Errors in the order of the keys given, every one at once.
    public static func check(localizations: [String: String]) -> (localizations: [String: String], errors: [FieldError]) {
        var errors: [FieldError] = []
        if localizations.isEmpty {
            errors.append(
                FieldError(
                    field: "localizations", rule: "required",
                    message: "give at least one locale with its subtitle (App Store Connect needs at least one localization)"))
        }
        var canonical: [String: String] = [:]
        var spelled: [String: String] = [:]
        for (given, subtitle) in localizations.sorted(by: { $0.key < $1.key }) {
            do {
                let locale = try AppStoreLocale.locale(given, field: "localizations.\(given)")
                if let first = spelled[locale] {
                    errors.append(duplicateLocale(given, sameAs: first))
                } else {
                    spelled[locale] = given
                    canonical[locale] = subtitle
                }
            } catch { errors += error.errors }
            errors += checkSubtitle(subtitle, field: "localizations.\(given).subtitle")
        }
        return (canonical, errors)
    }

    /// A locale given twice, in any spelling: App Store Connect refuses a duplicate locale (409
    /// ENTITY_ERROR), so the registry does before it stores one.
    public static func duplicateLocale(_ locale: String, sameAs first: String) -> FieldError {
        FieldError(
            field: "localizations.\(locale)", rule: "locale.duplicate",
            message: locale == first ? "is given twice" : "is the same locale as \(first) (give each locale once)")
    }

    /// A default experience's subtitle: the card's subtitle limit.
    public static func checkSubtitle(_ subtitle: String, field: String) -> [FieldError] {
        TextLimits.check(subtitle, field: field, max: TextLimits.subtitleMax)
    }

    /// A stored locale is a language tag (`LanguageTag`); an older version stored it as given, so it
    /// may be in another case or a bare language (docs/rules.md#languages).
    public static func checkLocale(_ locale: String, field: String) -> FieldError? {
        LanguageTag(locale) != nil
            ? nil
            : FieldError(field: field, rule: "locale.format", message: "\"\(locale.truncatedForMessage)\" is not a locale such as en-US")
    }
}
