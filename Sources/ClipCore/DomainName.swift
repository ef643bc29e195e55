import IDNA

/// Host normalization (docs/rules.md#host-names): a host is read as browsers read it — the WHATWG
/// URL Standard's host parser, whose "domain to ASCII" is UTS #46 §4 (nontransitional, CheckBidi,
/// CheckJoiners) — with the registry's stricter rules on top: UseSTD3ASCIIRules (letters, digits
/// and hyphens, RFC 1123 §2.1), no hyphen at either end of a label, no empty label, DNS lengths
/// (RFC 1035 §2.3.4), and a fully qualified domain name, since `appclips` associations name exact
/// FQDNs: no IP address in any form a browser reads as one, no port, no wildcard (docs/apple-formats.md#appclips).
public enum DomainName {
    public enum Problem: Error, Equatable, Sendable {
        case empty, tooLong, emptyLabel, labelTooLong(String), invalidCharacter(String), hyphenAtEdge(String),
            badPunycode(String), ipAddress, ipv6Literal, singleLabel
        case notLetterDigitHyphen(String, Unicode.Scalar), disallowedCharacter(String, Unicode.Scalar)
        case leadingCombiningMark(String), joinerContext(String), bidiRule(String)
        case aLabelOfASCII(String), aLabelNotNFC(String, String), aLabelInALabel(String), aLabelNeedsMapping(String, Unicode.Scalar)
        case notIPv4(String)

        public var message: String {
            switch self {
            case .empty: "the host is empty"
            case .tooLong: "the host is longer than 253 characters (RFC 1035 §2.3.4)"
            case .emptyLabel: "the host has an empty label (two dots in a row)"
            case .labelTooLong(let l): "the label \"\(l.truncatedForMessage)\" is longer than 63 characters in DNS (RFC 1035 §2.3.4)"
            case .invalidCharacter(let l): "the label \"\(l.truncatedForMessage)\" has a character not allowed in a host name"
            case .hyphenAtEdge(let l): "the label \"\(l.truncatedForMessage)\" starts or ends with a hyphen (RFC 1123 §2.1)"
            case .badPunycode(let l): "the label \"\(l.truncatedForMessage)\" starts with xn-- but is not valid Punycode (RFC 3492)"
            case .ipAddress:
                "the host must be a domain name, not an IP address (browsers read a host that ends in a number as IPv4: WHATWG URL)"
            case .ipv6Literal: "the host must be a domain name, not an IP address (an IPv6 literal in brackets)"
            case .singleLabel: "the host must be a fully qualified domain name such as shop.example"
            case .notLetterDigitHyphen(let l, let c):
                "the label \"\(l.truncatedForMessage)\" has \(Self.describe(c)): host names are letters, digits and hyphens "
                    + "(RFC 1123 §2.1; UTS #46 UseSTD3ASCIIRules)"
            case .disallowedCharacter(let l, let c):
                "the label \"\(l.truncatedForMessage)\" has \(Self.describe(c)), which UTS #46 does not allow in a host name"
            case .leadingCombiningMark(let l): "the label \"\(l.truncatedForMessage)\" starts with a combining mark (UTS #46 §4.1)"
            case .joinerContext(let l):
                "the label \"\(l.truncatedForMessage)\" has a zero-width joiner or non-joiner where RFC 5892 Appendix A does not "
                    + "allow one (after a virama, or a non-joiner between joining letters)"
            case .bidiRule(let l):
                "the label \"\(l.truncatedForMessage)\" breaks the bidi rule of a host with right-to-left text (RFC 5893 §2)"
            case .aLabelOfASCII(let l): "the label \"\(l.truncatedForMessage)\" starts with xn-- but decodes to ASCII only (UTS #46 §4)"
            case .aLabelNotNFC(let l, let u):
                "the label \"\(l.truncatedForMessage)\" decodes to \"\(u.truncatedForMessage)\", not in Unicode normalization form C (UTS #46 §4.1)"
            case .aLabelInALabel(let l): "the label \"\(l.truncatedForMessage)\" decodes to a label that starts with xn-- (UTS #46 §4.1)"
            case .aLabelNeedsMapping(let l, let c):
                "the label \"\(l.truncatedForMessage)\" decodes to text with \(Self.describe(c)), which UTS #46 maps to another "
                    + "character: an A-label holds the mapped form"
            case .notIPv4(let h):
                "browsers read a host that ends in a number (\"\(h.truncatedForMessage)\") as an IPv4 address (WHATWG URL), "
                    + "and this is not a valid one"
            }
        }

        /// A refusal of the UTS #46 engine (`IDNA`), the case of the same name.
        init(_ problem: UTS46.Problem) {
            switch problem {
            case .badPunycode(let l): self = .badPunycode(l)
            case .hyphenAtEdge(let l): self = .hyphenAtEdge(l)
            case .notLetterDigitHyphen(let l, let c): self = .notLetterDigitHyphen(l, c)
            case .disallowedCharacter(let l, let c): self = .disallowedCharacter(l, c)
            case .leadingCombiningMark(let l): self = .leadingCombiningMark(l)
            case .joinerContext(let l): self = .joinerContext(l)
            case .bidiRule(let l): self = .bidiRule(l)
            case .aLabelOfASCII(let l): self = .aLabelOfASCII(l)
            case .aLabelNotNFC(let l, let u): self = .aLabelNotNFC(l, u)
            case .aLabelInALabel(let l): self = .aLabelInALabel(l)
            case .aLabelNeedsMapping(let l, let c): self = .aLabelNeedsMapping(l, c)
            }
        }

        /// A character as a message names it: itself when visible, and its code point.
        static func describe(_ scalar: Unicode.Scalar) -> String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            let p = scalar.properties
            let visible = p.generalCategory != .control && !p.isWhitespace && !p.isDefaultIgnorableCodePoint
            return visible ? "\"\(scalar)\" (\(code))" : code
        }
    }

    /// The ASCII form of `host`, or the first problem found.
    public static func normalize(_ host: String) throws(Problem) -> String {
        if isNormalLDH(host) { return host }
        if host.hasPrefix("[") { throw .ipv6Literal }
        // UTS #46 §4 steps 1–3: map, normalize, then break into labels at U+002E (the other full
        // stops, U+3002, U+FF0E and U+FF61, map to it).
        let mapped = UTS46.map(host)
        var labels = mapped.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if labels.count > 1, labels.last == "" { labels.removeLast() }  // trailing dot: the root, insignificant
        guard !(labels.count == 1 && labels[0].isEmpty) else { throw .empty }
        var unicode: [String] = []
        unicode.reserveCapacity(labels.count)
        for label in labels {
            guard !label.isEmpty else { throw .emptyLabel }
            do { unicode.append(try UTS46.decodeAndValidate(label)) } catch { throw Problem(error) }
        }
        do { try UTS46.checkBidi(unicode, originals: labels) } catch { throw Problem(error) }
        var ascii: [String] = []
        for (index, label) in unicode.enumerated() {
            ascii.append(try toASCII(label, original: labels[index]))
        }
        try checkNotIPv4(ascii)
        guard ascii.count >= 2 else { throw .singleLabel }
        let result = ascii.joined(separator: ".")
        guard result.utf8.count <= 253 else { throw .tooLong }
        return result
    }

    /// UTS #46 §4.2 ToASCII step 1 for one validated label, with VerifyDnsLength's label limit.
    static func toASCII(_ label: String, original: String) throws(Problem) -> String {
        let ascii: String
        if label.utf8.allSatisfy({ $0 < 0x80 }) {
            ascii = label
        } else {
            guard let encoded = try? Punycode.encode(label) else { throw .badPunycode(original) }
            ascii = "xn--" + encoded
        }
        guard ascii.utf8.count <= 63 else { throw .labelTooLong(original) }
        return ascii
    }

    /// WHATWG URL host parser step 8: a host that ends in a number is an IPv4 address, or a
    /// failure; the registry refuses both (docs/rules.md#host-names).
    static func checkNotIPv4(_ ascii: [String]) throws(Problem) {
        let labels = ascii.map { Substring($0) }
        guard IPv4Host.endsInANumber(labels) else { return }
        guard IPv4Host.parse(labels) != nil else { throw .notIPv4(ascii.joined(separator: ".")) }
        throw .ipAddress
    }

    /// The common case in one pass: already lower-case letters, digits and hyphens, two or more
    /// labels of 1–63 without a hyphen at either end, no A-label, a last label that is not a
    /// number as the WHATWG URL Standard reads one (all digits, or "0x" and hex digits), at most 253 bytes. Such a host is its own normal form; anything else takes the full path.
    static func isNormalLDH(_ host: String) -> Bool { isNormalLDH(host.utf8) }

    /// `isNormalLDH` on bytes (the read model's lookups read hosts without making Strings).
    static func isNormalLDH<Bytes: Sequence<UInt8>>(_ host: Bytes) -> Bool {
        var labels = 0, length = 0, allDigits = true, hexNumber = false
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
                switch length {
                case 0: hexNumber = b == UInt8(ascii: "0")
                case 1: hexNumber = hexNumber && b == UInt8(ascii: "x")
                default: hexNumber = hexNumber && (digit || (b >= 0x61 && b <= 0x66))
                }
                length += 1
                guard length <= 63 else { return false }
            }
            previous = b
        }
        guard length > 0, previous != UInt8(ascii: "-"), !allDigits, !(hexNumber && length >= 2), bytes <= 253 else { return false }
        return labels + 1 >= 2
    }
}
