import ClipCore
import ClipWire
import StrictJSON
import Testing

/// The shapes of `verify`'s App Store Connect parts, `asc link`, a clip's TestFlight invocations and `codes export`:
/// each read back through the bytes gives the JSON its writer wrote.
@Suite struct OutboundShapeTests {
    func throughBytes(_ value: JSONValue) throws -> JSONValue { try JSONParser.parse(JSONWriter.bytes(value)) }

    let clip = try! AppID("ABCDE12345.com.example.bikes.Clip")

    @Test func verifysAppStoreConnectParts() throws {
        let comparison = AppStoreConnectComparison(
            verdict: "pending", evidence: "1 change pending: update https://bikes.example/rent", fix: "run clipctl asc apply",
            pending: [.init(clip: clip.rawValue, url: "https://bikes.example/rent", action: "update", summary: "title differ")])
        #expect(try AppStoreConnectComparison(json: throughBytes(comparison.json)) == comparison)
        var reading = AppleVerdict.Reading(source: "debug", state: "invalid")
        (reading.isValid, reading.errorCode, reading.knownCode, reading.fix) = (false, "SWCERR00301", true, "publish the file")
        let verdict = AppleVerdict(
            verdict: "invalid", evidence: "Apple found bikes.example invalid for a build", fix: nil,
            builds: [.init(clip: clip.rawValue, buildID: "b1", buildVersion: "1.4", readings: [reading])])
        #expect(try AppleVerdict(json: throughBytes(verdict.json)) == verdict)
    }

    @Test func aLinkTheInvocationsAndAnExport() throws {
        let link = AppStoreConnectLinked(
            link: AppStoreConnectLink(
                clip: clip, ascAppID: "1", ascAppClipID: "2", appBundleID: "com.example.bikes", primaryLocale: nil,
                linkedAt: "2026-01-01T00:00:00Z"),
            created: true)
        let linked = try AppStoreConnectLinked(json: throughBytes(link.json))
        #expect(linked.link == link.link && linked.created && link.json["primaryLocale"] == .null)
        let invocations = TestFlightInvocationList(
            clip: clip,
            invocations: [
                TestFlightInvocation(
                    position: 1, url: "https://bikes.example/rent", target: .experience(7), titles: [.init(locale: "en-US", title: "Rent")]),
                TestFlightInvocation(position: 2, url: "https://bikes.example/", target: .defaultExperience, titles: []),
                TestFlightInvocation(position: 3, url: "https://bikes.example/gone", target: .unresolved("no match"), titles: []),
            ])
        let read = try TestFlightInvocationList(json: throughBytes(invocations.json))
        #expect(read.clip == clip && read.invocations == invocations.invocations)
        let export = CodesExported(
            directory: "/tmp/print", codes: 2, files: 5, indexSHA256: String(repeating: "a", count: 64), added: ["svg/rent.svg"],
            changed: [], removed: ["png/old.png"], unchanged: 2, notes: ["https://bikes.example/off: deactivated"])
        #expect(try CodesExported(json: throughBytes(export.json)).json == export.json)
        #expect(throws: WireError.self) { try CodesExported(json: ["codes": 1]) }
    }
}
