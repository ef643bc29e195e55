/// A run of text in one encoding mode (ISO/IEC 18004:2015 §7.3 and §7.4): numeric (digits 0–9, three to
/// 10 bits), alphanumeric (the 45 characters of Table 5, two to 11 bits) or byte (8 bits a byte; the text's
/// UTF-8 bytes, declared by an ECI header when one is outside ASCII: `QRCode.declaresUTF8`).
public struct QRSegment: Sendable, Equatable {
    public enum Mode: Sendable, CaseIterable, CustomStringConvertible {
        case numeric, alphanumeric, byte

        /// The 4-bit mode indicator, Table 2.
        var indicator: Int {
            switch self {
            case .numeric: 0b0001
            case .alphanumeric: 0b0010
            case .byte: 0b0100
            }
        }

        /// Bits of the character count indicator, Table 3, for versions 1–9, 10–26 and 27–40.
        func countBits(_ versionClass: VersionClass) -> Int {
            switch (self, versionClass) {
            case (.numeric, .small): 10
            case (.numeric, .medium): 12
            case (.numeric, .large): 14
            case (.alphanumeric, .small): 9
            case (.alphanumeric, .medium): 11
            case (.alphanumeric, .large): 13
            case (.byte, .small): 8
            case (.byte, .medium), (.byte, .large): 16
            }
        }

        /// Whether the mode can hold this UTF-8 byte as one character.
        func holds(_ byte: UInt8) -> Bool {
            switch self {
            case .numeric: byte >= 0x30 && byte <= 0x39
            case .alphanumeric: QRSegment.alphanumericValue(byte) != nil
            case .byte: true
            }
        }

        /// Bits of data for `count` characters: numeric 10 per three digits and 4 or 7 for a last one or two
        /// (§7.4.3); alphanumeric 11 per pair and 6 for a last one (§7.4.4); byte 8 each (§7.4.5).
        func dataBits(count: Int) -> Int {
            switch self {
            case .numeric: 10 * (count / 3) + [0, 4, 7][count % 3]
            case .alphanumeric: 11 * (count / 2) + 6 * (count % 2)
            case .byte: 8 * count
            }
        }

        public var description: String {
            switch self {
            case .numeric: "numeric"
            case .alphanumeric: "alphanumeric"
            case .byte: "byte"
            }
        }
    }

    /// The three ranges of versions that share character count indicator lengths (Table 3).
    enum VersionClass: CaseIterable {
        case small, medium, large

        init(version: Int) {
            self = version <= 9 ? .small : version <= 26 ? .medium : .large
        }

        var versions: ClosedRange<Int> {
            switch self {
            case .small: 1...9
            case .medium: 10...26
            case .large: 27...40
            }
        }
    }

    public let mode: Mode
    /// The segment's characters as UTF-8 bytes (ASCII for numeric and alphanumeric segments).
    public let bytes: [UInt8]

    /// A segment of `text` in `mode`; throws `notEncodable` naming the first character the mode cannot hold.
    public init(_ text: String, mode: Mode) throws(QRCodeError) {
        if mode != .byte {
            for character in text where character.utf8.count != 1 || !mode.holds(character.utf8.first!) {
                throw .notEncodable(character: character, mode: mode)
            }
        }
        self.mode = mode
        self.bytes = Array(text.utf8)
    }

    init(mode: Mode, bytes: ArraySlice<UInt8>) {
        self.mode = mode
        self.bytes = Array(bytes)
    }

    /// Bits this segment takes in a symbol of the class: mode indicator, count, data. Nil when the count
    /// does not fit the count indicator.
    func bitLength(_ versionClass: VersionClass) -> Int? {
        let countBits = mode.countBits(versionClass)
        guard bytes.count < 1 << countBits else { return nil }
        return 4 + countBits + mode.dataBits(count: bytes.count)
    }

    /// Appends the segment's bits (§7.4.2 to §7.4.5).
    func append(to buffer: inout BitBuffer, _ versionClass: VersionClass) {
        buffer.append(mode.indicator, bits: 4)
        buffer.append(bytes.count, bits: mode.countBits(versionClass))
        switch mode {
        case .numeric:
            var index = 0
            while index < bytes.count {
                let group = bytes[index..<min(index + 3, bytes.count)]
                let value = group.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                buffer.append(value, bits: [0, 4, 7, 10][group.count])
                index += 3
            }
        case .alphanumeric:
            var index = 0
            while index + 1 < bytes.count {
                let pair = 45 * Self.alphanumericValue(bytes[index])! + Self.alphanumericValue(bytes[index + 1])!
                buffer.append(pair, bits: 11)
                index += 2
            }
            if index < bytes.count { buffer.append(Self.alphanumericValue(bytes[index])!, bits: 6) }
        case .byte:
            for byte in bytes { buffer.append(Int(byte), bits: 8) }
        }
    }

    /// The value of an alphanumeric-mode character, Table 5: 0–9 → 0–9, A–Z → 10–35, then
    /// space $ % * + - . / : → 36–44. Lower-case letters are not in the set.
    static func alphanumericValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x5A: Int(byte - 0x41) + 10
        case 0x20: 36
        case 0x24: 37
        case 0x25: 38
        case 0x2A: 39
        case 0x2B: 40
        case 0x2D: 41
        case 0x2E: 42
        case 0x2F: 43
        case 0x3A: 44
        default: nil
        }
    }
}

/// Bits appended most significant first, packed into bytes.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, bits: Int) {
        precondition(bits >= 0 && bits <= 31 && value >> bits == 0)
        for shift in stride(from: bits - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}
