/// Punycode, the Bootstring encoding of Unicode for IDNA (RFC 3492), with the parameters of
/// RFC 3492 §5. Encoding emits lower-case letters (mixed-case annotation is optional, §3.3).
public enum Punycode {
    // RFC 3492 §5 parameter values for Punycode.
    static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128
    static let maxCodePoint = 0x10FFFF

    public enum Failure: Error, Equatable { case overflow, badInput }

    // RFC 3492 §6.1
    static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    static func digit(_ d: Int) -> Character {
        // 0..25 → a..z, 26..35 → 0..9
        Character(UnicodeScalar(UInt8(d < 26 ? 0x61 + d : 0x30 + d - 26)))
    }

    static func value(of c: UInt8) -> Int? {
        switch c {
        case 0x30...0x39: Int(c) - 0x30 + 26
        case 0x41...0x5A: Int(c) - 0x41
        case 0x61...0x7A: Int(c) - 0x61
        default: nil
        }
    }

    /// RFC 3492 §6.3: Unicode scalars → Punycode (without the "xn--" ACE prefix).
    public static func encode(_ input: String) throws(Failure) -> String {
        let codePoints = input.unicodeScalars.map { Int($0.value) }
        var output = ""
        for c in codePoints where c < 0x80 { output.append(Character(UnicodeScalar(UInt8(c)))) }
        let b = output.unicodeScalars.count
        var h = b
        if b > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while h < codePoints.count {
            // The smallest code point not yet handled.
            let m = codePoints.filter { $0 >= n }.min()!
            let (product, overflow1) = (m - n).multipliedReportingOverflow(by: h + 1)
            guard !overflow1, delta <= Int(Int32.max) - product else { throw .overflow }
            delta += product
            n = m
            for c in codePoints {
                if c < n {
                    delta += 1
                    guard delta <= Int(Int32.max) else { throw .overflow }
                }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, h + 1, h == b)
                    delta = 0
                    h += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }

    /// RFC 3492 §6.2: Punycode (without the ACE prefix) → Unicode.
    public static func decode(_ input: String) throws(Failure) -> String {
        let bytes = Array(input.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { throw .badInput }
        var output: [Int] = []
        let basicEnd = bytes.lastIndex(of: UInt8(ascii: "-")) ?? 0
        for c in bytes[0..<basicEnd] { output.append(Int(c)) }
        var n = initialN, i = 0, bias = initialBias
        var index = basicEnd > 0 ? basicEnd + 1 : 0
        while index < bytes.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard index < bytes.count, let d = value(of: bytes[index]) else { throw .badInput }
                index += 1
                let (dw, o1) = d.multipliedReportingOverflow(by: w)
                guard !o1, i <= Int(Int32.max) - dw else { throw .overflow }
                i += dw
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                let (nw, o2) = w.multipliedReportingOverflow(by: base - t)
                guard !o2, nw <= Int(Int32.max) else { throw .overflow }
                w = nw
                k += base
            }
            bias = adapt(i - oldI, output.count + 1, oldI == 0)
            guard i / (output.count + 1) <= maxCodePoint - n else { throw .overflow }
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= maxCodePoint, !(0xD800...0xDFFF).contains(n) else { throw .badInput }
            output.insert(n, at: i)
            i += 1
        }
        var result = ""
        for c in output {
            guard let scalar = UnicodeScalar(c) else { throw .badInput }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
