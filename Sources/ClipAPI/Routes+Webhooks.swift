import ClipCore
import ClipStore
import ClipWire
import HTTP1
import StrictJSON

/// `/v1/webhooks` (README "Webhooks"): a team token sees and manages its team's endpoints only
/// (another team's answers 404, as every object of another team does) and subscribes to its own
/// team's events only; an administrator's endpoint without a team receives every team's events.
extension ClipAPI {
    func registerWebhookRoutes() {
        add("GET", "/v1/webhooks", .token) { api, c in
            json(ListJSON.items(try c.registry.webhooks(team: try c.caller.team).map(WebhookJSON.endpoint)))
        }
        add("POST", "/v1/webhooks", .token) { api, c in
            let reader = FieldReader(try c.jsonBody())
            let url = reader.string("url", required: true)
            var events: WebhookEventPatterns?
            if let list = reader.stringArray("events", required: true) {
                events = reader.attempt { () throws(ValidationFailure) in
                    try WebhookEventPatterns(list.joined(separator: ","), field: "events")
                }
            }
            var team: TeamID?
            if let t = reader.string("team") { team = reader.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
            let errors = reader.finish()
            guard errors.isEmpty, let url, let events else { throw Problem(RegistryError.invalid(errors)) }
            if let own = try c.caller.team {
                guard team == nil || team == own else {
                    throw Problem.forbidden("a team token can subscribe to its own team's events only")
                }
                team = own
            }
            let created = try c.registry.addWebhook(
                url: url, events: events, team: team, allowPrivateTargets: api.allowsPrivateWebhookTargets)
            let (endpoint, secret) = created.value
            return json(
                CatalogJSON.withNotes(WebhookJSON.created(endpoint, secret: secret), created.notes), status: 201,
                headers: [("Location", "/v1/webhooks/\(endpoint.id)"), ("Cache-Control", "no-store")])
        }
        add("DELETE", "/v1/webhooks/{id}", .token) { api, c in
            let endpoint = try api.visibleWebhook(c)
            _ = try c.registry.removeWebhook(id: endpoint.id)
            return noContent()
        }
        add("POST", "/v1/webhooks/{id}/test", .token) { api, c in
            let endpoint = try api.visibleWebhook(c)
            let tested = try c.registry.testWebhook(id: endpoint.id)
            return json(WebhookJSON.tested(tested.value.endpoint, messageID: tested.value.messageID), status: 202)
        }
        add("POST", "/v1/webhooks/{id}/enable", .token) { api, c in
            let endpoint = try api.visibleWebhook(c)
            return json(WebhookJSON.endpoint(try c.registry.enableWebhook(id: endpoint.id).value))
        }
        add("GET", "/v1/webhooks/{id}/deliveries", .token) { api, c in
            let endpoint = try api.visibleWebhook(c)
            let limit = try Self.limit(c)
            return json(ListJSON.items(try c.registry.webhookDeliveries(id: endpoint.id, limit: limit).map(WebhookJSON.delivery)))
        }
    }

    /// The endpoint of the path, when the caller may see it: another team's is not found.
    func visibleWebhook(_ c: Context) throws -> WebhookEndpoint {
        let text = c.parameter("id")
        guard let id = Int64(text), id > 0 else { throw Problem.notFound("not found: webhook \(text.prefix(40))") }
        let endpoint: WebhookEndpoint
        do { endpoint = try c.registry.webhook(id: id) } catch RegistryError.notFound { throw Problem.notFound("not found: webhook \(id)") }
        if let own = try c.caller.team, endpoint.team != own { throw Problem.notFound("not found: webhook \(id)") }
        return endpoint
    }
}
