import FileFormats
import Foundation
import StrictJSON
import Testing
@testable import ClipCore

/// docs/rules.md#experiences-in-time: times as people give them, the state rule, and resolution at a moment, in the
/// pure resolver and the read model's arena alike.
struct ExperienceWindowTests {
    static let zones: ZoneLookup = { name in
        FileManager.default.contents(atPath: "/usr/share/zoneinfo/\(name)").flatMap { try? TimeZoneRules(tzif: Array($0)) }
    }

    static func instant(_ text: String) throws(ValidationFailure) -> Instant { try Instant.parse(text, field: "liveFrom", zone: zones) }

    static func rule(of text: String) -> String? {
        do throws(ValidationFailure) {
            _ = try instant(text)
            return nil
        } catch { return error.errors.first?.rule }
    }

    @Test func timesAreReadWithTheirZoneAndKeptInUTC() throws {
        #expect(try Self.instant("2027-06-01T00:00 Europe/Paris").description == "2027-05-31T22:00:00Z")
        #expect(try Self.instant("2027-01-15 09:30 Europe/Paris").description == "2027-01-15T08:30:00Z")
        #expect(try Self.instant("2027-06-01 Europe/Paris").description == "2027-05-31T22:00:00Z")
        #expect(try Self.instant("2027-06-01T00:00:05Z").description == "2027-06-01T00:00:05Z")
        #expect(try Self.instant("2027-06-01T00:00-05:00").description == "2027-06-01T05:00:00Z")
        #expect(try Self.instant("2027-06-01T00:00 America/New_York").description == "2027-06-01T04:00:00Z")
        // A leap day exists in 2028, not in 2027.
        #expect(try Self.instant("2028-02-29T12:00Z").description == "2028-02-29T12:00:00Z")
        #expect(Self.rule(of: "2027-02-29T12:00Z") == "instant.format")
    }

    @Test func aTimeTheClocksSkipOrPassTwiceIsRefusedWithWhatToWrite() throws {
        #expect(Self.rule(of: "2027-03-28T02:30 Europe/Paris") == "instant.gap")
        do throws(ValidationFailure) {
            _ = try Self.instant("2027-10-31T02:30 Europe/Paris")
            Issue.record("an ambiguous time was accepted")
        } catch {
            #expect(error.errors.first?.rule == "instant.ambiguous")
            #expect(error.errors.first?.message.contains("+02:00 or +01:00") == true)
        }
        // Said with an offset, the same wall time is one instant.
        #expect(try Self.instant("2027-10-31T02:30+01:00").description == "2027-10-31T01:30:00Z")
    }

    @Test func malformedTimesAndUnknownZonesAreRefused() {
        for text in [
            "", "tomorrow", "2027-13-01T00:00Z", "2027-06-01T24:00Z", "2027-06-01T00:00", "2027-06-01T00:00+15:00",
            "2027-06-01T00:00 Europe/../../etc/passwd", "1969-12-31T23:59Z", "2027-06-01T00:00\u{200B}Z",
            String(repeating: "9", count: 200),
        ] {
            #expect(Self.rule(of: text) != nil, "\(text) was accepted")
        }
        #expect(Self.rule(of: "2027-06-01T00:00 Mars/Olympus_Mons") == "instant.zone")
        #expect(Self.rule(of: "2027-06-01T00:00 ../../etc/passwd") == "instant.zone")
    }

    @Test func theCanonicalFormRoundTripsAndSortsAsTime() throws {
        var previous: Instant?
        for seconds in stride(from: Int64(0), to: 253_402_300_799, by: 7_777_777) {
            let instant = Instant(seconds: seconds)
            #expect(Instant(canonical: instant.canonicalBytes) == instant)
            if let previous { #expect(previous.description < instant.description) }
            previous = instant
        }
        #expect(Instant.latest.description == "9999-12-31T23:59:59Z")
    }

    static let clip = try! AppID("ABCDE12345.com.example.MyApp.Clip")
    static func experience(_ id: Int64, _ url: String, from: String? = nil, until: String? = nil) -> AdvancedExperience {
        AdvancedExperience(
            id: id, url: try! NormalizedURL(url), clip: clip, localizations: [.EN: CardText(title: "Card \(id)", subtitle: "S")],
            liveFrom: from.map { try! instant($0) }, liveUntil: until.map { try! instant($0) })
    }

    @Test func theStateFollowsTheClock() throws {
        let summer = Self.experience(1, "https://a.example/s", from: "2027-06-01T00:00Z", until: "2027-09-01T00:00Z")
        #expect(summer.state(at: try Self.instant("2027-05-31T23:59:59Z")) == .scheduled)
        #expect(summer.state(at: try Self.instant("2027-06-01T00:00Z")) == .live)
        #expect(summer.state(at: try Self.instant("2027-08-31T23:59:59Z")) == .live)
        #expect(summer.state(at: try Self.instant("2027-09-01T00:00Z")) == .ended)
        var off = summer
        off.status = .deactivated
        #expect(off.state(at: try Self.instant("2027-07-01T00:00Z")) == .deactivated)
        #expect(Self.experience(2, "https://a.example/").state(at: .earliest) == .live)
    }

    @Test func aURLOutsideItsWindowFallsToTheNextCandidateAndSaysWhy() throws {
        let station = Self.experience(1, "https://a.example/station")
        let summer = Self.experience(2, "https://a.example/station/7", from: "2027-06-01T00:00Z", until: "2027-09-01T00:00Z")
        let url = try NormalizedURL("https://a.example/station/7")
        func resolve(_ at: String) throws -> Resolution {
            Resolver.resolve(
                url.canonical, url: url, candidates: [station, summer], fallbacks: [], preferences: [], at: try Self.instant(at))
        }
        let before = try resolve("2027-05-01T00:00Z")
        #expect(before.winnerID == 1)
        #expect(before.candidates.first { $0.id == 2 }?.outcome == .scheduled)
        #expect(before.candidates.first { $0.id == 2 }?.detail == "skipped: starts 2027-06-01T00:00:00Z")
        #expect(try resolve("2027-07-01T00:00Z").winnerID == 2)
        let after = try resolve("2027-09-01T00:00Z")
        #expect(after.winnerID == 1)
        #expect(after.candidates.first { $0.id == 2 }?.detail == "skipped: ended 2027-09-01T00:00:00Z")
    }

    /// The arena answers what the resolver does at every moment, for windows on both sides, open or not.
    @Test func theReadModelAgreesWithTheResolverAtEveryMoment() throws {
        var experiences: [AdvancedExperience] = []
        let moments = ["2027-01-01T00:00Z", "2027-06-01T00:00Z", "2027-09-01T00:00Z", "2028-01-01T00:00Z"]
        var id: Int64 = 0
        for path in ["/", "/a", "/a/b", "/a/b/c"] {
            for (from, until) in [(nil, nil), (moments[1], nil), (nil, moments[2]), (moments[1], moments[2]), (moments[2], moments[3])] {
                id += 1
                experiences.append(Self.experience(id, "https://h\(id % 3).example\(path)", from: from, until: until))
            }
        }
        var index = ExperienceIndex()
        for e in experiences { index.upsert(e) }
        for moment in moments + ["2027-05-31T23:59:59Z", "2027-08-31T23:59:59Z", "2026-01-01T00:00Z"] {
            let at = try Self.instant(moment)
            for host in 0..<3 {
                for path in ["/", "/a", "/a/b/c/d", "/x"] {
                    let url = try NormalizedURL("https://h\(host).example\(path)")
                    let expected = Resolver.resolve(
                        url.canonical, url: url, candidates: experiences.filter { $0.url.host == url.host }, fallbacks: [], preferences: [],
                        at: at)
                    #expect(
                        index.resolve(url.canonical, url: url, preferences: [], at: at).winnerID == expected.winnerID, "\(url) at \(moment)"
                    )
                    var out: [UInt8] = []
                    let wrote = Array(url.canonical.utf8).withUnsafeBufferPointer {
                        index.writeAdvancedAnswer($0, preferences: [], at: at, into: &out)
                    }
                    #expect(wrote == (expected.winnerID != nil))
                }
            }
        }
    }
}

extension Resolution {
    var winnerID: Int64? {
        if case .advanced(let e, _) = match { return e.id }
        return nil
    }
}
