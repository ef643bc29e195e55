/// A QR code symbol, ISO/IEC 18004:2015 (Model 2, versions 1–40): the modules of a text encoded in the
/// smallest version that holds it (or the version asked for), with the error correction level asked for and
/// the data mask with the lowest penalty (or the one asked for).
public struct QRCode: Sendable, Equatable {
    /// The symbol versions, 1 (21 × 21 modules) to 40 (177 × 177).
    public static let versions = 1...40
    /// The light border every reader needs around the symbol, in modules (§6.3.8).
    public static let quietZone = 4

    public let version: Int
    public let errorCorrection: ErrorCorrectionLevel
    /// The data mask pattern, 0–7 (§7.8.2).
    public let mask: Int
    /// The segments the text was encoded in, in order.
    public let segments: [QRSegment]
    /// Whether the symbol declares its bytes UTF-8 (an ECI header, see `declaresUTF8(_:)`).
    public var declaresUTF8: Bool { Self.declaresUTF8(segments) }
    /// Modules on a side, 17 + 4 · version, without the quiet zone.
    public var size: Int { QRCode.size(version: version) }
    /// The encoded text.
    public var text: String { String(decoding: segments.flatMap(\.bytes), as: UTF8.self) }

    private let modules: [Bool]

    public static func size(version: Int) -> Int { 17 + 4 * version }

    /// Whether the module at column x, row y (from the top-left corner) is dark. Coordinates outside the
    /// symbol are the quiet zone: light.
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// Encodes `text`.
    /// - Parameters:
    ///   - ecc: the error correction level (default M, about 15 % of the codewords restorable).
    ///   - version: the version to use; nil for the smallest that holds the text.
    ///   - mask: the data mask pattern 0–7; nil for the one with the lowest penalty.
    ///   - segmentation: `.optimal` (numeric and alphanumeric runs where they save bits) or `.byte`.
    public static func encode(
        _ text: String, ecc: ErrorCorrectionLevel = .medium, version: Int? = nil, mask: Int? = nil,
        segmentation: Segmentation = .optimal
    ) throws(QRCodeError) -> QRCode {
        let bytes = Array(text.utf8)
        // No symbol holds more than 7,089 characters (version 40-L, numeric): refuse before any work.
        if bytes.count > 7089 {
            throw .tooLong(
                bytes: bytes.count, level: ecc, maxBytes: byteCapacity(version: 40, level: ecc, utf8: bytes.contains { $0 >= 0x80 }))
        }
        return try encode(ecc: ecc, version: version, mask: mask, textBytes: bytes.count) { versionClass in
            switch segmentation {
            case .optimal: QRSegment.optimal(bytes, for: versionClass)
            case .byte: bytes.isEmpty ? [] : [QRSegment(mode: .byte, bytes: bytes[...])]
            }
        }
    }

    /// Encodes segments as given (for a caller that chose the modes itself).
    public static func encode(
        segments: [QRSegment], ecc: ErrorCorrectionLevel = .medium, version: Int? = nil, mask: Int? = nil
    ) throws(QRCodeError) -> QRCode {
        try encode(ecc: ecc, version: version, mask: mask, textBytes: segments.reduce(0) { $0 + $1.bytes.count }) { _ in segments }
    }

    /// The most bytes a version holds at a level in one byte-mode segment; `utf8` when the text has bytes
    /// outside ASCII, which take the ECI header too.
    public static func byteCapacity(version: Int, level: ErrorCorrectionLevel, utf8: Bool = false) -> Int {
        let header = (utf8 ? eciHeaderBits : 0) + 4 + QRSegment.Mode.byte.countBits(.init(version: version))
        return (BlockStructure(version: version, level: level).dataBits - header) / 8
    }

    /// Whether segments need the ECI designator for UTF-8: when a byte is outside ASCII. Byte mode is read as
    /// ISO/IEC 8859-1 unless an ECI says otherwise (ISO/IEC 18004:2015 §7.3.2, §7.4.5); ASCII is the same in
    /// both, so only a text with other characters carries ECI 000026 (UTF-8, AIM ECI register) in front.
    static func declaresUTF8(_ segments: [QRSegment]) -> Bool {
        segments.contains { $0.bytes.contains { $0 >= 0x80 } }
    }

    /// The ECI mode indicator 0111 and a one-byte designator (0xxxxxxx, values below 128), §7.4.2.
    static let eciHeaderBits = 12
    static let utf8ECI = 26

    private static func encode(
        ecc: ErrorCorrectionLevel, version: Int?, mask: Int?, textBytes: Int,
        segmentsFor: (QRSegment.VersionClass) -> [QRSegment]
    ) throws(QRCodeError) -> QRCode {
        if let version, !versions.contains(version) { throw .invalidVersion(version) }
        if let mask, !DataMask.patterns.contains(mask) { throw .invalidMask(mask) }
        if let version {
            let segments = segmentsFor(.init(version: version))
            if let bits = bitLength(segments, .init(version: version)), bits <= BlockStructure(version: version, level: ecc).dataBits {
                return make(segments: segments, version: version, level: ecc, mask: mask)
            }
        }
        // The smallest version whose data capacity (Table 7) holds the segments' bits.
        var chosen: (version: Int, segments: [QRSegment])?
        for versionClass in QRSegment.VersionClass.allCases {
            let segments = segmentsFor(versionClass)
            guard let bits = bitLength(segments, versionClass) else { continue }
            if let fitting = versionClass.versions.first(where: { BlockStructure(version: $0, level: ecc).dataBits >= bits }) {
                chosen = (fitting, segments)
                break
            }
        }
        let utf8 = declaresUTF8(segmentsFor(.large))
        guard let chosen else { throw .tooLong(bytes: textBytes, level: ecc, maxBytes: byteCapacity(version: 40, level: ecc, utf8: utf8)) }
        if let version {
            throw .versionTooSmall(
                version: version, level: ecc, needed: chosen.version, maxBytes: byteCapacity(version: version, level: ecc, utf8: utf8))
        }
        return make(segments: chosen.segments, version: chosen.version, level: ecc, mask: mask)
    }

    /// The bits the segments take in a version class; nil when a segment is too long for its count field.
    private static func bitLength(_ segments: [QRSegment], _ versionClass: QRSegment.VersionClass) -> Int? {
        var bits = declaresUTF8(segments) ? eciHeaderBits : 0
        for segment in segments {
            guard let length = segment.bitLength(versionClass) else { return nil }
            bits += length
        }
        return bits
    }

    /// The data codewords (before error correction) of segments in a version and level.
    static func dataCodewords(_ segments: [QRSegment], version: Int, level: ErrorCorrectionLevel) -> [UInt8] {
        let structure = BlockStructure(version: version, level: level)
        let capacity = structure.dataBits
        var buffer = BitBuffer()
        if declaresUTF8(segments) {
            buffer.append(0b0111, bits: 4)
            buffer.append(utf8ECI, bits: 8)
        }
        for segment in segments { segment.append(to: &buffer, .init(version: version)) }
        precondition(buffer.count <= capacity)
        // §7.4.9: terminator of up to four 0 bits; §7.4.10: 0 bits to the byte boundary, then the pad
        // codewords 11101100 and 00010001 alternately.
        buffer.append(0, bits: min(4, capacity - buffer.count))
        buffer.append(0, bits: (8 - buffer.count % 8) % 8)
        var data = buffer.bytes
        while data.count < structure.dataCodewords { data.append(data.count % 2 == buffer.bytes.count % 2 ? 0xEC : 0x11) }
        return data
    }

    private static func make(segments: [QRSegment], version: Int, level: ErrorCorrectionLevel, mask: Int?) -> QRCode {
        let structure = BlockStructure(version: version, level: level)
        let data = dataCodewords(segments, version: version, level: level)
        var matrix = ModuleMatrix(version: version)
        matrix.place(structure.interleave(data))
        // §7.8.3: the pattern with the lowest penalty, judged before the format and version information are
        // written (§7.1 orders masking before them); the lowest-numbered on a tie.
        let chosenMask =
            mask
            ?? {
                let scores = DataMask.patterns.map { DataMask.penalty(matrix.masked($0).modules, size: matrix.size) }
                return scores.firstIndex(of: scores.min()!)!
            }()
        var final = matrix.masked(chosenMask)
        final.drawFormatAndVersion(level: level, mask: chosenMask)
        return QRCode(version: version, errorCorrection: level, mask: chosenMask, segments: segments, modules: final.modules)
    }

    private init(version: Int, errorCorrection: ErrorCorrectionLevel, mask: Int, segments: [QRSegment], modules: [Bool]) {
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = mask
        self.segments = segments
        self.modules = modules
    }
}
