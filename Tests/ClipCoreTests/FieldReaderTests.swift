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

    /// `object` of a number, string or array is a type error and no value: it answered JSON null, which
    /// cleared a host's applinks defaults (`PUT …/applinks-settings {"defaults":3}`).
    @Test func anObjectMemberOfAnotherTypeIsNoValue() {
        let reader = FieldReader(["a": 3, "b": "x", "c": [1], "d": ["k": 1], "e": nil])
        for key in ["a", "b", "c"] { #expect(reader.object(key) == nil, "\(key)") }
        #expect(reader.object("d") == ["k": 1])
        #expect(reader.object("e") == nil)
        #expect(
            reader.finish().map(\.message) == [
                "expected an object, got a number", "expected an object, got a string", "expected an object, got an array",
            ])
    }

    @Test func notAnObjectIsOneError() {
        let reader = FieldReader(.array([1]), path: "place")
        #expect(reader.raw("a") == nil)
        #expect(reader.finish().map(\.field) == ["place"])
    }
}
