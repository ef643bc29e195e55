import Foundation  // NFC normalization for internationalized labels (no I/O)

/// Host normalization (design §3.1): lower-case, internationalized labels to ASCII with
/// Punycode (RFC 3492 via IDNA, RFC 5891 §4.4), trailing dot dropped, and checked to be a
/// fully qualified domain name with letters/digits/hyphens labels (RFC 1123 §2.1), since
/// `appclips` associations name exact FQDNs: no IP address, no port, no wildcard (apple-spec §4.6).
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
        // UTS #46 §2.3: these full stops separate labels like ".".
        var labels = host.split(omittingEmptySubsequences: false) { $0 == "." || $0 == "\u{3002}" || $0 == "\u{FF0E}" || $0 == "\u{FF61}" }
            .map(String.init)
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

    /// The common case in one pass: already lower-case letters, digits and hyphens, two or more
    /// labels of 1–63 without a hyphen at either end, no A-label, a last label not all digits,
    /// at most 253 bytes. Such a host is its own normal form; anything else takes the full path.
    static func isNormalLDH(_ host: String) -> Bool {
        var labels = 0, length = 0, allDigits = true
        var previous: UInt8 = UInt8(ascii: ".")
        var bytes = 0
        for b in host.utf8 {
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
            let lower = String(decoding: label.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            try checkLDH(lower, original: label)
            if lower.hasPrefix("xn--") {
                // An A-label must decode, and re-encode to itself (RFC 5891 §5.4).
                let body = String(lower.dropFirst(4))
                guard let unicode = try? Punycode.decode(body), !unicode.isEmpty,
                    unicode.unicodeScalars.contains(where: { $0.value >= 0x80 }),
                    (try? Punycode.encode(unicode)) == body
                else { throw .badPunycode(label) }
            }
            return lower
        }
        // A U-label: NFC, lower-case (an approximation of UTS #46 mapping), then Punycode.
        let mapped = label.precomposedStringWithCanonicalMapping.lowercased()
        for scalar in mapped.unicodeScalars {
            let p = scalar.properties
            let allowed = scalar == "-" || (scalar.value < 0x80 ? isAlnum(UInt8(scalar.value)) : (p.isAlphabetic || p.generalCategory == .nonspacingMark || p.generalCategory == .spacingMark || p.generalCategory == .decimalNumber))
            guard allowed else { throw .invalidCharacter(label) }
        }
        guard !mapped.hasPrefix("-"), !mapped.hasSuffix("-") else { throw .hyphenAtEdge(label) }
        guard let encoded = try? Punycode.encode(mapped) else { throw .badPunycode(label) }
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
