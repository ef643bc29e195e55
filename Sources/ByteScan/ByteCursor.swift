/// Bytes written into room reserved at the end of an array (`[UInt8].append(atMost:_:)`): the
/// array's uniqueness and capacity are checked once for a whole piece (a response head, an
/// answer), and each write is a bounds check and a copy.
///
/// Profile (callgrind, `scripts/bench-http`): the hot answers were built from about forty
/// `Array.append` calls of a few bytes each, each one checking the buffer's uniqueness and
/// capacity and calling `memmove`; together 9% of a resolve request's instructions.
public struct ByteCursor {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    public let capacity: Int
    /// The count of bytes written so far.
    @inlinable public var count: Int { end }
    @usableFromInline var end = 0

    @inlinable init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        base = room.baseAddress ?? UnsafeMutablePointer(bitPattern: 1).unsafelyUnwrapped
        capacity = room.count
    }

    /// The room left.
    @inlinable public var remaining: Int { capacity - end }

    @inlinable @inline(__always) public mutating func write(_ byte: UInt8) {
        precondition(end < capacity, "ByteCursor: more bytes than the room reserved")
        base[end] = byte
        end += 1
    }

    @inlinable @inline(__always) public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= capacity - end, "ByteCursor: more bytes than the room reserved")
        guard let source = bytes.baseAddress else { return }
        (base + end).update(from: source, count: bytes.count)
        end += bytes.count
    }

    @inlinable @inline(__always) public mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable @inline(__always) public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// `n` in decimal digits.
    @inlinable public mutating func writeDecimal(_ n: some UnsignedInteger) {
        var digits = 1
        var rest = n / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        precondition(digits <= capacity - end, "ByteCursor: more bytes than the room reserved")
        var value = n
        var i = end + digits - 1
        repeat {
            base[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
            value /= 10
            i -= 1
        } while value > 0
        end += digits
    }

    /// The room left, for a writer that fills it itself; `advance(by:)` then counts what it wrote.
    @inlinable public var spare: UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: base + end, count: capacity - end)
    }

    @inlinable public mutating func advance(by written: Int) {
        precondition(written >= 0 && written <= capacity - end, "ByteCursor: more bytes than the room reserved")
        end += written
    }

    /// The bytes written so far.
    @inlinable public var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: end) }
}

extension Array where Element == UInt8 {
    /// Reserves room for `capacity` more bytes, lets `body` write at most that many through a
    /// cursor (writing more traps), and appends what it wrote.
    @inlinable public mutating func append<Result>(atMost capacity: Int, _ body: (inout ByteCursor) -> Result) -> Result {
        // No room asked for: the array is not touched. `append(addingCapacity: 0)` on an array with no
        // storage of its own writes the count of the standard library's one shared empty storage (a data
        // race under ThreadSanitizer, between any two threads doing it).
        guard capacity > 0 else {
            var nothing = ByteCursor(UnsafeMutableBufferPointer(start: nil, count: 0))
            return body(&nothing)
        }
        var result: Result?
        append(addingCapacity: capacity) { span in
            span.withUnsafeMutableBufferPointer { room, initialized in
                var cursor = ByteCursor(UnsafeMutableBufferPointer(rebasing: room[initialized...]))
                result = body(&cursor)
                initialized += cursor.count
            }
        }
        return result.unsafelyUnwrapped
    }
}
