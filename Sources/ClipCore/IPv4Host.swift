/// How a browser tells an IPv4 host from a domain name: the WHATWG URL Standard's host parser
/// (https://url.spec.whatwg.org/#concept-host-parser step 8) reads an ASCII host that "ends in a
/// number" as an IPv4 address, in any of the forms its IPv4 parser takes (decimal, octal with a
/// leading 0, hexadecimal with 0x; one to four parts), and refuses the URL when it is not a valid one.
enum IPv4Host {
    /// WHATWG URL "ends in a number checker", on the labels of an ASCII host (trailing empty label removed).
    static func endsInANumber(_ labels: [Substring]) -> Bool {
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return parseNumber(last) != nil
    }

    /// WHATWG URL "IPv4 parser": the address, or nil where the URL Standard returns failure.
    static func parse(_ labels: [Substring]) -> UInt32? {
        guard labels.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for label in labels {
            guard let number = parseNumber(label) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), numbers.last! < UInt64(1) << (8 * (5 - numbers.count)) else { return nil }
        var address = numbers.last!
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * (3 - index)) }
        return UInt32(address)
    }

    /// WHATWG URL "IPv4 number parser": decimal, 0x hexadecimal, 0 octal ("0x" alone is 0).
    /// Values past 2^40 saturate (the address check refuses them all the same).
    static func parseNumber(_ label: Substring) -> UInt64? {
        var digits = label.utf8[...]
        guard !digits.isEmpty else { return nil }
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            radix = 8
            digits = digits.dropFirst()
        }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte | (radix == 16 ? 0x20 : 0) {
            case 0x30...0x39: digit = UInt64(byte - 0x30)
            case 0x61...0x66 where radix == 16: digit = UInt64((byte | 0x20) - 0x61 + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = min(value * radix + digit, UInt64(1) << 40)  // past any address: saturates, no overflow
        }
        return value
    }
}
