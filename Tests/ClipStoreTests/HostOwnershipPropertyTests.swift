import ClipCore
import Foundation
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// A seeded random walk of writes by three teams and an administrator over four hosts: after
/// every step, each object on a host belongs to a team that holds it, and every refused step left
/// the database as it was. `CLIP_HOST_WALK=STEPS` runs a longer walk (README, Reliability).
struct HostOwnershipPropertyTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func noWriteEverPutsATeamsObjectOnAHostItDoesNotHold() throws {
        let steps = Int(ProcessInfo.processInfo.environment["CLIP_HOST_WALK"] ?? "") ?? 600
        let registry = try Registry(path: temporaryDatabasePath())
        var random = SplitMix(state: 20261122)
        let teams = ["ABCDE12345", "FGHIJ67890", "KLMNO13579"]
        let hosts = ["shop.example", "SHOP.example.", "cafe.example", "bikes.example", "xn--caf-dma.example"]
        func clip(_ t: String) -> String { "\(t).com.t\(t.prefix(1).lowercased()).app.Clip" }
        func app(_ t: String) throws -> BundleID { try BundleID("com.t\(t.prefix(1).lowercased()).app") }
        var refused = 0, done = 0
        for step in 0..<steps {
            let team = teams.randomElement(using: &random)!
            let host = hosts.randomElement(using: &random)!
            let path = "/\(Int.random(in: 0..<6, using: &random))"
            let before = try snapshot(registry.path)
            do {
                switch Int.random(in: 0..<11, using: &random) {
                case 0: _ = try registry.register(try experienceJSON("https://\(host)\(path)", clip: clip(team)))
                case 1: _ = try registry.addDomain(clip: clip(team), host: host)
                case 2:
                    _ = try registry.setApplinks(
                        host: host, app: try app(team), components: .array([.object([(key: "/", value: .string("/\(team)/*"))])]))
                case 3: try registry.addWebcredentials(host: host, app: try app(team))
                case 4:
                    let mine = try registry.experiences(Registry.ListFilter(team: try TeamID(team)))
                    guard let e = mine.randomElement(using: &random) else { continue }
                    _ = try registry.update(String(e.id), with: ["url": .string("https://\(host)\(path)/moved")])
                case 5:
                    let other = teams.randomElement(using: &random)!
                    _ = try registry.importExperiences(
                        """
                        {"url":"https://\(host)\(path)/i","clip":"\(clip(team))","title":"T","subtitle":"S"}
                        {"url":"https://\(hosts.randomElement(using: &random)!)\(path)/j","clip":"\(clip(other))","title":"T","subtitle":"S"}
                        """, format: .ndjson)
                case 6: _ = try registry.setApplinksFromExperiences(host: host, Bool.random(using: &random), by: try TeamID(team))
                case 7: _ = try registry.shareHost(host, team: try TeamID(team))
                case 8: _ = try registry.claimHost(host, team: try TeamID(team))
                case 9: _ = try registry.unshareHost(host, team: try TeamID(team))
                default:
                    guard
                        let e = try registry.experiences(Registry.ListFilter(host: try Registry.normalizeHost(host))).randomElement(
                            using: &random)
                    else { continue }
                    _ = try registry.remove(String(e.id))
                    _ = try? registry.removeDomain(clip: e.clip.rawValue, host: e.url.host)
                }
                done += 1
            } catch {
                refused += 1
                #expect(try snapshot(registry.path) == before, "step \(step): refused (\(error)) but changed the database")
            }
            let found = try registry.hostOwnershipViolations()
            #expect(found.isEmpty, "step \(step): \(found)")
            if !found.isEmpty { break }
        }
        #expect(done > steps / 5 && refused > steps / 5, "the walk must exercise both outcomes: \(done) done, \(refused) refused")
        print("host ownership walk: \(steps) steps, \(done) written, \(refused) refused, 0 violations")
    }
}
