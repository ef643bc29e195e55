public import ClipCore
import SQLiteDB

/// A clip's chosen TestFlight invocations (Migrations/0009_testflight_invocations.sql,
/// docs/app-store-connect.md#testflight-invocations).
extension Registry {
    /// Replaces `clip`'s invocations by `urls`, in order. Each must resolve to an active experience of the clip or to
    /// its default experience; at most `TestFlightInvocation.limit`, no two alike (by canonical form). Every field
    /// error is reported at once and nothing is written then. Setting the same list again writes nothing.
    public func setTestFlightInvocations(clip reference: String, urls: [String]) throws(RegistryError) -> WriteOutcome<
        [TestFlightInvocation]
    > {
        try write {
            let clip = try clipID(reference)
            var errors: [FieldError] = []
            if urls.count > TestFlightInvocation.limit {
                errors.append(
                    FieldError(
                        field: "url", rule: "testflight.limit",
                        message: "\(urls.count) URLs given; App Store Connect keeps at most \(TestFlightInvocation.limit) per build"))
            }
            // Stored as normalized (docs/rules.md#url-normalization): what testers open is what was checked, never
            // the spelling given with its spaces, controls or invisible characters.
            var seen: [String: Int] = [:]
            var stored: [String] = []
            for (index, text) in urls.enumerated() {
                let field = "url[\(index)]"
                let url: NormalizedURL
                do throws(NormalizedURL.Problem) { url = try NormalizedURL(text) } catch {
                    errors.append(error.fieldError(field))
                    continue
                }
                if let first = seen[url.canonical] {
                    errors.append(FieldError(field: field, rule: "testflight.duplicate", message: "the same URL as url[\(first)]"))
                    continue
                }
                seen[url.canonical] = index
                stored.append(url.canonical)
                let target = try target(of: text, clip: clip)
                if case .unresolved(let why) = target {
                    errors.append(FieldError(field: field, rule: "testflight.resolve", message: why))
                }
                let invocation = TestFlightInvocation(
                    position: index + 1, url: url.canonical, target: target, titles: try titles(of: target, url: text, clip: clip))
                if let untitled = invocation.untitled(appBundleID: try appBundleID(of: clip), team: clip.team.rawValue) {
                    errors.append(
                        FieldError(field: field, rule: TestFlightInvocation.untitledRule, message: "\(untitled.message): \(untitled.fix)"))
                }
            }
            if !errors.isEmpty { throw RegistryError.invalid(errors) }
            let before = try db.query(
                "SELECT url FROM testflight_invocation WHERE clip_bundle_id = ? ORDER BY position", [.text(clip.bundleID.rawValue)]
            ).map { try $0.string("url") }
            if before != stored {
                try db.execute("DELETE FROM testflight_invocation WHERE clip_bundle_id = ?", [.text(clip.bundleID.rawValue)])
                for (index, url) in stored.enumerated() {
                    try db.execute(
                        "INSERT INTO testflight_invocation(clip_bundle_id, position, url) VALUES (?, ?, ?)",
                        [.text(clip.bundleID.rawValue), .integer(Int64(index + 1)), .text(url)])
                }
            }
            return WriteOutcome(try testFlightInvocations(clip: clip.rawValue), created: before != stored, notes: [])
        }
    }

    /// `clip`'s invocations in order, each with what it resolves to now and its titles.
    public func testFlightInvocations(clip reference: String) throws(RegistryError) -> [TestFlightInvocation] {
        try guarded {
            try db.read {
                let clip = try clipID(reference)
                let rows = try db.query(
                    "SELECT position, url FROM testflight_invocation WHERE clip_bundle_id = ? ORDER BY position",
                    [.text(clip.bundleID.rawValue)])
                return try rows.map { row in
                    let url = try row.string("url")
                    let target = try target(of: url, clip: clip)
                    return TestFlightInvocation(
                        position: Int(try row.int("position")), url: url, target: target,
                        titles: try titles(of: target, url: url, clip: clip))
                }
            }
        }
    }

    /// What `url` resolves to, as far as `clip` is concerned (docs/rules.md: the resolver's answer).
    func target(of url: String, clip: AppID) throws(RegistryError) -> TestFlightInvocation.Target {
        let resolution: Resolution
        do { resolution = try resolve(url) } catch .invalid(let errors) {
            return .unresolved(errors.first?.message ?? "is not a URL")
        }
        switch resolution.match {
        case .advanced(let experience, _)?:
            guard experience.clip == clip else {
                return .unresolved("resolves to experience \(experience.id) of another clip (\(experience.clip.bundleID.rawValue))")
            }
            return .experience(experience.id)
        case .defaultExperience(let fallback, _)?:
            guard fallback.experience.clip == clip else {
                return .unresolved("resolves to the default experience of another clip (\(fallback.experience.clip.bundleID.rawValue))")
            }
            return .defaultExperience
        case nil:
            return .unresolved("resolves to no active experience of this clip" + (resolution.reason.map { ": \($0)" } ?? ""))
        }
    }

    func appBundleID(of clip: AppID) throws(RegistryError) -> String {
        try guarded {
            try db.query("SELECT app_bundle_id FROM clip WHERE bundle_id = ?", [.text(clip.bundleID.rawValue)]).first.map {
                try $0.string("app_bundle_id")
            } ?? ""
        }
    }

    func titles(of target: TestFlightInvocation.Target, url: String, clip: AppID) throws(RegistryError) -> [TestFlightInvocation.Title] {
        switch target {
        case .experience(let id): return TestFlightInvocation.titles(of: try experience(String(id)))
        case .defaultExperience:
            let app = try guarded {
                try db.query(
                    "SELECT a.name FROM clip c JOIN app a ON a.bundle_id = c.app_bundle_id WHERE c.bundle_id = ?",
                    [
                        .text(clip.bundleID.rawValue)
                    ]
                ).first.map { try $0.string("name") } ?? ""
            }
            return TestFlightInvocation.titles(ofDefault: try defaultExperience(clip: clip.rawValue), appName: app)
        case .unresolved: return []
        }
    }
}
