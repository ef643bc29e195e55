import ClipCore
import Testing
@testable import DoctorAndPublish

/// `Doctor.acknowledge` (docs/aasa-tools.md#acknowledged-findings): an acknowledgement quiets its rule's findings on the
/// experiences its scope selects, a team's only on that team's, and nothing else.
struct DoctorAcknowledgementTests {
    func experience(_ url: String, id: Int64, clip: String = "ABCDE12345.com.ride.app.Clip", labels: [String: String]) throws
        -> AdvancedExperience
    {
        AdvancedExperience(
            id: id, url: try NormalizedURL(url), clip: try AppID(clip), action: .open, defaultLanguage: .EN, isPoweredBy: false,
            businessCategory: nil, localizations: [.EN: CardText(title: "A title far too long here", subtitle: "Tap")], headerImage: nil,
            place: nil, labels: labels, status: .active, version: 1, createdAt: "", updatedAt: "")
    }

    func acknowledgement(_ id: Int64, _ rule: String, _ scope: String, team: String? = nil) throws -> DoctorAcknowledgement {
        DoctorAcknowledgement(
            id: id, rule: rule, scope: try ExperienceSelector(scope), team: try team.map { try TeamID($0) }, note: nil, createdAt: "")
    }

    func finding(_ code: String, _ subject: String) -> Doctor.Finding {
        Doctor.Finding(severity: .warning, code: code, subject: subject, message: "m", fix: nil)
    }

    @Test func anAcknowledgementQuietsItsRuleOnItsScopeAlone() throws {
        let london = try experience("https://ride.example/s/lon1", id: 1, labels: ["city": "london"])
        let paris = try experience("https://ride.example/s/par1", id: 2, labels: ["city": "paris"])
        let other = try experience("https://ride.example/s/lon2", id: 3, clip: "FGHIJ67890.com.other.app.Clip", labels: ["city": "london"])
        let findings = [
            finding("title-length", london.url.canonical), finding("title-length", paris.url.canonical),
            finding("qr-version", london.url.canonical), finding("title-length", other.url.canonical),
            finding("no-app-store-id", "com.ride.app"), finding("aasa-size", "ride.example"),
        ]
        let own = try acknowledgement(1, "title-length", "label.city=london", team: "ABCDE12345")
        let admin = try acknowledgement(2, "aasa-size", "host=ride.example")
        let split = Doctor.acknowledge(findings, [own, admin], experiences: [london, paris, other])
        // The team's quiets its own London station only: not Paris, not another rule, not another team's London.
        #expect(split.quieted.map(\.findings) == [[findings[0]], [findings[5]]])
        #expect(split.shown == [findings[1], findings[2], findings[3], findings[4]])

        // An administrator's covers every team's; a team's never quiets a host's finding, whatever its scope.
        let everyTeam = try acknowledgement(3, "title-length", "label.city=london")
        let teamHost = try acknowledgement(4, "aasa-size", "host=ride.example", team: "ABCDE12345")
        let wide = Doctor.acknowledge(findings, [everyTeam, teamHost], experiences: [london, paris, other])
        #expect(wide.quieted.map(\.findings) == [[findings[0], findings[3]], []])
        #expect(Doctor.acknowledge(findings, [], experiences: [london]).shown == findings)
    }

    /// The stored scope reads back to an equal selector, commas and backslashes in values included.
    @Test func aSelectorsTextReadsBackToTheSameSelector() throws {
        for text in ["label.city=london", "host=ride.example,label.zone", #"label.name=Gare\, Nord,status=active"#, #"label.path=a\\b"#] {
            let selector = try ExperienceSelector(text)
            #expect(try ExperienceSelector(selector.text) == selector, "\(text) → \(selector.text)")
        }
        #expect(try ExperienceSelector("label.b=2,label.a=1,host=h.example").text == "host=h.example,label.a=1,label.b=2")
    }
}
