public import AppleFormats
public import ClipCore
import SQLiteDB
import StrictJSON

/// Which experience an invocation URL gets, and the Smart App Banner a page shows.
extension Registry {
    // MARK: Resolve

    /// Resolves an invocation URL. `language` (explicit) wins over `acceptLanguage`; an explicit
    /// language that names none of the 32 is an input error. `at`: the moment answered for (the clock's when nil).
    public func resolve(
        _ invocationURL: String, language: String? = nil, acceptLanguage: String? = nil, at: Instant? = nil
    ) throws(RegistryError) -> Resolution {
        let moment = at ?? instant
        let preferences = try Self.preferences(language: language, acceptLanguage: acceptLanguage)
        let url: NormalizedURL
        do { url = try NormalizedURL(invocationURL) } catch { return try Self.unresolvable(invocationURL, problem: error) }
        let preferred = preferences
        return try guarded {
            try db.read {
                var candidates = try db.query(Self.experienceColumns + " WHERE e.host = ? AND e.removed_at IS NULL", [.text(url.host)]).map(
                    readExperience)
                // At a moment asked for, as the campaigns will have changed them (docs/schedules.md#campaigns).
                if let at { candidates = try project(candidates, at: at) }
                let fallbacks = try defaultFallbacks(host: url.host)
                return Resolver.resolve(
                    invocationURL, url: url, candidates: candidates, fallbacks: fallbacks, preferences: preferred, at: moment)
            }
        }
    }

    /// The no-match answer of an invocation URL that does not normalize, or, for text that is not
    /// a URL, the input error naming the field `url` (`Resolver.isNoMatch`).
    static func unresolvable(_ invocationURL: String, problem: NormalizedURL.Problem) throws(RegistryError) -> Resolution {
        guard Resolver.isNoMatch(problem) else { throw RegistryError.invalid([problem.fieldError("url")]) }
        return Resolver.unresolvable(invocationURL, problem: problem)
    }

    /// Card languages in order of preference (`LanguagePreferences`).
    public static func preferences(language: String?, acceptLanguage: String?) throws(RegistryError) -> [Language] {
        do { return try LanguagePreferences.list(language: language, acceptLanguage: acceptLanguage) } catch {
            throw RegistryError.from(error)
        }
    }

    func defaultFallbacks(host: String) throws -> [DefaultFallback] {
        let rows = try db.query(
            """
            SELECT d.clip_bundle_id, a.team_id, a.name FROM domain_association d
            JOIN default_experience x ON x.clip_bundle_id = d.clip_bundle_id
            JOIN clip c ON c.bundle_id = d.clip_bundle_id JOIN app a ON a.bundle_id = c.app_bundle_id
            WHERE d.host = ? ORDER BY d.clip_bundle_id
            """, [.text(host)])
        return try rows.compactMap { row in
            let clip = AppID(team: try TeamID(try row.string("team_id")), bundleID: try BundleID(try row.string("clip_bundle_id")))
            return try loadDefaultExperience(clip).map { DefaultFallback(experience: $0, appName: (try? row.string("name")) ?? "") }
        }
    }

    // MARK: Smart App Banner

    public typealias BannerResult = PageBanner

    /// The banner for a page. The clip is the one the page resolves to, or the only clip
    /// associated with the page's host, or `clip` when given; a host not associated with the
    /// clip is refused (docs/apple-formats.md#smart-app-banner: the banner would not show).
    /// `at`: the moment the page's experience is resolved for (the clock's when nil).
    public func banner(
        pageURL: String, appArgument: String? = nil, clip reference: String? = nil, at: Instant? = nil
    ) throws(RegistryError) -> BannerResult {
        let url: NormalizedURL
        do { url = try NormalizedURL(pageURL) } catch { throw RegistryError.invalid([error.fieldError("url")]) }
        let chosen = try reference.map { (r) throws(RegistryError) in try clipID(r) }
        let resolution = try resolve(pageURL, at: at)
        return try guarded {
            let associated = try domains(host: url.host).map(\.clip)
            var notes: [String] = []
            var resolved: AdvancedExperience?
            if case .advanced(let e, _) = resolution.match { resolved = e }
            let clip: AppID, experienceID: Int64?
            do throws(SmartBanner.ClipChoiceProblem) {
                (clip, experienceID) = try SmartBanner.chooseClip(
                    host: url.host, associated: associated, requested: chosen, resolved: resolved)
            } catch {
                // Naming one of several clips is missing input; the others are states to change first.
                guard case .ambiguous = error else { throw RegistryError.conflict(error.message) }
                throw RegistryError.invalid([FieldError(field: "clip", rule: "required", message: error.message)])
            }
            guard let appBundle = clip.bundleID.parent else { throw RegistryError.notFound("app of clip \(clip.rawValue)") }
            let app = try self.app(appBundle)
            if app.appStoreID == nil {
                notes.append(
                    "app \(appBundle.rawValue) has no App Store ID, so the tag has no app-id; set one with clipctl app set \(appBundle.rawValue) --team \(app.team.rawValue) --app-store-id N"
                )
            }
            if appArgument != nil {
                notes.append("app-argument reaches the full app only; App Clips receive the page URL instead")
            }
            let banner = try SmartBanner.make(appStoreID: app.appStoreID, clipBundleID: clip.bundleID, appArgument: appArgument)
            return BannerResult(banner: banner, clip: clip, pageURL: pageURL, experienceID: experienceID, notes: notes)
        }
    }
}
