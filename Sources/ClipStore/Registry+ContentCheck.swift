import ClipCore
import SQLiteDB
import StrictJSON

/// What the store takes for granted about its rows, checked in one place: every row reads back
/// through the store's own readers, and the invariants the readers and the server's read model
/// rely on hold (README, Reliability: a restore refuses a backup that breaks them).
extension Registry {
    /// The content problems found, each naming its row, at most `limit` (empty: the content is
    /// sound). The schema is assumed to be this version's (`Migrator.verify`).
    public func verifyContent(limit: Int = 100) throws(RegistryError) -> [String] {
        var problems = ContentProblems(limit: limit)
        try guarded {
            try db.read {
                try checkExperienceRows(&problems)
                try checkExperienceURLs(&problems)
                try checkLocalizationLanguages(&problems)
                try checkApps(&problems)
                try checkDefaultExperiences(&problems)
                try checkTokens(&problems)
                try checkAppStoreConnectLinks(&problems)
                try checkHosts(&problems)
                try checkChangeRecords(&problems)
            }
        }
        return problems.list
    }

    /// The problems found, each "subject: message", at most `limit` of them.
    struct ContentProblems {
        let limit: Int
        var list: [String] = []

        mutating func note(_ subject: String, _ error: any Error) {
            switch error {
            case let problem as NormalizedURL.Problem: note(subject, "url: \(problem.message)")
            case let error as SQLiteError: note(subject, error.message)
            default: note(subject, "\(error)")
            }
        }

        mutating func note(_ subject: String, _ message: String) { if list.count < limit { list.append("\(subject): \(message)") } }
    }

    /// Experiences as every reader sees them (`readExperience`), and as input would give them.
    func checkExperienceRows(_ problems: inout ContentProblems) throws {
        try db.forEachRow(Self.experienceColumns + " WHERE e.removed_at IS NULL ORDER BY e.id") { row in
            let subject = "experience \((try? row.int("id")).map(String.init) ?? "?")"
            let experience: AdvancedExperience
            do { experience = try readExperience(row) } catch { return problems.note(subject, error) }
            // What is stored must be what the registry would accept as input (text, place,
            // languages): its portable form decodes back, else it could neither be updated
            // nor exported and imported again.
            do throws(ValidationFailure) { _ = try ExperienceJSON.decode(ExperienceJSON.portable(experience)) } catch {
                problems.note(subject, error.errors.map(\.description).joined(separator: "; "))
            }
            if experience.version < 1 { problems.note(subject, "version \(experience.version) is not a version this registry issues") }
        }
    }

    /// The read model trusts the stored URL as canonical (`NormalizedURL(canonical:)`) and every
    /// lookup by host uses the host column.
    func checkExperienceURLs(_ problems: inout ContentProblems) throws {
        try db.forEachRow("SELECT id, url, host FROM advanced_experience WHERE removed_at IS NULL ORDER BY id") { row in
            let subject = "experience \(try row.int("id"))"
            let url = try row.string("url"), host = try row.string("host")
            guard let normalized = try? NormalizedURL(url) else { return }  // reported by readExperience
            if normalized.canonical != url { problems.note(subject, "url \(url) is not in canonical form (\(normalized.canonical))") }
            if normalized.host != host {
                problems.note(subject, "host \(host.isEmpty ? "''" : host) is not its URL's host \(normalized.host)")
            }
        }
    }

    /// Localizations are keyed by a language's canonical tag (docs/rules.md#languages).
    func checkLocalizationLanguages(_ problems: inout ContentProblems) throws {
        try db.forEachRow("SELECT experience_id, language FROM advanced_experience_localization ORDER BY experience_id, language") {
            row in
            let language = try row.string("language")
            if Language(spelling: language) == nil {
                problems.note(
                    "experience \(try row.int("experience_id"))",
                    "localization language \(language) is not one of the languages' canonical tags")
            }
        }
    }

    /// Apps read back, with names within the limits.
    func checkApps(_ problems: inout ContentProblems) throws {
        for row in try db.query("SELECT * FROM app ORDER BY bundle_id") {
            let subject = "app \(try row.string("bundle_id"))"
            do {
                let app = try readApp(row)
                for problem in TextLimits.checkAppName(app.name) { problems.note(subject, problem.description) }
                if app.version < 1 { problems.note(subject, "version \(app.version) is not a version this registry issues") }
            } catch { problems.note(subject, error) }
        }
    }

    /// Default experiences read back, with locales and subtitles within the rules.
    func checkDefaultExperiences(_ problems: inout ContentProblems) throws {
        for row in try db.query(
            "SELECT c.bundle_id, a.team_id FROM clip c JOIN app a ON a.bundle_id = c.app_bundle_id ORDER BY c.bundle_id")
        {
            let bundle = try row.string("bundle_id")
            do {
                let clip = AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(bundle))
                if let d = try loadDefaultExperience(clip) {
                    for (locale, l) in d.localizations.sorted(by: { $0.key < $1.key }) {
                        if let e = DefaultExperience.checkLocale(locale, field: "locale") {
                            problems.note("default experience of \(bundle)", e.description)
                        }
                        for problem in DefaultExperience.checkSubtitle(l.subtitle, field: "\(locale).subtitle") {
                            problems.note("default experience of \(bundle)", problem.description)
                        }
                    }
                    if d.version < 1 {
                        problems.note("default experience of \(bundle)", "version \(d.version) is not a version this registry issues")
                    }
                }
            } catch { problems.note("clip \(bundle)", error) }
        }
    }

    /// API tokens read back, with names within the limits.
    func checkTokens(_ problems: inout ContentProblems) throws {
        for row in try db.query("SELECT * FROM api_token ORDER BY id") {
            do {
                let token = try readToken(row)
                for problem in TextLimits.checkTokenName(token.name) { problems.note("token \(token.id)", problem.description) }
            } catch { problems.note("token \(try row.int("id"))", error) }
        }
    }

    /// App Store Connect links read back (a clip of the registry, its team's App ID).
    func checkAppStoreConnectLinks(_ problems: inout ContentProblems) throws {
        for row in try db.query(Self.linkColumns + " ORDER BY l.clip_bundle_id") {
            do { _ = try readLink(row) } catch { problems.note("App Store Connect link of \(try row.string("clip_bundle_id"))", error) }
        }
    }

    /// Hosts are stored normalized (every lookup normalizes the host it is given); each AASA reads
    /// back within 128 KB and passes the lint; host holders read back and hold every team object.
    func checkHosts(_ problems: inout ContentProblems) throws {
        for row in try db.query(
            """
            SELECT 'domain association' AS kind, host FROM domain_association UNION SELECT 'applinks', host FROM applinks_details
            UNION SELECT 'applinks settings', host FROM applinks_host UNION SELECT 'webcredentials', host FROM webcredentials
            UNION SELECT 'host holder', host FROM host_team ORDER BY host, kind
            """)
        {
            let host = try row.string("host"), kind = try row.string("kind")
            do {
                if try Self.normalizeHost(host) != host { problems.note("\(kind) on \(host)", "the host is not in normalized form") }
            } catch { problems.note("\(kind) on \(host)", error) }
        }
        for host in try aasaHosts() where (try? Self.normalizeHost(host)) == host {
            // It reads back, within 128 KB and passing the lint: the invariant every write keeps.
            do { try checkAASA(host) } catch { problems.note("AASA of \(host)", error) }
        }
        for row in try db.query("SELECT DISTINCT host FROM host_team ORDER BY host") {
            let host = try row.string("host")
            do { _ = try loadOwnership(host) } catch { problems.note("host holders of \(host)", error) }
        }
        for violation in try hostOwnershipViolations() { problems.note(violation, "the team does not hold the host (HostOwnership)") }
    }

    /// Change records' before and after are JSON.
    func checkChangeRecords(_ problems: inout ContentProblems) throws {
        var since: Int64 = 0
        while true {
            let page = try db.query(
                "SELECT id, before, after FROM change_record WHERE id > ? ORDER BY id LIMIT 1000", [.integer(since)])
            guard let last = page.last else { break }
            since = Int64(try last.int("id"))
            for row in page {
                for column in ["before", "after"] {
                    guard let text = try row.optionalString(column) else { continue }
                    do { _ = try JSONParser.parse(text) } catch {
                        problems.note("change record \(try row.int("id"))", "\(column) is not JSON: \(error)")
                    }
                }
            }
        }
    }

    /// Team objects on hosts their team does not hold (the invariant of ClipCore/HostOwnership.swift
    /// that `hold` enforces on every write), as "kind of TEAM on HOST".
    public func hostOwnershipViolations() throws(RegistryError) -> [String] {
        try guarded {
            try db.query(
                Self.hostUses + """
                    SELECT DISTINCT kind, host, team_id FROM uses u
                    WHERE NOT EXISTS (SELECT 1 FROM host_team h WHERE h.host = u.host AND h.team_id = u.team_id)
                    ORDER BY host, kind, team_id
                    """
            ).map { "\(try $0.string("kind")) of \(try $0.string("team_id")) on \(try $0.string("host"))" }
        }
    }
}
