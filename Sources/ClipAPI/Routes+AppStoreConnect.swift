import AppStoreConnect
import ClipCore
import ClipStore
import ClipSync
import ClipSyncEngine
import HTTP1
import StrictJSON

/// `/v1/asc`: the registry against App Store Connect for business tooling without a shell (README "App Store
/// Connect"), with an admin token, on a server started with an App Store Connect key. SyncEngine does the work.
extension ClipAPI {
    func registerAppStoreConnectRoutes() {
        add("GET", "/v1/asc/plan", .token) { api, c in
            try c.requireAdmin()
            let prune = try Self.flag(c, "prune")
            let engine = try api.syncEngine(c)
            let plans = try Self.synced { () throws(SyncFailure) in try engine.plans(clip: c.query("clip"), prune: prune) }
            return json(["plans": .array(plans.map(\.json))], headers: [("Cache-Control", "no-store")])
        }
        add("POST", "/v1/asc/apply", .token) { api, c in
            try c.requireAdmin()
            var clip: String?
            var prune = false
            if !c.request.body.isEmpty {
                let reader = FieldReader(try c.jsonBody())
                clip = reader.string("clip")
                prune = reader.bool("prune") ?? false
                let errors = reader.finish()
                guard errors.isEmpty else { throw Problem(RegistryError.invalid(errors)) }
            }
            let engine = try api.syncEngine(c)
            let reports = try Self.synced { () throws(SyncFailure) in try engine.apply(clip: clip, prune: prune) }
            // An apply that stopped answers as its failure would (422, 502, 503…), with what it did before.
            if let failure = reports.compactMap(\.failure).first {
                var problem = Self.problem(failure)
                problem.extra.append((key: "applied", value: .array(reports.map(\.json))))
                throw problem
            }
            return json(["applied": .array(reports.map(\.json))], headers: [("Cache-Control", "no-store")])
        }
    }

    func syncEngine(_ c: Context) throws -> SyncEngine {
        guard let client = appStoreConnect else {
            throw Problem(
                status: 503,
                detail: "this server was started without an App Store Connect key (clipctl serve --asc-key-id … or ASC_KEY_ID …)")
        }
        let engine = SyncEngine(registry: c.registry, client: client)
        let pool = self.pool
        engine.shouldStop = { pool.isInterrupted }
        return engine
    }

    /// A sync failure as a problem (docs/rules.md#errors-and-statuses): App Store Connect's own failures are a bad
    /// gateway (RFC 9110 §15.6.3) or unavailable with Retry-After; what ASC would refuse is the request's fault (422).
    static func synced<T>(_ body: () throws(SyncFailure) -> T) throws -> T {
        do { return try body() } catch { throw problem(error) }
    }

    static func problem(_ failure: SyncFailure) -> Problem {
        switch failure {
        case .notLinked, .noneLinked, .noApp, .noAppClip: return Problem.notFound(failure.description)
        case .registry(let registryError): return Problem(registryError)
        case .refused(let steps):
            return Problem(
                status: 422, detail: "nothing was sent: App Store Connect would refuse \(steps.count) step(s)", errors: failure.fieldErrors)
        case .rejected: return Problem(status: 422, detail: failure.description, errors: failure.fieldErrors)
        case .applyRunning: return Problem(status: 409, detail: failure.description)
        case .appStoreConnect(.rateLimited(let retryAfter, _)):
            return Problem(status: 503, detail: failure.description, headers: [("Retry-After", "\(Int(retryAfter ?? 60))")])
        case .rateBudget, .appStoreConnect(.cancelled):
            return Problem(status: 503, detail: failure.description, headers: [("Retry-After", "60")])
        case .appStoreConnect, .remote: return Problem(status: 502, detail: failure.description)
        }
    }
}
