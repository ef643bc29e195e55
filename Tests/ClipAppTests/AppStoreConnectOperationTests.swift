import AppStoreConnect
@testable import ClipApp
import ClipCore
import ClipStore
@testable import ClipSyncEngine
import Foundation
import StrictJSON
import Testing

/// The App Store Connect operations in the layer: admin only, input checked before the key is read, a process without
/// a key answers 503 / exit 69, and each sync failure answers as it did on both edges (issue 25).
struct AppStoreConnectOperationTests {
    let registry: Registry
    let path: String

    /// Thrown by a key that is read: an operation that throws anything else did not read it.
    struct KeyRead: Error {}

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("asc-ops-\(UUID().uuidString).db").path
        registry = try Registry(path: path)
        _ = try registry.addClip(try AppID("ABCDE12345.com.example.bikes.Clip"))
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func session(_ caller: Caller, key: Bool = true) -> Session {
        Session(
            registry: registry, caller: caller, appStoreConnect: key ? AppStoreConnectAccess(client: { throw KeyRead() }) : nil)
    }

    static let routed: [(Binding, Arguments)] = [
        (AscPlan.binding, Arguments([("clip", "com.example.bikes.Clip")])),
        (AscApply.binding, Arguments(body: ["clip": "com.example.bikes.Clip", "prune": true])),
        (TestFlightPlanRead.binding, Arguments([("build", "1.4")])),
        (TestFlightApply.binding, Arguments(body: ["build": "1.4"])),
    ]

    @Test func aTeamTokenIsRefusedBeforeTheKeyIsReadAndNothingChanges() throws {
        let before = try bytes()
        let team = Caller.team(try TeamID("ABCDE12345"), tokenID: 2)
        for (binding, arguments) in Self.routed + [(AscLink.binding, Arguments([("clip", "com.example.bikes.Clip")]))] {
            #expect(throws: CallerRefusal.forbidden("this route needs an admin token")) {
                try binding.perform(arguments, session(team))
            }
            // The same request twice: the same refusal.
            #expect(throws: CallerRefusal.forbidden("this route needs an admin token")) {
                try binding.perform(arguments, session(team))
            }
        }
        #expect(try bytes() == before)
    }

    /// Unavailable until an operator gives the server a key: 503 without Retry-After, exit 69 (`ProblemTests`,
    /// `CommandFailureTests`).
    @Test func aServerWithoutAKeyIsUnavailable() throws {
        for (binding, arguments) in Self.routed {
            do {
                _ = try binding.perform(arguments, session(.admin(tokenID: 1), key: false))
                Issue.record("\(binding.path) ran without a key")
            } catch let failure as OperationError {
                guard case .unavailable(let detail, nil) = failure else {
                    Issue.record("\(failure)")
                    continue
                }
                #expect(detail.hasPrefix("this server was started without an App Store Connect key"))
            }
        }
    }

    @Test func theInputIsCheckedBeforeTheKeyIsRead() throws {
        #expect(
            throws: InvalidArguments(
                "prune is true or false", [FieldError(field: "prune", rule: "type", message: "expected true or false")])
        ) {
            try AscPlan.binding.perform(Arguments([("prune", "maybe")]), session(.admin(tokenID: 1)))
        }
        // Every field error of a body at once, the key unread.
        do {
            _ = try AscApply.binding.perform(
                Arguments(body: ["clip": 7, "prune": "yes", "colour": "red"]), session(.admin(tokenID: 1)))
            Issue.record("a malformed body was applied")
        } catch let RegistryError.invalid(errors) {
            #expect(errors.map(\.field) == ["clip", "prune", "colour"])
        }
        #expect(throws: CommandUsageError("--prefer takes asc or registry")) {
            try AscPull.binding.perform(Arguments([("prefer", "both")]), session(.local))
        }
        // A command reads the key when the input is good.
        #expect(throws: KeyRead.self) { try AscPlan.binding.perform(Arguments([("prune", "true")]), session(.local)) }
        #expect(throws: KeyRead.self) { try TestFlightApply.binding.perform(Arguments(), session(.local)) }
    }

    /// Each failure in the application's words; the statuses and exit codes each edge gives them are checked there
    /// (ClipAPITests' `ProblemTests`, ClipCLITests' `CommandFailureTests`; docs/rules.md#errors-and-statuses).
    @Test func syncFailuresAreSaidInTheApplicationsWords() throws {
        func said(_ failure: SyncFailure) -> OperationError? { failure.operationError as? OperationError }
        #expect(said(.noneLinked) == .notFound(SyncFailure.noneLinked.description))
        #expect(said(.applyRunning) == .alreadyRunning(SyncFailure.applyRunning.description))
        let limited = SyncFailure.appStoreConnect(.rateLimited(retryAfterSeconds: 12, rateLimit: nil))
        #expect(said(limited) == .unavailable(limited.description, retryAfterSeconds: 12))
        #expect(
            said(.appStoreConnect(.cancelled)) == .unavailable(SyncFailure.appStoreConnect(.cancelled).description, retryAfterSeconds: 60))
        let budget = SyncFailure.rateBudget(remaining: 90, limit: 3600, reserve: 100)
        #expect(said(budget) == .unavailable(budget.description, retryAfterSeconds: 60))
        #expect(
            said(.appStoreConnect(.unreachable("refused")))
                == .unreachable(SyncFailure.appStoreConnect(.unreachable("refused")).description))
        let invalid = SyncFailure.appStoreConnect(.invalidResponse("not JSON"))
        #expect(said(invalid) == .failedElsewhere(invalid.description))
        #expect(said(.remote("stopped")) == .failedElsewhere("stopped"))
        let refused = SyncFailure.rejected(
            experienceID: 3, url: "https://bikes.example/rent", status: 409,
            errors: [.init(field: "headerImage", code: "ENTITY_ERROR", detail: "too small", pointer: nil)])
        #expect(said(refused) == .invalid(refused.description, errors: refused.fieldErrors))
        #expect(!refused.fieldErrors.isEmpty)
        #expect(SyncFailure.registry(.notFound("clip x")).operationError as? RegistryError == .notFound("clip x"))
    }

    /// A command prints an apply's reports from their JSON (the answer a server sends, or the one made here): the key's
    /// budget left survives that reading (it was dropped, so `asc apply` lost its "requests left" line).
    @Test func anApplysReportReadsBackWithTheKeysBudget() throws {
        var report = ApplyReport(clip: try AppID("ABCDE12345.com.example.bikes.Clip"))
        report.rateLimit = ASCRateLimit(header: "user-hour-lim:3500;user-hour-rem:500;")
        report.requests[.read] = 2
        let output = try ApplyOutput(json: ["applied": .array([report.json])])
        var printed = ""
        try output.present(Printer(out: { printed += $0 }, err: { _ in }), refusal: "")
        #expect(
            printed == """
                clip ABCDE12345.com.example.bikes.Clip
                requests: 2 read (2 in all)
                in sync: nothing to do; the key has 500 of 3500 requests left this hour

                """)
    }
}
