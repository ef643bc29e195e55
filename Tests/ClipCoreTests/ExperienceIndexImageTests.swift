import Foundation
import StrictJSON
import TestSupport
import Testing
@testable import ClipCore

/// The index written as an image and read back (the read model saved at a graceful stop): the
/// same experiences and answers as the index it was written from, still changeable, and every
/// damaged image refused before anything reads through it.
struct ExperienceIndexImageTests {
    typealias Generator = ExperienceIndexTests.Generator

    static func image(_ index: ExperienceIndex) -> [UInt8] {
        var out: [UInt8] = []
        index.writeImage { out.append(contentsOf: $0) }
        return out
    }

    static func read(_ image: [UInt8]) throws -> ExperienceIndex {
        var offset = 0
        return try ExperienceIndex(image: image.count) { buffer in
            guard offset + buffer.count <= image.count else { throw ExperienceIndex.ImageProblem("past the end") }
            image.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + buffer.count)])) }
            offset += buffer.count
        }
    }

    /// A generated index with removals (free slots, garbage), updates, query items, localizations,
    /// places and header images, and the experiences it holds.
    static func generated(seed: UInt64, keyBits: Int) throws -> (ExperienceIndex, [Int64: AdvancedExperience]) {
        var g = Generator(state: seed)
        var index = ExperienceIndex(capacity: 0, keyBits: keyBits)
        var all: [Int64: AdvancedExperience] = [:]
        var seen: Set<String> = []
        for id in 1...Int64(400) {
            var text = ExperienceIndexTests.registered(&g)
            if g.next(4) == 0 { text = "https://q.example/rent?id=\(g.next(40))" + (g.next(3) == 0 ? "&zone=1" : "") }
            let url = try NormalizedURL(text)
            guard seen.insert(url.canonical).inserted else { continue }
            let e = ExperienceArenaTests.experience(&g, id: id, url: url.canonical)
            all[id] = e
            index.upsert(e)
        }
        for id in all.keys.sorted() where g.next(5) == 0 {
            index.remove(id: id)
            all[id] = nil
        }
        return (index, all)
    }

    static func invocations(_ g: inout Generator) -> [String] {
        (0..<300).map { _ in
            var invocation = g.next(4) == 0 ? "https://q.example/rent?id=\(g.next(40))&zone=1" : ExperienceIndexTests.registered(&g)
            if g.next(2) == 0 { invocation += (invocation.contains("?") ? "&" : "?") + "utm=qr" }
            return invocation
        }
    }

    @Test(arguments: [0, 3, 64])
    func anImageReadBackAnswersLikeTheIndexItWasWrittenFrom(keyBits: Int) throws {
        let (index, all) = try Self.generated(seed: 77 + UInt64(keyBits), keyBits: keyBits)
        var read = try Self.read(Self.image(index))
        #expect(read.count == all.count)
        #expect(read.keyMask == index.keyMask)
        for (id, e) in all { #expect(read.experience(id: id) == e, "\(id)") }
        var g = Generator(state: 5)
        for invocation in Self.invocations(&g) {
            try ExperienceArenaTests.expectSameAnswers(read, all: Array(all.values), invocation, preferences: g.next(2) == 0 ? [.FR] : [])
        }
        // Written again, the same bytes: nothing is lost or added on the way.
        #expect(Self.image(read) == Self.image(index))
        // Still an index: changes after reading (reusing the free slots it read) keep the answers right.
        var changed = all
        for id in all.keys.sorted().prefix(20) {
            read.remove(id: id)
            changed[id] = nil
        }
        for id in Int64(1000)..<1030 {
            let e = ExperienceArenaTests.experience(&g, id: id, url: "https://new.example/p\(id)")
            read.upsert(e)
            changed[id] = e
        }
        for invocation in Self.invocations(&g) + (1000..<1030).map({ "https://new.example/p\($0)/x" }) {
            try ExperienceArenaTests.expectSameAnswers(read, all: Array(changed.values), invocation, preferences: [])
        }
    }

    @Test func anEmptyIndexAndALoadedOneNotYetLinkedRoundTrip() throws {
        let empty = try Self.read(Self.image(ExperienceIndex()))
        #expect(empty.count == 0)
        #expect(
            empty.resolve("https://a.example/x", preferences: [], at: .earliest).json(explain: false)
                == ExperienceIndex().resolve(
                    "https://a.example/x", preferences: [], at: .earliest
                ).json(explain: false))
        // Loaded in bulk and written before `finishLoading`: the image holds them linked.
        var loaded = ExperienceIndex(capacity: 4)
        let url = Array("https://a.example/store".utf8)
        let clip = loaded.clipNumber(try AppID("ABCDE12345.com.a.Clip"))
        var columns = ExperienceValueColumns(
            AdvancedExperience(
                url: try NormalizedURL("https://a.example/store"), clip: try AppID("ABCDE12345.com.a.Clip"), localizations: [:]))
        try url.withUnsafeBufferPointer { try loaded.load(id: 7, url: $0, clip: clip, version: 1, columns: &columns) }
        let read = try Self.read(Self.image(loaded))
        guard case .advanced(let e, _) = read.resolve("https://a.example/store/1", preferences: [], at: .earliest).match else {
            Issue.record("no match")
            return
        }
        #expect(e.id == 7)
    }

    /// What is refused, and why: each damage a reader would otherwise follow.
    @Test func damagedImagesAreRefused() throws {
        let (index, _) = try Self.generated(seed: 9, keyBits: 64)
        let image = Self.image(index)
        let meta = 19 * 8
        let stride = MemoryLayout<ExperienceIndex.Record>.stride
        func refused(_ change: (inout [UInt8]) -> Void, _ what: Comment) {
            var damaged = image
            change(&damaged)
            #expect(throws: ExperienceIndex.ImageProblem.self, what) { try Self.read(damaged) }
        }
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int, _ bytes: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { bytes[offset + i] = b } }
        }
        func recordField(_ slot: Int, _ field: PartialKeyPath<ExperienceIndex.Record>) -> Int {
            meta + slot * stride + MemoryLayout<ExperienceIndex.Record>.offset(of: field)!
        }
        refused({ $0.removeLast() }, "one byte short")
        refused({ $0.append(0) }, "one byte more")
        refused({ $0 = Array($0.prefix(100)) }, "cut inside the header")
        refused({ $0 = [] }, "empty")
        refused({ $0[0] ^= 1 }, "another format")
        refused({ $0[8] ^= 1 }, "another layout")
        for field in 5..<19 { refused({ put(UInt64(1) << 50, at: field * 8, &$0) }, "meta field \(field) enormous") }
        refused({ put(UInt64(image.count), at: 6 * 8, &$0) }, "bytes count larger than the image")
        // A live record (slot 0 is never removed in this data: it is the first upserted and kept, or freed; find a live one).
        let live = (0..<index.count).first { slot in
            image[recordField(slot, \.status)] != ExperienceIndex.Record.free
        }!
        refused({ put(Int(Int32.max) * 4, at: recordField(live, \.data), &$0) }, "data past the bytes")
        refused({ put(Int(-1), at: recordField(live, \.data), &$0) }, "negative data")
        refused({ put(Int32.max, at: recordField(live, \.urlLength), &$0) }, "a URL longer than its data")
        refused({ put(Int32(0), at: recordField(live, \.hostLength), &$0) }, "no host")
        refused({ put(Int32(live), at: recordField(live, \.next), &$0) }, "a chain that loops")
        refused({ put(Int32(Int32.max), at: recordField(live, \.next), &$0) }, "a link out of bounds")
        refused({ $0[recordField(live, \.status)] = 200 }, "an unknown status")
        refused({ put(Int(Int32.max), at: recordField(live, \.localizations), &$0) }, "localizations past the bytes")
    }
}
