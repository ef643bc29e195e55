/// The four error correction levels of ISO/IEC 18004:2015 §5.3.2 (Table 9): roughly 7 %, 15 %, 25 % and
/// 30 % of the codewords may be restored.
public enum ErrorCorrectionLevel: Int, Sendable, CaseIterable, CustomStringConvertible {
    case low, medium, quartile, high

    /// The letter the standard names the level by: L, M, Q or H.
    public var letter: String {
        switch self {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }

    public var description: String { letter }

    /// The level's two bits in the format information, ISO/IEC 18004:2015 §7.9.1 Table 12: L 01, M 00, Q 11, H 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
