/// Reed–Solomon error correction codewords over GF(2⁸), ISO/IEC 18004:2015 §7.5.2: arithmetic modulo the
/// primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), generator polynomial ∏ (x − αⁱ) for i = 0 … n − 1
/// with α = 2 (Annex A lists them), codewords the remainder of data(x)·xⁿ divided by the generator.
enum ReedSolomon {
    /// αⁱ for i = 0 … 254 (and repeated once, so a sum of two logarithms needs no modulo).
    static let exponents: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for power in 0..<255 {
            table[power] = UInt8(value)
            table[power + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// log_α(v) for v = 1 … 255 (index 0 is unused: zero has no logarithm).
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for power in 0..<255 { table[Int(exponents[power])] = power }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exponents[logarithms[Int(a)] + logarithms[Int(b)]]
    }

    /// The generator polynomial of the given degree, highest power first without its leading 1.
    static func generator(degree: Int) -> [UInt8] {
        precondition(degree >= 1 && degree <= 254)
        var coefficients: [UInt8] = [1]  // highest power first, leading coefficient included
        for power in 0..<degree {
            // Multiply by (x − αᵖ); in GF(2⁸) subtraction is addition (XOR).
            var next = coefficients + [0]
            for (index, coefficient) in coefficients.enumerated() {
                next[index + 1] ^= multiply(coefficient, exponents[power])
            }
            coefficients = next
        }
        return Array(coefficients.dropFirst())
    }

    /// The error correction codewords of a block: the remainder of data(x)·xⁿ modulo the generator.
    static func remainder(of data: ArraySlice<UInt8>, generator: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for index in remainder.indices { remainder[index] ^= multiply(generator[index], factor) }
            }
        }
        return remainder
    }
}
