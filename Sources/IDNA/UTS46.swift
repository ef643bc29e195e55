import Foundation  // NFC (UTS #46 §4 step 2) with precomposedStringWithCanonicalMapping; no I/O

/// The UTS #46 IDNA Mapping Table (UTS #46 §5), compiled in from `IDNAMappingData.swift`.
enum IDNAMapping {
    enum Status: UInt8 { case valid, mapped, ignored, disallowed, deviation }

    /// The status of `scalar`, and what it maps to when `.mapped`.
    static func lookup(_ scalar: UInt32) -> (status: Status, mapping: ArraySlice<UInt32>) {
        let entry = ranges[lastRange(startingAtOrBefore: scalar)]
        let status = Status(rawValue: UInt8(truncatingIfNeeded: entry >> 24)) ?? .disallowed
        guard status == .mapped else { return (status, []) }
        let offset = Int(entry & 0xFFFF), length = Int((entry >> 16) & 0xFF)
        return (status, mappingPool[offset..<offset + length])
    }

    static func lastRange(startingAtOrBefore scalar: UInt32) -> Int {
        var low = 0, high = ranges.count  // the answer is in low..<high
        while high - low > 1 {
            let middle = (low + high) / 2
            if UInt32(truncatingIfNeeded: ranges[middle] >> 32) <= scalar { low = middle } else { high = middle }
        }
        return low
    }
}

/// The Unicode properties UTS #46 validity needs (UTS #46 §4.1), compiled in from `IDNAPropertyData.swift`.
struct UnicodeHostProperties {
    /// Bidi_Class (UAX #9), in the generator's order.
    enum BidiClass: UInt8 {
        case L, R, AL, EN, ES, ET, AN, CS, NSM, BN, B, S, WS, ON, LRE, LRO, RLE, RLO, PDF, LRI, RLI, FSI, PDI
    }
    /// Joining_Type (Unicode ArabicShaping.txt, DerivedJoiningType.txt), in the generator's order.
    enum JoiningType: UInt8 { case U, L, R, D, T, C }

    let bidi: BidiClass
    let joining: JoiningType
    /// General_Category Mark (Mn, Mc, Me).
    let isMark: Bool
    /// Canonical_Combining_Class Virama (9).
    let isVirama: Bool

    init(_ scalar: UInt32) {
        var low = 0, high = Self.ranges.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if Self.ranges[middle] >> 10 <= scalar { low = middle } else { high = middle }
        }
        let value = Self.ranges[low]
        bidi = BidiClass(rawValue: UInt8(value & 0x1F)) ?? .L
        joining = JoiningType(rawValue: UInt8((value >> 5) & 0x7)) ?? .U
        isMark = value & 0x100 != 0
        isVirama = value & 0x200 != 0
    }
}

/// UTS #46 §4 Processing as the WHATWG URL Standard's "domain to ASCII" runs it in browsers
/// (nontransitional, CheckBidi, CheckJoiners), with UseSTD3ASCIIRules on and CheckHyphens off
/// except for hyphens at either end of a label (docs/rules.md#host-names). `DomainName` (ClipCore)
/// runs these steps and words each refusal.
package enum UTS46 {
    /// What processing refuses in a label, with the label as written (and the code point, or the
    /// decoded text, concerned).
    package enum Problem: Error, Equatable, Sendable {
        case badPunycode(String), hyphenAtEdge(String)
        case notLetterDigitHyphen(String, Unicode.Scalar), disallowedCharacter(String, Unicode.Scalar)
        case leadingCombiningMark(String), joinerContext(String), bidiRule(String)
        case aLabelOfASCII(String), aLabelNotNFC(String, String), aLabelInALabel(String), aLabelNeedsMapping(String, Unicode.Scalar)
    }

    /// §4 steps 1–2: map each code point by its status, then NFC. A disallowed code point stays,
    /// for the validity check to name it.
    package static func map(_ host: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in host.unicodeScalars {
            if scalar.isASCII {
                mapped.append(scalar.properties.isUppercase ? Unicode.Scalar(scalar.value | 0x20)! : scalar)
                continue
            }
            let (status, mapping) = IDNAMapping.lookup(scalar.value)
            switch status {
            case .valid, .deviation, .disallowed: mapped.append(scalar)  // deviation: nontransitional keeps it
            case .ignored: continue
            case .mapped: for value in mapping { mapped.append(Unicode.Scalar(value)!) }
            }
        }
        let text = String(mapped)
        return text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    /// §4 step 4 for one label of the mapped host: an A-label is decoded (RFC 3492) and checked
    /// as one; the label's Unicode form is returned.
    package static func decodeAndValidate(_ label: String) throws(Problem) -> String {
        guard label.hasPrefix("xn--") else {
            try validate(label, original: label, fromALabel: false)
            return label
        }
        // UTS #46 §4 step 4.1: the A-label must be ASCII and decode to a label that is not empty,
        // not all ASCII, and valid with no mapping needed.
        guard label.utf8.allSatisfy({ $0 < 0x80 }), let unicode = try? Punycode.decode(String(label.dropFirst(4))) else {
            throw .badPunycode(label)
        }
        guard unicode.unicodeScalars.contains(where: { !$0.isASCII }) else { throw .aLabelOfASCII(label) }
        try validate(unicode, original: label, fromALabel: true)
        return unicode
    }

    /// UTS #46 §4.1 Validity Criteria for one label in Unicode form.
    static func validate(_ label: String, original: String, fromALabel: Bool) throws(Problem) {
        let scalars = Array(label.unicodeScalars)
        // V1
        if fromALabel, label != label.precomposedStringWithCanonicalMapping { throw .aLabelNotNFC(original, label) }
        // V3 (kept as the registry's LDH rule, RFC 1123 §2.1); V4: not CheckHyphens, so no "xn--" inside.
        if scalars.first == "-" || scalars.last == "-" { throw .hyphenAtEdge(original) }
        if fromALabel, label.hasPrefix("xn--") { throw .aLabelInALabel(original) }
        for scalar in scalars {
            try checkStatus(scalar, label: original, fromALabel: fromALabel)
        }
        // V5
        if let first = scalars.first, !first.isASCII, UnicodeHostProperties(first.value).isMark {
            throw .leadingCombiningMark(original)
        }
        // V8 CheckJoiners (RFC 5892 Appendix A.1, A.2)
        for index in scalars.indices where scalars[index] == "\u{200C}" || scalars[index] == "\u{200D}" {
            guard joinerAllowed(at: index, in: scalars) else { throw .joinerContext(original) }
        }
    }

    /// V6/V7: only valid (or deviation) code points; with UseSTD3ASCIIRules, ASCII only as
    /// lower-case letters, digits and hyphen (RFC 1123 §2.1).
    static func checkStatus(_ scalar: Unicode.Scalar, label: String, fromALabel: Bool) throws(Problem) {
        if scalar.isASCII {
            let byte = UInt8(scalar.value)
            guard (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D else {
                throw .notLetterDigitHyphen(label, scalar)
            }
            return
        }
        switch IDNAMapping.lookup(scalar.value).status {
        case .valid, .deviation: return
        case .mapped, .ignored:
            // Only an A-label can hold them: mapping removed every other.
            throw .aLabelNeedsMapping(label, scalar)
        case .disallowed: throw .disallowedCharacter(label, scalar)
        }
    }

    /// RFC 5892 Appendix A.1 (ZERO WIDTH NON-JOINER) and A.2 (ZERO WIDTH JOINER).
    static func joinerAllowed(at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        if index > 0, UnicodeHostProperties(scalars[index - 1].value).isVirama { return true }
        guard scalars[index] == "\u{200C}" else { return false }
        // (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
        func joining(_ i: Int) -> UnicodeHostProperties.JoiningType { UnicodeHostProperties(scalars[i].value).joining }
        var before = index - 1
        while before >= 0, joining(before) == .T { before -= 1 }
        guard before >= 0, [.L, .D].contains(joining(before)) else { return false }
        var after = index + 1
        while after < scalars.count, joining(after) == .T { after += 1 }
        return after < scalars.count && [.R, .D].contains(joining(after))
    }

    /// UTS #46 §4.1 step 5 CheckBidi: in a Bidi domain name (one label or more has an R, AL or AN
    /// character), every label satisfies the six conditions of RFC 5893 §2.
    package static func checkBidi(_ labels: [String], originals: [String]) throws(Problem) {
        let classes = labels.map { label in label.unicodeScalars.map { $0.isASCII ? asciiBidi($0) : UnicodeHostProperties($0.value).bidi } }
        guard classes.contains(where: { $0.contains { $0 == .R || $0 == .AL || $0 == .AN } }) else { return }
        for (index, label) in classes.enumerated() where !label.isEmpty {
            guard satisfiesRFC5893(label) else { throw .bidiRule(originals[index]) }
        }
    }

    static func asciiBidi(_ scalar: Unicode.Scalar) -> UnicodeHostProperties.BidiClass {
        switch scalar.value {
        case 0x30...0x39: .EN
        case 0x2D: .ES
        case 0x61...0x7A, 0x41...0x5A: .L
        default: UnicodeHostProperties(scalar.value).bidi
        }
    }

    /// RFC 5893 §2, rules 1–6.
    static func satisfiesRFC5893(_ label: [UnicodeHostProperties.BidiClass]) -> Bool {
        guard let first = label.first else { return true }
        let lastNonNSM = label.last { $0 != .NSM }
        switch first {
        case .R, .AL:
            let allowed: Set<UnicodeHostProperties.BidiClass> = [.R, .AL, .AN, .EN, .ES, .CS, .ET, .ON, .BN, .NSM]
            guard label.allSatisfy(allowed.contains) else { return false }  // rule 2
            guard let last = lastNonNSM, [.R, .AL, .EN, .AN].contains(last) else { return false }  // rule 3
            return !(label.contains(.EN) && label.contains(.AN))  // rule 4
        case .L:
            let allowed: Set<UnicodeHostProperties.BidiClass> = [.L, .EN, .ES, .CS, .ET, .ON, .BN, .NSM]
            guard label.allSatisfy(allowed.contains) else { return false }  // rule 5
            guard let last = lastNonNSM, [.L, .EN].contains(last) else { return false }  // rule 6
            return true
        default: return false  // rule 1
        }
    }
}
