import Foundation
import StrictJSON
import Testing

/// Issue 32 items 5, 7 and 8: a plan App Store Connect would refuse fails as its apply would, a TestFlight plan with no
/// build says so, `--build ""` names nothing, an invocation its app's missing name leaves untitled is refused with the
/// fix, and choosing invocations says App Review gets them too.
@Suite(.enabled(if: FakeASCProcess.shouldRun)) struct AppStoreConnectPlanExitProcessTests {
    static let clip = AppStoreConnectProcessTests.clip

    @Test func aPlanWithRefusalsExits65AsItsApplyWould() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        let link = try clipctl("asc", "link", Self.clip)
        #expect(link.code == 0, "\(link.err)")
        let registered = try clipctl(
            "register", "https://bikesrental.example/noimage", "--clip", Self.clip, "--title", "No image", "--subtitle", "None")
        #expect(registered.code == 0, "\(registered.err)")
        for arguments in [["asc", "plan"], ["asc", "plan", "--detailed-exitcode"]] {
            let plan = try clipctl.run(arguments, stdin: nil)
            #expect(plan.code == 65, "\(arguments): \(plan.out)\(plan.err)")
            #expect(plan.out.contains("refused [headerImage.required]"))
            #expect(plan.err.contains("1 step(s) would be refused: an apply would send nothing"), "\(plan.err)")
        }
        #expect(try clipctl("asc", "apply", "--yes").code == 65)
        #expect(try fake.violations() == [])
    }

    @Test func aTestFlightPlanOfAURLThatNoLongerResolvesIsRefusedAndRemovesNothing() throws {
        let (clipctl, fake) = try AppStoreConnectTestFlightProcessTests.setUp()
        let chosen = try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/new")
        #expect(chosen.code == 0, "\(chosen.err)")
        // Choosing says what else it changes (item 8).
        #expect(chosen.out.contains("App Review gets these URLs too: the next clipctl asc apply"), "\(chosen.out)")
        #expect(try clipctl("asc", "testflight", "apply", "--yes").code == 0)
        #expect(try clipctl("remove", "3").code == 0)
        let plan = try clipctl("asc", "testflight", "plan")
        #expect(plan.code == 65, "\(plan.out)\(plan.err)")
        #expect(plan.out.contains("refused [testflight.resolve]"))
        #expect(plan.out.contains("the build's invocation of it is left as it is"), "\(plan.out)")
        #expect(!plan.out.contains("remove"), "\(plan.out)")
        #expect(try fake.violations() == [])
    }

    @Test func noBuildIsSaidAndNotInSyncAndAnEmptyBuildIsAUsageError() throws {
        let (clipctl, fake) = try AppStoreConnectProcessTests.setUp()
        #expect(try clipctl("asc", "link", Self.clip).code == 0)
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/rent").code == 0)
        let plan = try clipctl("asc", "testflight", "plan")
        #expect(plan.code == 0, "\(plan.err)")
        #expect(plan.out.contains("no build with an App Clip: nothing to give the invocations to"), "\(plan.out)")
        #expect(!plan.out.contains("in sync"), "\(plan.out)")
        #expect(try clipctl("asc", "testflight", "plan", "--detailed-exitcode").code == 2)

        let requests = try fake.control("GET", "/__fake/requests")["count"]
        for command in ["plan", "apply"] {
            let empty = try clipctl("asc", "testflight", command, "--build", "")
            #expect(empty.code == 64, "\(command): \(empty.err)")
            #expect(empty.err.contains("--build names no build"), "\(empty.err)")
        }
        #expect(try fake.control("GET", "/__fake/requests")["count"] == requests, "nothing is asked of App Store Connect")
    }

    @Test func aURLFallingToTheDefaultExperienceOfAnAppWithoutANameIsRefusedWithTheFix() throws {
        let (clipctl, fake) = try AppStoreConnectTestFlightProcessTests.setUp()
        #expect(try clipctl("default", "set", Self.clip, "--subtitle", "en-US=Bikes all over town").code == 0)
        let fix = "clipctl app set com.example.bikes --team ABCDE12345 --name NAME"
        let refused = try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/elsewhere")
        #expect(refused.code == 65, "\(refused.out)")
        #expect(refused.err.contains("testflight.appName"), "\(refused.err)")
        #expect(refused.err.contains(fix), "\(refused.err)")

        // Chosen while it resolved to an advanced experience, then that one removed: it falls to the default experience.
        #expect(try clipctl("asc", "testflight", "set", Self.clip, "https://bikesrental.example/new").code == 0)
        #expect(try clipctl("remove", "3").code == 0)
        let plan = try clipctl("asc", "testflight", "plan")
        #expect(plan.code == 65, "\(plan.out)")
        #expect(plan.out.contains("refused [testflight.appName]"), "\(plan.out)")
        #expect(plan.out.contains("fix: \(fix)"), "\(plan.out)")
        let doctor = try clipctl("doctor")
        #expect(doctor.out.contains("warning testflight-untitled https://bikesrental.example/new"), "\(doctor.out)")

        #expect(try clipctl("app", "set", "com.example.bikes", "--team", "ABCDE12345", "--name", "Bikes").code == 0)
        #expect(try clipctl("asc", "testflight", "plan").code == 0)
        #expect(!(try clipctl("doctor").out.contains("testflight-untitled")))
        #expect(try fake.violations() == [])
    }
}
