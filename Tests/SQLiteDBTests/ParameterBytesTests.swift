import Testing
@testable import SQLiteDB

/// Text parameters are read by SQLite from the statement's reused buffer: every value must
/// arrive intact whatever was bound before, small or large.
struct ParameterBytesTests {
    @Test func textsRoundTripThroughOneCachedStatementWhateverWasBoundBefore() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(a TEXT, b TEXT, c INTEGER, d TEXT) STRICT")
        let large = String(repeating: "é", count: ParameterBytes.largestKept)  // twice largestKept in bytes
        let rows: [[SQLValue]] = [
            [.text("a"), .text(""), .integer(1), .text("\u{2028}\u{0}x")],
            [.text(String(repeating: "z", count: 300)), .text("ü"), .integer(2), .null],
            [.text(large), .text("after a large one"), .integer(3), .text("")],
            [.text("small again"), .text(String(repeating: "q", count: 5_000)), .integer(4), .text("🚲")],
            [.text(""), .text(""), .integer(5), .text("")],
        ]
        for row in rows { _ = try db.execute("INSERT INTO t(a, b, c, d) VALUES (?, ?, ?, ?)", row) }
        let stored = try db.query("SELECT a, b, c, d FROM t ORDER BY c").map(\.values)
        #expect(stored == rows)
        #expect(try db.query("SELECT count(*) AS n FROM t WHERE b = ''").first?.int("n") == 2, "empty text stays text, not NULL")
    }

    @Test func aQueryReadsItsTextParametersOnEveryStep() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(k TEXT)")
        for k in ["x", "y", "z"] { _ = try db.execute("INSERT INTO t(k) VALUES (?)", [.text(k)]) }
        var seen: [String] = []
        try db.forEachRow("SELECT k FROM t WHERE k >= ? AND k <> ? ORDER BY k", [.text("x"), .text("y")]) { row in
            seen.append(try row.string("k"))
        }
        #expect(seen == ["x", "z"])
    }

    @Test func theBufferGrowsAndIsDroppedPastItsLimit() {
        let bytes = ParameterBytes()
        #expect(bytes.reset(capacity: 10))
        #expect(bytes.capacity >= 10)
        #expect(bytes.reset(capacity: 1_000))
        #expect(bytes.capacity >= 1_000)
        let text: [UInt8] = Array("hello".utf8)
        let pointer = text.withUnsafeBufferPointer { bytes.append($0) }
        #expect(String(decoding: UnsafeRawBufferPointer(start: pointer, count: 5), as: UTF8.self) == "hello")
        #expect(!bytes.reset(capacity: ParameterBytes.largestKept + 1))
        #expect(bytes.capacity == 0)
    }
}
