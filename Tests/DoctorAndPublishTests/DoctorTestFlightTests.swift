import ClipCore
import DoctorAndPublish
import Testing

/// The doctor on TestFlight invocations (docs/app-store-connect.md#testflight-invocations): a linked clip with active
/// experiences and none chosen, and a chosen URL that no longer resolves.
struct DoctorTestFlightTests {
    let base = DoctorTests()

    func findings(_ choice: TestFlightChoice?, active: Bool = true) throws -> [Doctor.Finding] {
        var experience = try base.experience("https://shop.example/order")
        if !active { experience.status = .deactivated }
        var snapshot = try base.snapshot([experience])
        if let choice { snapshot.add(.testflight(choice)) }
        return Doctor.examine(snapshot)
    }

    @Test func aLinkedClipWithActiveExperiencesAndNoneChosenIsWarned() throws {
        let none = try findings(TestFlightChoice(clip: base.clip, linked: true, invocations: []))
        #expect(none.map(\.code) == ["testflight-none"])
        #expect(none.first?.severity == .warning && none.first?.subject == base.clip.rawValue)
        #expect(none.first?.fix == "clipctl asc testflight set \(base.clip.rawValue) URL")
        // Not linked to App Store Connect (no record), or nothing active: nothing to say.
        #expect(try findings(nil).isEmpty)
        #expect(try findings(TestFlightChoice(clip: base.clip, linked: true, invocations: []), active: false).isEmpty)
        // Chosen and resolving: healthy.
        let chosen = TestFlightInvocation(position: 1, url: "https://shop.example/order", target: .experience(1), titles: [])
        #expect(try findings(TestFlightChoice(clip: base.clip, linked: true, invocations: [chosen])).isEmpty)
    }

    @Test func aChosenURLThatNoLongerResolvesIsWarnedWithTheChoiceThatKeepsTheOthers() throws {
        let kept = TestFlightInvocation(position: 1, url: "https://shop.example/order", target: .experience(1), titles: [])
        let gone = TestFlightInvocation(
            position: 2, url: "https://shop.example/gone", target: .unresolved("resolves to no active experience of this clip"), titles: [])
        // Even without a link: the choice is there and would be refused.
        let found = try findings(TestFlightChoice(clip: base.clip, linked: false, invocations: [kept, gone]))
        #expect(found.map(\.code) == ["testflight-unresolved"])
        #expect(found.first?.subject == "https://shop.example/gone")
        #expect(found.first?.message.contains("invocation 2 of \(base.clip.rawValue) but resolves to no active experience") == true)
        #expect(found.first?.fix == "clipctl asc testflight set \(base.clip.rawValue) https://shop.example/order")
    }
}
