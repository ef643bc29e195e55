import Foundation  // NFC normalization for internationalized labels (no I/O)

/// Host normalization (docs/rules.md#host-names): lower-case, internationalized labels to ASCII with
/// Punycode (RFC 3492 via IDNA, RFC 5891 §4.4), trailing dot dropped, and checked to be a
/// fully qualified domain name with letters/digits/hyphens labels (RFC 1123 §2.1), since
/// `appclips` associations name exact FQDNs: no IP address, no port, no wildcard (docs/apple-formats.md#appclips).
public enum DomainName {
    public enum Problem: Error, Equatable, Sendable {
        case empty, tooLong, emptyLabel, labelTooLong(String), invalidCharacter(String), hyphenAtEdge(String),
            badPunycode(String), ipAddress, singleLabel

        public var message: String {
            switch self {
            case .empty: "the host is empty"
            case .tooLong: "the host is longer than 253 characters"
            case .emptyLabel: "the host has an empty label (two dots in a row)"
            case .labelTooLong(let l): "the label \"\(l.truncatedForMessage)\" is longer than 63 characters"
            case .invalidCharacter(let l): "the label \"\(l.truncatedForMessage)\" has a character not allowed in a host name"
            case .hyphenAtEdge(let l): "the label \"\(l.truncatedForMessage)\" starts or ends with a hyphen"
            case .badPunycode(let l): "the label \"\(l.truncatedForMessage)\" is not valid Punycode"
            case .ipAddress: "the host must be a domain name, not an IP address"
            case .singleLabel: "the host must be a fully qualified domain name such as shop.example"
            }
        }
    }

    /// The ASCII form of `host`, or the first problem found.
    public static func normalize(_ host: String) throws(Problem) -> String {
        if isNormalLDH(host) { return host }
        if host.hasPrefix("[") { throw .ipAddress }
        // UTS #46 §4 step 1 (Map), then step 3 (Break): labels are split after mapping, so the
        // full stops NFKC maps (U+FF0E → ".", U+FF61 → U+3002) and U+3002 separate labels too.
        let mapped = host.utf8.allSatisfy({ $0 < 0x80 }) ? host : try map(host)
        var labels = mapped.split(omittingEmptySubsequences: false) { $0 == "." || $0 == "\u{3002}" }.map(String.init)
        if labels.count > 1, labels.last == "" { labels.removeLast() }  // trailing dot: the root, insignificant
        guard !(labels.count == 1 && labels[0].isEmpty) else { throw .empty }
        var ascii: [String] = []
        ascii.reserveCapacity(labels.count)
        for label in labels {
            ascii.append(try normalizeLabel(label))
        }
        guard ascii.count >= 2 else { throw .singleLabel }
        // A last label of digits only is an IPv4 address (or a bogus TLD): RFC 3696 §2.
        if ascii.last!.utf8.allSatisfy(isDigit) { throw .ipAddress }
        let result = ascii.joined(separator: ".")
        guard result.utf8.count <= 253 else { throw .tooLong }
        return result
    }

    /// UTS #46 §4 step 1, approximated with what Foundation gives: NFKC and lower-case (NFKC of the
    /// lower-cased NFKC, so that case mapping and compatibility mapping both settle), which is
    /// NFKC_Casefold for the common cases (full-width and half-width forms, ligatures, case) and
    /// keeps the nontransitional deviations ß and ς. The characters IdnaMappingTable marks
    /// "ignored" (soft hyphen, ZWSP, word joiners, invisible operators, BOM, variation selectors,
    /// CGJ, Mongolian free variation selectors and vowel separator, Hangul fillers) are removed; U+200C/U+200D stay for the CONTEXTJ check of each label.
    /// A character whose mapping holds a full stop (U+2488 "⒈" → "1.") is disallowed, not split
    /// (IdnaMappingTable), except the full stops that are label separators.
    static func map(_ host: String) throws(Problem) -> String {
        for s in host.unicodeScalars where s.value >= 0x80 && s.value != 0xFF0E && s.value != 0xFF61 && s.value != 0x3002 {
            if String(s).precomposedStringWithCompatibilityMapping.utf8.contains(UInt8(ascii: ".")) { throw .invalidCharacter(host) }
        }
        let mapped = withoutIgnored(host).precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
        return withoutIgnored(mapped)
    }

    static func withoutIgnored(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch s.value {
            case 0xAD, 0x34F, 0x115F, 0x1160, 0x180B...0x180F, 0x200B, 0x2060...0x2064, 0x206A...0x206F, 0xFE00...0xFE0F, 0xFEFF,
                0x1BCA0...0x1BCA3, 0xE0100...0xE01EF:
                continue
            default: kept.append(s)
            }
        }
        return String(kept)
    }

    /// UTS #46 §4.1 validity of a U-label, with the rules a host name needs (CheckHyphens and
    /// UseSTD3ASCIIRules on): NFC; no "--" in the third and fourth positions, no hyphen first or
    /// last; no combining mark first; only letters, combining marks, decimal digits and hyphens
    /// (an approximation of the IDNA "valid" status: punctuation, symbols and spaces are refused);
    /// U+200C/U+200D only after a virama (CheckJoiners, RFC 5892 Appendix A.1–A.2). The bidi rule
    /// (RFC 5893) is not checked.
    static func checkULabel(_ label: String, original: String) throws(Problem) {
        guard label == label.precomposedStringWithCanonicalMapping else { throw .invalidCharacter(original) }
        guard !label.hasPrefix("-"), !label.hasSuffix("-") else { throw .hyphenAtEdge(original) }
        let scalars = Array(label.unicodeScalars)
        if scalars.count >= 4, scalars[2] == "-", scalars[3] == "-" { throw .invalidCharacter(original) }
        if let first = scalars.first, [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) {
            throw .invalidCharacter(original)
        }
        for (i, scalar) in scalars.enumerated() {
            if scalar == "\u{200C}" || scalar == "\u{200D}" {
                guard i > 0, scalars[i - 1].properties.canonicalCombiningClass.rawValue == 9 else { throw .invalidCharacter(original) }
                continue
            }
            let p = scalar.properties
            let allowed =
                scalar == "-"
                || (scalar.value < 0x80
                    ? isAlnum(UInt8(scalar.value)) && !isUpperAlpha(UInt8(scalar.value))
                    : (p.isAlphabetic || [.nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber].contains(p.generalCategory))
                        && !p.isUppercase)
            guard allowed else { throw .invalidCharacter(original) }
        }
    }

    /// The common case in one pass: already lower-case letters, digits and hyphens, two or more
    /// labels of 1–63 without a hyphen at either end, no A-label, a last label not all digits,
    /// at most 253 bytes. Such a host is its own normal form; anything else takes the full path.
    static func isNormalLDH(_ host: String) -> Bool { isNormalLDH(host.utf8) }

    /// `isNormalLDH` on bytes (the read model's lookups read hosts without making Strings).
    static func isNormalLDH<Bytes: Sequence<UInt8>>(_ host: Bytes) -> Bool {
        var labels = 0, length = 0, allDigits = true
        var previous: UInt8 = UInt8(ascii: ".")
        var bytes = 0
        for b in host {
            bytes += 1
            if b == UInt8(ascii: ".") {
                guard length > 0, previous != UInt8(ascii: "-") else { return false }
                labels += 1
                length = 0
                allDigits = true
            } else {
                let lowerAlpha = b >= 0x61 && b <= 0x7A, digit = b >= 0x30 && b <= 0x39
                guard lowerAlpha || digit || b == UInt8(ascii: "-") else { return false }
                if b == UInt8(ascii: "-") && length == 0 { return false }
                // "xn--" starts an A-label, which must be checked as Punycode.
                if b == UInt8(ascii: "-") && length == 3 && previous == UInt8(ascii: "-") { return false }
                allDigits = allDigits && digit
                length += 1
                guard length <= 63 else { return false }
            }
            previous = b
        }
        guard length > 0, previous != UInt8(ascii: "-"), !allDigits, bytes <= 253 else { return false }
        return labels + 1 >= 2
    }

    static func normalizeLabel(_ label: String) throws(Problem) -> String {
        guard !label.isEmpty else { throw .emptyLabel }
        if label.utf8.allSatisfy({ $0 < 0x80 }) {
            let lower = String(decoding: label.utf8.map { isUpperAlpha($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            try checkLDH(lower, original: label)
            if lower.hasPrefix("xn--") {
                // An A-label must decode, re-encode to itself (RFC 5891 §5.4), and be a valid
                // U-label that mapping leaves unchanged (UTS #46 §4 step 4.1, nontransitional).
                let body = String(lower.dropFirst(4))
                guard let unicode = try? Punycode.decode(body), !unicode.isEmpty,
                    unicode.unicodeScalars.contains(where: { $0.value >= 0x80 }),
                    (try? Punycode.encode(unicode)) == body, (try? map(unicode)) == unicode
                else { throw .badPunycode(label) }
                do { try checkULabel(unicode, original: label) } catch { throw .badPunycode(label) }
            }
            // An ASCII label with "--" in positions 3–4 that is not an A-label stays allowed: such
            // hosts exist (RFC 5891 §4.2.3.1 reserves the form for U-labels; DNS does not refuse it).
            return lower
        }
        // A U-label (already mapped by `map`): checked, then Punycode.
        try checkULabel(label, original: label)
        guard let encoded = try? Punycode.encode(label) else { throw .badPunycode(label) }
        let aLabel = "xn--" + encoded
        guard aLabel.utf8.count <= 63 else { throw .labelTooLong(label) }
        return aLabel
    }

    /// RFC 1123 §2.1 / RFC 952: letters, digits and hyphens, 1 to 63 characters, no hyphen at either end.
    static func checkLDH(_ label: String, original: String) throws(Problem) {
        guard label.utf8.count <= 63 else { throw .labelTooLong(original) }
        guard label.utf8.allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") }) else { throw .invalidCharacter(original) }
        guard label.first != "-", label.last != "-" else { throw .hyphenAtEdge(original) }
    }
}
