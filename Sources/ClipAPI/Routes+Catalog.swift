import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1
import StrictJSON

/// Apps, clips, domain associations, default experiences, applinks and webcredentials.
extension ClipAPI {
    func registerCatalogRoutes() {
        registerApplinksRoutes()
    }

    /// Applinks, their settings and generation, and webcredentials on a host.
    func registerApplinksRoutes() {
        add("PUT", "/v1/domains/{host}/applinks/{bundleId}", .token) { api, c in
            let app = try api.visibleApp(c)
            let reader = FieldReader(try c.jsonBody())
            let components = reader.raw("components")
            if components == nil { reader.fail("components", "required", "is required") }
            let defaults = reader.object("defaults")
            var position: Int?
            if let p = reader.number("position") {
                if p >= 0, p == p.rounded(), p < 1_000_000 {
                    position = Int(p)
                } else {
                    reader.fail("position", "range", "expected a whole number ≥ 0")
                }
            }
            let errors = reader.finish()
            guard errors.isEmpty, let components else { throw Problem(RegistryError.invalid(errors)) }
            let host = c.parameter("host")
            let stored = (try? c.registry.aasaContent(host: host))?.details.contains { $0.app.bundleID == app.bundleID } ?? false
            _ = try c.putPreconditions(kind: "l", current: stored ? 0 : nil, "applinks of \(app.bundleID.rawValue) on \(host)")
            let saved = try c.registry.setApplinks(
                host: c.parameter("host"), app: app.bundleID, components: components, defaults: defaults,
                position: position)
            return json(CatalogJSON.withNotes(CatalogJSON.applinks(saved.value), saved.notes))
        }
        add("DELETE", "/v1/domains/{host}/applinks/{bundleId}", .token) { api, c in
            try c.registry.removeApplinks(host: c.parameter("host"), app: try api.visibleApp(c).bundleID)
            return noContent()
        }
        // Host-wide settings: an administrator or the host's owner (HostOwnership, in the store).
        add("PUT", "/v1/domains/{host}/applinks-settings", .token) { api, c in
            // A merge (RFC 7396): an absent member keeps its value, null clears it.
            let reader = FieldReader(try c.jsonBody())
            let defaults: JSONValue? = reader.has("defaults") ? reader.object("defaults") ?? .null : nil
            let variables: JSONValue? = reader.has("substitutionVariables") ? reader.object("substitutionVariables") ?? .null : nil
            let errors = reader.finish()
            guard errors.isEmpty else { throw Problem(RegistryError.invalid(errors)) }
            let stored = try c.registry.setApplinksSettings(
                host: c.parameter("host"), defaults: defaults, substitutionVariables: variables, by: try c.caller.team)
            return json(CatalogJSON.withNotes(CatalogJSON.applinksSettings(stored.value), stored.notes))
        }
        add("PUT", "/v1/domains/{host}/applinks-generation", .token) { api, c in
            let reader = FieldReader(try c.jsonBody())
            let enabled = reader.bool("fromExperiences", required: true)
            let errors = reader.finish()
            guard errors.isEmpty, let enabled else { throw Problem(RegistryError.invalid(errors)) }
            let unmatched = try c.registry.setApplinksFromExperiences(host: c.parameter("host"), enabled, by: try c.caller.team)
            let host = try Registry.normalizeHost(c.parameter("host"))
            return json(CatalogJSON.applinksGeneration(host: host, enabled: enabled, unmatched: unmatched.value, notes: unmatched.notes))
        }
        add("PUT", "/v1/domains/{host}/webcredentials/{bundleId}", .token) { api, c in
            let app = try api.visibleApp(c).bundleID
            try c.noBody()
            let added = try c.registry.addWebcredentials(host: c.parameter("host"), app: app)
            let entry = CatalogJSON.webcredentials(host: try Registry.normalizeHost(c.parameter("host")), app: app)
            // 201 when this PUT added it (RFC 9110 §9.3.4), 200 when it was there already.
            return json(CatalogJSON.withNotes(entry, added.notes), status: added.created ? 201 : 200)
        }
        add("DELETE", "/v1/domains/{host}/webcredentials/{bundleId}", .token) { api, c in
            try c.registry.removeWebcredentials(host: c.parameter("host"), app: try api.visibleApp(c).bundleID)
            return noContent()
        }
    }

    /// `appStoreId` of a PATCH or PUT body: absent (nil) leaves it, null clears it.
    /// An app the caller may see (`AppFields.visibleApp`).
    func visibleApp(_ c: Context) throws -> App {
        try AppFields.visibleApp(c.parameter("bundleId"), in: Session(registry: c.registry, caller: c.applicationCaller))
    }
}
