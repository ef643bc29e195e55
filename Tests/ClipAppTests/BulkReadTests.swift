import ClipApp
import ClipCore
import DoctorAndPublish
import ClipStore
import Foundation
import StrictJSON
import Testing

/// `GET /v1/bulk` through the layer, as doctor and publish read it: each caller its own scope, page
/// after page to the end, and a cursor or a limit it did not get refused before anything is read.
struct BulkReadTests {
    let registry: Registry
    let teamA = Caller.team(try! TeamID("ABCDE12345"), tokenID: 2)

    init() throws {
        registry = try temporaryRegistry()
        for n in 0..<30 { _ = try registry.addClip(try AppID("ABCDE12345.com.example.a\(n).Clip")) }
        _ = try registry.addClip(try AppID("FGHIJ67890.com.example.scooters.Clip"))
    }

    /// Every record `caller` reads, pages of `limit`, and how many pages it took.
    func readAll(as caller: Caller, limit: String) throws -> (clips: [String], pages: Int) {
        let session = Session(registry: registry, caller: caller)
        var clips: [String] = [], pages = 0
        try BulkRead.records(
            host: nil,
            run: { binding, arguments in
                pages += 1
                var sized = Arguments(arguments.values.map { $0.name == "limit" ? ($0.name, limit) : $0 })
                sized.body = nil
                return try binding.perform(sized, session)
            },
            each: { record in
                if case .clip(let clip) = record { clips.append(clip.appID.rawValue) }
            })
        return (clips, pages)
    }

    @Test func everyPageIsReadAndEachCallerSeesItsOwnScope() throws {
        let local = try readAll(as: .local, limit: "7")
        #expect(local.clips.count == 31)
        #expect(local.pages > 5, "pages of 7 records")
        #expect(try readAll(as: .local, limit: "1000").clips == local.clips, "the same records whatever the page size")
        let team = try readAll(as: teamA, limit: "7")
        #expect(team.clips.count == 30 && !team.clips.contains { $0.hasPrefix("FGHIJ67890") })
        #expect(throws: CallerRefusal.self) { try BulkRead.binding.perform(Arguments(), Session(registry: registry, caller: .anyone)) }
    }

    @Test func aCursorOrALimitNotGivenIsRefused() throws {
        let session = Session(registry: registry, caller: .local)
        for cursor in ["", "not a cursor", "Zm9vIGJhcg", "YXBwcyA"] {  // "foo bar", "apps " (no key)
            #expect(throws: OperationError.malformed("the cursor is not one this server gave")) {
                try BulkRead.binding.perform(Arguments([("cursor", cursor)]), session)
            }
        }
        for limit in ["0", "1001", "-1", "x"] {
            #expect(throws: InvalidArguments.self) { try BulkRead.binding.perform(Arguments([("limit", limit)]), session) }
        }
    }
}
