import ClipCore
import StrictJSON
import Testing

/// A field reader refuses, at `finish`, every member nobody read, in the object's order.
struct FieldReaderTests {
    @Test func membersNotReadAreUnknownInTheirOrder() {
        let reader = FieldReader(.object([(key: "b", value: 1), (key: "a", value: "x"), (key: "c", value: nil), (key: "", value: 2)]))
        #expect(reader.string("a") == "x")
        #expect(reader.raw("missing") == nil)
        #expect(reader.has("c") && !reader.has("missing"))
        #expect(reader.finish().map(\.field) == ["b", "c", ""])
        #expect(reader.errors.allSatisfy { $0.rule == "unknown" })
    }

    @Test func aKeyReadOnceReadsEveryMemberOfThatName() {
        // The parser refuses duplicate keys; a value built in code may still have them.
        let reader = FieldReader(.object([(key: "a", value: 1), (key: "a", value: 2), (key: "b", value: 3)]), path: "place")
        #expect(reader.raw("a") == 1)
        #expect(reader.finish().map(\.field) == ["place.b"])
    }

    @Test func aWrongTypeIsOneErrorAndNotUnknown() {
        let reader = FieldReader(["title": 5])
        #expect(reader.string("title") == nil)
        #expect(reader.finish().map(\.rule) == ["type"])
    }

    @Test func notAnObjectIsOneError() {
        let reader = FieldReader(.array([1]), path: "place")
        #expect(reader.raw("a") == nil)
        #expect(reader.finish().map(\.field) == ["place"])
    }
}
