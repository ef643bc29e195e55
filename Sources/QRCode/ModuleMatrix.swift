/// A symbol under construction: its modules (true is dark) and which of them belong to function patterns
/// or reserved areas, indexed [y · size + x] with x the column and y the row from the top-left corner.
struct ModuleMatrix {
    let version: Int
    let size: Int
    private(set) var modules: [Bool]
    private(set) var isFunction: [Bool]

    /// The function patterns of a version (ISO/IEC 18004:2015 §6.3): finder patterns with their separators,
    /// timing patterns, alignment patterns, and the format and version information areas reserved (light
    /// until `drawFormatAndVersion`).
    init(version: Int) {
        self.version = version
        size = QRCode.size(version: version)
        modules = [Bool](repeating: false, count: size * size)
        isFunction = modules
        // §6.3.5: timing patterns along row 6 and column 6, dark at even positions.
        for index in 0..<size {
            set(x: 6, y: index, index % 2 == 0)
            set(x: index, y: 6, index % 2 == 0)
        }
        // §6.3.3, §6.3.4: 7 × 7 finder patterns (dark ring, light ring, 3 × 3 dark centre) in three corners,
        // each with a one-module light separator.
        for (centreX, centreY) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = centreX + dx
                    let y = centreY + dy
                    guard x >= 0, x < size, y >= 0, y < size else { continue }
                    let ring = max(abs(dx), abs(dy))
                    set(x: x, y: y, ring != 2 && ring != 4)
                }
            }
        }
        // §6.3.6: 5 × 5 alignment patterns centred on every pair of the version's coordinates except the
        // three that would overlap the finder patterns.
        let centres = Self.alignmentCentres(version: version)
        for (i, centreX) in centres.enumerated() {
            for (j, centreY) in centres.enumerated() {
                let last = centres.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(x: centreX + dx, y: centreY + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // §7.9.1: format information beside the top-left finder, and split between the other two (with the
        // dark module); §7.10: version information blocks of 6 × 3 from version 7.
        for index in 0...8 {
            reserve(x: 8, y: index)
            reserve(x: index, y: 8)
        }
        for index in 0..<8 {
            reserve(x: size - 1 - index, y: 8)
            reserve(x: 8, y: size - 1 - index)
        }
        if version >= 7 {
            for a in 0..<6 {
                for b in size - 11..<size - 8 {
                    reserve(x: b, y: a)
                    reserve(x: a, y: b)
                }
            }
        }
    }

    /// Row and column coordinates of alignment pattern centres (Annex E, Table E.1): none for version 1;
    /// otherwise 6, then v / 7 + 1 more spaced evenly back from size − 7, at an even spacing (26 for version
    /// 32, the one version where the even spacing rule of the table gives another value).
    static func alignmentCentres(version: Int) -> [Int] {
        if version == 1 { return [] }
        let count = version / 7 + 2
        let size = QRCode.size(version: version)
        let step = version == 32 ? 26 : (size - 13 + 2 * count - 3) / (2 * count - 2) * 2
        var centres = [6]
        for index in stride(from: count - 2, through: 0, by: -1) { centres.append(size - 7 - index * step) }
        return centres
    }

    subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    private mutating func set(x: Int, y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    private mutating func reserve(x: Int, y: Int) {
        if !isFunction[y * size + x] { set(x: x, y: y, false) }
    }

    /// Places the codewords (§7.7.3): bits most significant first, in two-module-wide columns from the
    /// bottom-right corner, upwards then downwards alternately, skipping column 6 (the vertical timing
    /// pattern) and every function module. Modules left over are the remainder bits, 0 (light).
    mutating func place(_ codewords: [UInt8]) {
        var bitIndex = 0
        let bitCount = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < bitCount {
                        modules[y * size + x] = (codewords[bitIndex / 8] >> UInt8(7 - bitIndex % 8)) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
        precondition(bitIndex == bitCount)
    }

    /// The modules with mask `pattern` applied to every module outside the function patterns (§7.8.2).
    func masked(_ pattern: Int) -> ModuleMatrix {
        var result = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && DataMask.inverts(pattern, row: y, column: x) {
                result.modules[y * size + x].toggle()
            }
        }
        return result
    }

    /// Writes the format information for the level and mask twice (§7.9.1, Figure 25), the dark module at
    /// (8, size − 8), and from version 7 the version information twice (§7.10, Figure 27). Bit 0 is the
    /// least significant.
    mutating func drawFormatAndVersion(level: ErrorCorrectionLevel, mask: Int) {
        let format = FormatInformation.bits(level: level, mask: mask)
        func bit(_ index: Int) -> Bool { (format >> index) & 1 == 1 }
        // Around the top-left finder: bits 0–7 down column 8 (skipping the timing row 6), 8–14 leftwards along
        // row 8 (skipping the timing column 6).
        for index in 0...5 { set(x: 8, y: index, bit(index)) }
        set(x: 8, y: 7, bit(6))
        set(x: 8, y: 8, bit(7))
        set(x: 7, y: 8, bit(8))
        for index in 9...14 { set(x: 14 - index, y: 8, bit(index)) }
        // The second copy: bits 0–7 along row 8 from the right edge, 8–14 up column 8 to the bottom edge.
        for index in 0...7 { set(x: size - 1 - index, y: 8, bit(index)) }
        for index in 8...14 { set(x: 8, y: size - 15 + index, bit(index)) }
        set(x: 8, y: size - 8, true)
        guard version >= 7 else { return }
        let versionBits = FormatInformation.versionBits(version)
        for index in 0..<18 {
            let dark = (versionBits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            set(x: a, y: b, dark)
            set(x: b, y: a, dark)
        }
    }
}
