import ByteScan
import TestSupport
import Testing

/// The word-at-a-time search against the plain byte loop it replaces, on every class the hot paths
/// use and on random classes, over random buffers of every length and every start, with the bytes
/// that make borrows and carries cross byte boundaries (0x00, 0x7F, 0x80, 0xFF) overrepresented.
struct ByteClassTests {
    typealias Generator = SplitMix64

    static func naiveFirst(_ bytes: [UInt8], from start: Int, below: UInt8, above: UInt8, exact: [UInt8]) -> Int {
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b < below || (above != 0xFF && b > above) || exact.contains(b) { return i }
            i += 1
        }
        return bytes.count
    }

    static let classes: [(below: UInt8, above: UInt8, exact: [UInt8])] = [
        (0x20, 0xFF, [0x22, 0x5C, 0xE2]),  // a JSON string's bytes to look at
        (0, 0xFF, [0x0D, 0x0A]),  // line ends
        (0x21, 0x7E, []),  // not visible ASCII
        (0x20, 0xFF, [0x7F]),  // controls in a field value
        (1, 0x7F, [0x25, 0x2B]),  // a query's escapes, NUL and non-ASCII
        (0, 0xFF, []),  // nothing
        (128, 0xFF, []),  // everything below 0x80
        (0, 0, []),  // everything but 0x00
    ]

    @Test func findsWhatTheByteLoopFinds() {
        var g = Generator(state: 7)
        var classes = Self.classes
        for _ in 0..<40 {
            let above = g.next(3) == 0 ? UInt8(0xFF) : UInt8(g.next(128))
            classes.append((UInt8(g.next(129)), above, (0..<g.next(5)).map { _ in UInt8(g.next(256)) }))
        }
        let special: [UInt8] = [0x00, 0x01, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x20, 0x21, 0x22, 0x5C, 0xE2, 0x0D, 0x0A, 0x25, 0x2B]
        for c in classes {
            let e = c.exact.map { Optional($0) } + [UInt8?](repeating: nil, count: 4 - c.exact.count)
            let byteClass = ByteClass(below: c.below, above: c.above, e[0], e[1], e[2], e[3])
            for b in 0...255 {
                let expected = UInt8(b) < c.below || (c.above != 0xFF && UInt8(b) > c.above) || c.exact.contains(UInt8(b))
                #expect(byteClass.contains(UInt8(b)) == expected, "\(c) \(b)")
            }
            for _ in 0..<150 {
                let count = g.next(40)
                // Mostly ordinary bytes (runs the word loop skips), some special ones.
                let bytes = (0..<count).map { _ in g.next(4) == 0 ? special[g.next(special.count)] : UInt8(0x41 + g.next(26)) }
                for start in 0...count {
                    let found = bytes.withUnsafeBufferPointer { byteClass.firstIndex(in: $0, from: start) }
                    let expected = Self.naiveFirst(bytes, from: start, below: c.below, above: c.above, exact: c.exact)
                    #expect(found == expected, "\(c) \(bytes) from \(start)")
                }
            }
        }
    }

    @Test func anEmptyBufferAndTheEnd() {
        let lineEnds = ByteClass(0x0D, 0x0A)
        #expect([UInt8]().withUnsafeBufferPointer { lineEnds.firstIndex(in: $0) } == 0)
        let text = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        #expect(text.withUnsafeBufferPointer { lineEnds.firstIndex(in: $0) } == 14)
        #expect(text.withUnsafeBufferPointer { lineEnds.firstIndex(in: $0, from: 16) } == 23)
        #expect(text.withUnsafeBufferPointer { lineEnds.firstIndex(in: $0, from: text.count) } == text.count)
    }
}
