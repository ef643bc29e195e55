import ByteScan
import Testing

/// Bytes written into room reserved once at the end of an array.
struct ByteCursorTests {
    @Test func appendsWhatWasWrittenAfterWhatWasThere() {
        var out: [UInt8] = Array("ab".utf8)
        let written = out.append(atMost: 64) { cursor in
            cursor.write("cd")
            cursor.write(UInt8(ascii: "-"))
            cursor.write(Array("ef".utf8))
            Array("gh".utf8).withUnsafeBufferPointer { cursor.write($0) }
            cursor.writeDecimal(UInt(0))
            cursor.writeDecimal(UInt64.max)
            return cursor.count
        }
        #expect(String(decoding: out, as: UTF8.self) == "abcd-efgh0\(UInt64.max)")
        #expect(written == out.count - 2)
    }

    @Test func theRoomIsReservedButOnlyTheWrittenBytesAreAppended() {
        var out: [UInt8] = []
        out.append(atMost: 1000) { cursor in
            #expect(cursor.capacity == 1000 && cursor.remaining == 1000)
            cursor.write("xyz")
            #expect(cursor.remaining == 997)
        }
        #expect(out == Array("xyz".utf8))
        #expect(out.capacity >= 1000)
        out.append(atMost: 10) { _ in }
        #expect(out == Array("xyz".utf8), "nothing written: nothing appended")
    }

    @Test func aWriterCanFillTheSpareRoomItself() {
        var out: [UInt8] = [1]
        out.append(atMost: 4) { cursor in
            cursor.spare[0] = 2
            cursor.spare[1] = 3
            cursor.advance(by: 2)
            #expect(Array(cursor.written) == [2, 3])
        }
        #expect(out == [1, 2, 3])
    }

    @Test func exactlyTheRoomFits() {
        var out: [UInt8] = []
        out.append(atMost: 20) { $0.writeDecimal(UInt64.max) }
        #expect(out.count == 20)
    }

    /// Writing past the room reserved stops the process rather than writing past the array's memory.
    @Test func writingPastTheRoomTraps() async {
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.append(atMost: 2) { $0.write("abc") }
        }
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.append(atMost: 19) { $0.writeDecimal(UInt64.max) }
        }
        await #expect(processExitsWith: .failure) {
            var out: [UInt8] = []
            out.append(atMost: 1) { $0.advance(by: 2) }
        }
    }

    /// No room asked for, on arrays with no storage of their own, from many threads at once: the array is not
    /// touched (the standard library's `append(addingCapacity: 0)` wrote the count of its one shared empty
    /// storage, a data race that CI's ThreadSanitizer run reports).
    @Test func noRoomLeavesAnEmptyArrayAlone() async {
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    for _ in 0..<1000 {
                        var out: [UInt8] = []
                        total += out.append(atMost: 0) { $0.capacity }
                        total += out.count
                    }
                    return total
                }
            }
            for await total in group { #expect(total == 0) }
        }
    }
}
