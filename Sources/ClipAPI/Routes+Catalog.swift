import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1
import StrictJSON

/// Clips, domain associations and default experiences (applinks and webcredentials: ClipApp/Features/Applinks.swift, Webcredentials.swift).
extension ClipAPI {
    func registerCatalogRoutes() {
        registerClipRoutes()
        registerDefaultExperienceRoutes()
    }

    /// Clips and their domain associations.
    func registerClipRoutes() {
        add("POST", "/v1/clips", .token) { api, c in
            let reader = FieldReader(try c.jsonBody())
            var clip: AppID?
            if let s = reader.string("clip", required: true) { clip = reader.attempt { () throws(ValidationFailure) in try AppID(s) } }
            let errors = reader.finish()
            guard errors.isEmpty, let clip else { throw Problem(RegistryError.invalid(errors)) }
            try c.checkWritable(team: clip.team)
            if (try? c.registry.clip(clip.rawValue)) != nil {
                throw Problem(RegistryError.conflict("clip \(clip.rawValue) already exists"))
            }
            let added = try c.registry.addClip(clip)
            return json(
                CatalogJSON.clip(added.value, notes: added.notes), status: 201,
                headers: [("Location", "/v1/clips/\(clip.bundleID.rawValue)")])
        }
        add("GET", "/v1/clips/{bundleId}", .token) { api, c in json(CatalogJSON.clip(try api.visibleClip(c))) }
        // Create unless it exists (clipctl clip add and default set over --server): 201 when
        // created, 200 when it existed; tenancy as POST. The path names the clip as everywhere
        // (an App ID TEAMID.bundle, whose team is then the clip's, or a bundle ID); preconditions
        // as `putPreconditions` (a clip has no versions: its ETag-less existence is all they test).
        add("PUT", "/v1/clips/{bundleId}", .token) { api, c in
            let reader = FieldReader(try c.jsonBody())
            var bundle: BundleID?, team: TeamID?, pathTeam: TeamID?
            if let appID = try? AppID(c.parameter("bundleId"), field: "bundleId") {
                (bundle, pathTeam) = (appID.bundleID, appID.team)
            } else {
                do throws(ValidationFailure) { bundle = try BundleID(c.parameter("bundleId"), field: "bundleId") } catch {
                    reader.add(error.errors)
                }
            }
            team = try c.writingTeam(reader, impliedByPath: pathTeam)
            let errors = reader.finish()
            guard errors.isEmpty, let bundle, let team else { throw Problem(RegistryError.invalid(errors)) }
            try c.checkWritable(team: team)
            let existing = try? c.registry.clip(bundle.rawValue)
            // Another team's clip: the store's "registered to another team", whatever the preconditions say.
            if existing == nil || existing?.appID.team == team {
                _ = try c.putPreconditions(kind: "c", current: existing == nil ? nil : 0, "clip \(team.rawValue).\(bundle.rawValue)")
            }
            let saved = try c.registry.addClip(AppID(team: team, bundleID: bundle))
            return json(
                CatalogJSON.clip(saved.value, notes: saved.notes), status: saved.created ? 201 : 200,
                headers: saved.created ? [("Location", "/v1/clips/\(bundle.rawValue)")] : [])
        }
        add("DELETE", "/v1/clips/{bundleId}", .token) { api, c in
            try c.registry.removeClip(try api.visibleClip(c).appID.rawValue)
            return noContent()
        }
        add("PUT", "/v1/clips/{bundleId}/domains/{host}", .token) { api, c in
            let clip = try api.visibleClip(c)
            try c.noBody()
            let added = try c.registry.addDomain(clip: clip.appID.rawValue, host: c.parameter("host"))
            let host = added.value.host
            return json(
                CatalogJSON.withNotes(CatalogJSON.association(added.value), added.notes), status: added.created ? 201 : 200,
                headers: added.created ? [("Location", "/v1/clips/\(clip.appID.bundleID.rawValue)/domains/\(host)")] : [])
        }
        add("DELETE", "/v1/clips/{bundleId}/domains/{host}", .token) { api, c in
            try c.registry.removeDomain(clip: try api.visibleClip(c).appID.rawValue, host: c.parameter("host"))
            return noContent()
        }
    }

    /// A clip's default experience.
    func registerDefaultExperienceRoutes() {
        add("GET", "/v1/clips/{bundleId}/default-experience", .token) { api, c in
            let d = try c.registry.defaultExperience(clip: try api.visibleClip(c).appID.rawValue)
            return json(CatalogJSON.defaultExperience(d), headers: [("ETag", etag("d", d.version))])
        }
        add("PUT", "/v1/clips/{bundleId}/default-experience", .token) { api, c in
            let clip = try api.visibleClip(c)
            let reader = FieldReader(try c.jsonBody())
            let action = reader.enumeration("action", Action.self, required: true)
            var localizations: [String: String] = [:], headerImages: [String: String] = [:]
            if let object = reader.object("localizations", required: true) {
                for (locale, value) in object.objectMembers ?? [] {
                    let l = FieldReader(value, path: "localizations.\(locale)")
                    if let subtitle = l.string("subtitle", required: true) { localizations[locale] = subtitle }
                    // A header image by its hash: one the team uploaded (POST /v1/images) or uses; absent keeps the current one.
                    if let image = l.string("headerImage") { headerImages[locale] = image }
                    reader.add(l.finish())
                }
            }
            let errors = reader.finish()
            guard errors.isEmpty, let action else { throw Problem(RegistryError.invalid(errors)) }
            let existing = try? c.registry.defaultExperience(clip: clip.appID.rawValue)
            let expected = try c.putPreconditions(kind: "d", current: existing?.version, "the default experience of \(clip.appID.rawValue)")
            let saved = try c.registry.setDefaultExperience(
                clip: clip.appID, action: action, localizations: localizations, headerImages: headerImages, expectedVersion: expected)
            return json(
                CatalogJSON.withNotes(CatalogJSON.defaultExperience(saved.value), saved.notes), status: saved.created ? 201 : 200,
                headers: [("ETag", etag("d", saved.value.version))])
        }
        add("DELETE", "/v1/clips/{bundleId}/default-experience", .token) { api, c in
            try c.registry.removeDefaultExperience(clip: try api.visibleClip(c).appID.rawValue)
            return noContent()
        }

    }

    /// Who holds each host (HostOwnership): administrators see and assign every host; a team sees
    /// the hosts it holds, and only its own entry of each.
    func registerHostRoutes() {
        add("GET", "/v1/domains", .token) { api, c in
            let team = try c.caller.team
            return json(ListJSON.items(try c.registry.hostOwnerships(team: team).map { api.ownershipJSON($0, for: team) }))
        }
        add("GET", "/v1/domains/{host}", .token) { api, c in
            let team = try c.caller.team
            guard let ownership = try c.registry.hostOwnerships(host: c.parameter("host"), team: team).first else {
                throw Problem.notFound(
                    "not found: host \(c.parameter("host")) (no team holds it\(team == nil ? "" : ", or it is not your team's"))")
            }
            return json(api.ownershipJSON(ownership, for: team))
        }
        add("PUT", "/v1/domains/{host}/owner", .token) { api, c in
            try c.requireAdmin()
            let reader = FieldReader(try c.jsonBody())
            var team: TeamID?
            if let t = reader.string("team", required: true) {
                team = reader.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") }
            }
            let errors = reader.finish()
            guard errors.isEmpty, let team else { throw Problem(RegistryError.invalid(errors)) }
            let claimed = try c.registry.claimHost(c.parameter("host"), team: team)
            return json(api.ownershipJSON(claimed.value, for: nil, notes: claimed.notes))
        }
        add("PUT", "/v1/domains/{host}/teams/{team}", .token) { api, c in
            try c.requireAdmin()
            try c.noBody()
            let team: TeamID
            do throws(ValidationFailure) { team = try TeamID(c.parameter("team"), field: "team") } catch {
                throw Problem(RegistryError.invalid(error.errors))
            }
            let shared = try c.registry.shareHost(c.parameter("host"), team: team)
            return json(api.ownershipJSON(shared.value, for: nil, notes: shared.notes), status: shared.created ? 201 : 200)
        }
        add("DELETE", "/v1/domains/{host}/teams/{team}", .token) { api, c in
            try c.requireAdmin()
            let team: TeamID
            do { team = try TeamID(c.parameter("team"), field: "team") } catch {
                throw Problem.notFound("not found: team \(c.parameter("team"))")
            }
            let unshared = try c.registry.unshareHost(c.parameter("host"), team: team)
            return json(api.ownershipJSON(unshared.value, for: nil, notes: unshared.notes))
        }
    }

    func ownershipJSON(_ ownership: HostOwnership, for team: TeamID?, notes: [WriteNote] = []) -> JSONValue {
        let visible =
            team.map { own in HostOwnership(host: ownership.host, holders: ownership.holders.filter { $0.team == own }) } ?? ownership
        return HostOwnershipJSON.ownership(visible, notes: notes)
    }

    /// `appStoreId` of a PATCH or PUT body: absent (nil) leaves it, null clears it.
    /// An app the caller may see (`AppFields.visibleApp`).
    func visibleApp(_ c: Context) throws -> App {
        try AppFields.visibleApp(c.parameter("bundleId"), in: Session(registry: c.registry, caller: c.applicationCaller))
    }

    /// A clip by the same reference as local mode (`Registry.clipID`: an App ID, whose team must
    /// be the clip's, or a bundle ID). Administrators get the store's reason, as local mode prints it.
    func visibleClip(_ c: Context) throws -> Clip {
        let raw = c.parameter("bundleId")
        let notFound = Problem.notFound("not found: clip \(raw)")
        guard (try? BundleID(raw)) != nil else { throw notFound }
        let clip: Clip
        do { clip = try c.registry.clip(raw) } catch RegistryError.notFound(let reason) {
            throw try c.caller.team == nil ? Problem(RegistryError.notFound(reason)) : notFound
        }
        try c.checkVisible(team: clip.appID.team, "clip \(raw)")
        return clip
    }
}
