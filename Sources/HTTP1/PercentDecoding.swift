import ByteScan
/// Percent-decoding (RFC 3986 §2.1) for path segments and, with `plusIsSpace`, for the names and
/// values of an `application/x-www-form-urlencoded` query (WHATWG URL, "application/x-www-form-urlencoded
/// parsing"): the one decoder of the router and of `QueryString`.
enum PercentDecoding {
    /// The decoded text; nil for a malformed escape, invalid UTF-8 or NUL.
    static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        let escaped = utf8.contains { $0 == UInt8(ascii: "%") || $0 == 0 || (plusIsSpace && $0 == UInt8(ascii: "+")) }
        guard escaped else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let b = iterator.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(0x20)
            default: bytes.append(b)
            }
        }
        guard !bytes.contains(0), let s = String(validating: bytes, as: UTF8.self) else { return nil }
        return s
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    /// `decode` over bytes, appended to `out`: false (and `out` as it was) for a
    /// malformed escape, invalid UTF-8 or NUL, exactly where `decode` gives nil.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool, appendingTo out: inout [UInt8]) -> Bool {
        // The decoding is never longer than the text: written straight into the array's spare capacity and
        // counted in only when it is valid (appended a byte or a run at a time, this was 9% of a resolve
        // request's instructions under callgrind, its `url` being mostly escapes; zero-filled room first and
        // the rest given back after, 3.3%).
        // Nothing to decode: `out` is not touched (`append(addingCapacity: 0)` on an array with no storage of its
        // own writes the count of the standard library's shared empty storage: a race under ThreadSanitizer).
        guard !text.isEmpty else { return true }
        var valid = false
        out.append(addingCapacity: text.count) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var o = 0, i = 0, nonASCII = false
                while i < text.count {
                    let next = Self.firstSpecial(text, from: i, plusIsSpace: plusIsSpace)
                    if next > i {
                        _ = UnsafeMutableBufferPointer(rebasing: buffer[o..<(o + next - i)]).initialize(fromContentsOf: text[i..<next])
                        o += next - i
                        i = next
                        if i == text.count { break }
                    }
                    let b = text[i]
                    switch b {
                    case UInt8(ascii: "%"):
                        guard i + 2 < text.count, let h = hexValue(text[i + 1]), let l = hexValue(text[i + 2]) else { return }
                        let decoded = h << 4 | l
                        guard decoded != 0 else { return }
                        nonASCII = nonASCII || decoded >= 0x80
                        buffer[o] = decoded
                        i += 3
                    case UInt8(ascii: "+") where plusIsSpace:
                        buffer[o] = 0x20
                        i += 1
                    case 0: return
                    default:
                        nonASCII = nonASCII || b >= 0x80
                        buffer[o] = b
                        i += 1
                    }
                    o += 1
                }
                guard !nonASCII || isValidUTF8(UnsafeBufferPointer(rebasing: buffer[..<o])) else { return }
                initialized = o
                valid = true
            }
        }
        return valid
    }

    /// The first "%", "+" (when it means a space), NUL or non-ASCII byte at or after `start`: the
    /// bytes `decode` does not copy as they are. (Its own function, so that `ByteClass` is inlined
    /// and folded here.)
    @inline(never) static func firstSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, plusIsSpace: Bool) -> Int {
        plusIsSpace
            ? ByteClass(below: 1, above: 0x7F, UInt8(ascii: "%"), UInt8(ascii: "+")).firstIndex(in: bytes, from: start)
            : ByteClass(below: 1, above: 0x7F, UInt8(ascii: "%")).firstIndex(in: bytes, from: start)
    }

    /// Well-formed UTF-8 (RFC 3629 §4): no overlong forms, no surrogates, nothing above U+10FFFF.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let length: Int, low: UInt8, high: UInt8  // the bounds of the second byte
            switch b {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: return false
            }
            guard i + length <= bytes.count, (low...high).contains(bytes[i + 1]) else { return false }
            for j in 2..<length where !(0x80...0xBF).contains(bytes[i + j]) { return false }
            i += length
        }
        return true
    }
}
