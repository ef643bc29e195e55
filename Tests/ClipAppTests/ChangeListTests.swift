import ClipCLI
import ClipApp
import ClipCore
import ClipWire
import ClipStore
import Foundation
import StrictJSON
import Testing

/// `ChangeList` through the layer: admin only, the route's own problem texts, and the command's pages.
struct ChangeListTests {
    let registry: Registry

    init() throws {
        registry = try temporaryRegistry()
        for name in ["ops", "ci", "deploy"] { _ = try registry.createToken(name: name, team: nil) }
    }

    func changes(_ arguments: [(String, String)], as caller: Caller = .admin(tokenID: 1)) throws -> ChangeList.Output {
        try ChangeList.Output(json: try ChangeList.binding.perform(Arguments(arguments), Session(registry: registry, caller: caller)).json)
    }

    @Test func anAdminReadsEveryRecordInPagesAndATeamTokenIsRefused() throws {
        let first = try changes([("limit", "2")])
        #expect(first.records.map(\.entity) == [.token, .token])
        #expect(first.nextSince == first.records.last?.id)
        let rest = try changes([("since", String(first.nextSince ?? 0)), ("limit", "2")])
        #expect(rest.records.count == 1)
        #expect(rest.nextSince == nil)
        #expect(throws: CallerRefusal.forbidden("this route needs an admin token")) {
            try changes([], as: .team(try TeamID("ABCDE12345"), tokenID: 2))
        }
        #expect(throws: CallerRefusal.unauthenticated("this route needs Authorization: Bearer TOKEN")) { try changes([], as: .anyone) }
    }

    @Test func aBadSinceOrLimitIsRefusedWithTheRoutesOwnTexts() throws {
        for since in ["-5", "abc", "", "1e3", "\u{200B}1"] {
            #expect(
                throws: InvalidArguments(
                    "since is a change id", [FieldError(field: "since", rule: "type", message: "expected a whole number ≥ 0")])
            ) {
                try changes([("since", since)])
            }
        }
        for limit in ["0", "1001", "ten", " 5"] {
            #expect(throws: InvalidArguments.self) { try changes([("limit", limit)]) }
        }
    }

    @Test func theCommandReadsMoreThanAPageInPagesOfAThousand() throws {
        for i in 0..<1_000 { _ = try registry.createToken(name: "t\(i)", team: nil) }
        let session = Session(registry: registry, caller: .local)
        var limits: [String] = []
        let parsed = try ClipCLI.words(["changes"], for: ChangeList.binding)
        let answer = try ChangeList.binding.commandAnswer!(parsed, Arguments([("since", "1"), ("limit", "1500")])) { binding, arguments in
            limits.append(arguments["limit"] ?? "")
            return try binding.perform(arguments, session)
        }
        let output = try ChangeList.Output(json: answer.json)
        #expect(limits == ["1000", "500"])
        #expect(output.records.count == 1_002, "records 2 to 1003: all there are after record 1")
        #expect(output.records.map(\.id) == Array(2...1_003))
        #expect(output.nextSince == nil)
    }
}
