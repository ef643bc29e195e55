/// Why a text could not become a QR code, or a QR code could not be drawn.
public enum QRCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text does not fit version 40 at this level. `bytes` is its UTF-8 length; `maxBytes` what version
    /// 40 holds at the level in byte mode (digits and upper-case letters pack tighter, so a text of them may
    /// be longer).
    case tooLong(bytes: Int, level: ErrorCorrectionLevel, maxBytes: Int)
    /// The text fits, but not the version asked for; `needed` is the smallest version that holds it and
    /// `maxBytes` what the version asked for holds in byte mode.
    case versionTooSmall(version: Int, level: ErrorCorrectionLevel, needed: Int, maxBytes: Int)
    /// A version outside 1–40.
    case invalidVersion(Int)
    /// A mask pattern outside 0–7.
    case invalidMask(Int)
    /// A character a numeric or alphanumeric segment cannot hold.
    case notEncodable(character: Character, mode: QRSegment.Mode)
    /// An SVG size that is not a positive, finite, sensible number.
    case invalidSVGSize(String)

    public var description: String {
        switch self {
        case .tooLong(let bytes, let level, let maxBytes):
            "the text is \(bytes) bytes (UTF-8); a QR code at error correction level \(level) holds at most \(maxBytes) bytes "
                + "(version 40; more if the text is only digits or upper-case letters)"
        case .versionTooSmall(let version, let level, let needed, let maxBytes):
            "the text does not fit QR version \(version) at level \(level) (at most \(maxBytes) bytes); it needs version \(needed)"
        case .invalidVersion(let version):
            "QR version \(version) does not exist: versions are 1 to 40"
        case .invalidMask(let mask):
            "QR mask pattern \(mask) does not exist: mask patterns are 0 to 7"
        case .notEncodable(let character, let mode):
            "\(mode) mode cannot hold the character U+\(character.unicodeScalars.map { hex($0.value) }.joined(separator: " U+"))"
        case .invalidSVGSize(let reason):
            "invalid SVG size: \(reason)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
