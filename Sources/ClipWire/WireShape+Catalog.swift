public import ClipCore
public import AppleFormats
public import StrictJSON

// The catalog's shapes (docs/http-api.md): apps, clips, domain associations, who holds a host, default
// experiences, applinks and webcredentials, webhook endpoints and their deliveries, each with its reader beside
// its writer (`WireShape`).

extension App: WireShape {
    public var json: JSONValue { CatalogJSON.app(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.app(json: json) }
}

extension Clip: WireShape {
    public var json: JSONValue { CatalogJSON.clip(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.clip(json: json) }
}

/// A page's Smart App Banner tag with its notes (`GET /v1/banner`).
extension PageBanner: WireShape {
    public var json: JSONValue { CatalogJSON.banner(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.banner(json: json) }
}

extension DomainAssociation: WireShape {
    public var json: JSONValue { CatalogJSON.association(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.association(json: json) }
}

extension HostOwnership: WireShape {
    public var json: JSONValue { HostOwnershipJSON.ownership(self) }
    public init(json: JSONValue) throws(WireError) { self = try HostOwnershipJSON.ownership(json: json) }
}

extension DefaultExperience: WireShape {
    public var json: JSONValue { CatalogJSON.defaultExperience(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.defaultExperience(json: json) }
}

extension ApplinksDetails: WireShape {
    public var json: JSONValue { CatalogJSON.applinks(self) }
    public init(json: JSONValue) throws(WireError) { self = try CatalogJSON.applinks(json: json, host: "the host") }
}

/// A host's applinks settings as stored: `defaults` and `substitutionVariables`, null when none.
extension ApplinksHostSettings: WireShape {
    public var json: JSONValue { CatalogJSON.applinksSettings(self) }
    public init(json: JSONValue) throws(WireError) {
        guard case .object = json else { throw WireError("applinks settings: not an object") }
        // JSONValue is nil-literal-expressible: spell out Optional.none for JSON null.
        let stored = { (member: String) in json[member].flatMap { $0.isNull ? JSONValue?.none : .some($0) } }
        self.init(defaults: stored("defaults"), substitutionVariables: stored("substitutionVariables"))
    }
}

/// Applinks generated from a host's experiences, on or off, and the experience URLs the generated components
/// still do not give to their app (`PUT /v1/domains/{host}/applinks-generation`).
public struct ApplinksGenerated: WireShape, Equatable {
    public var host: String
    public var enabled: Bool
    public var unmatched: [ExperienceApplinks.Miss]
    public init(host: String, enabled: Bool, unmatched: [ExperienceApplinks.Miss]) {
        (self.host, self.enabled, self.unmatched) = (host, enabled, unmatched)
    }
    public var json: JSONValue { CatalogJSON.applinksGeneration(host: host, enabled: enabled, unmatched: unmatched) }
    public init(json: JSONValue) throws(WireError) {
        host = json["host"]?.stringValue ?? ""
        enabled = json["fromExperiences"]?.boolValue ?? false
        unmatched = try CatalogJSON.applinksGeneration(json: json).value
    }
}

/// An app in a host's webcredentials: `{host, app}`, the app by its bundle ID.
public struct WebcredentialsEntry: WireShape, Equatable {
    public var host: String
    public var app: String
    public init(host: String, app: String) { (self.host, self.app) = (host, app) }
    public var json: JSONValue { .object(["host": .string(host), "app": .string(app)]) }
    public init(json: JSONValue) throws(WireError) {
        let r = WireReader(json, "webcredentials")
        (host, app) = (try r.string("host"), try r.string("app"))
    }
}

extension WebhookEndpoint: WireShape {
    public var json: JSONValue { WebhookJSON.endpoint(self) }
    public init(json: JSONValue) throws(WireError) { self = try WebhookJSON.endpoint(json: json) }
}

/// A webhook endpoint just added, with its secret: shown this once (docs/webhooks.md).
public struct NewWebhook: WireShape {
    public var endpoint: WebhookEndpoint
    public var secret: String
    public init(endpoint: WebhookEndpoint, secret: String) { (self.endpoint, self.secret) = (endpoint, secret) }
    public var json: JSONValue { WebhookJSON.created(endpoint, secret: secret) }
    public init(json: JSONValue) throws(WireError) { (endpoint, secret) = try WebhookJSON.created(json: json) }
}

/// A `webhook.test` event queued for an endpoint: the endpoint and the event's `webhook-id`.
public struct WebhookTestEvent: WireShape {
    public var endpoint: WebhookEndpoint
    public var messageID: String
    public init(endpoint: WebhookEndpoint, messageID: String) { (self.endpoint, self.messageID) = (endpoint, messageID) }
    public var json: JSONValue { WebhookJSON.tested(endpoint, messageID: messageID) }
    public init(json: JSONValue) throws(WireError) { (endpoint, messageID) = try WebhookJSON.tested(json: json) }
}

/// An endpoint's latest deliveries, newest first (`GET /v1/webhooks/{id}/deliveries`); with the endpoint itself
/// (`webhook`) where a command read it beside them, for its failure.
public struct WebhookDeliveryList: WireShape {
    public var deliveries: [WebhookDelivery]
    public var endpoint: WebhookEndpoint?
    public init(deliveries: [WebhookDelivery], endpoint: WebhookEndpoint? = nil) {
        (self.deliveries, self.endpoint) = (deliveries, endpoint)
    }
    public var json: JSONValue {
        let items = ListJSON.items(deliveries.map(WebhookJSON.delivery))
        guard let endpoint, case .object(var members) = items else { return items }
        members.append((key: "webhook", value: WebhookJSON.endpoint(endpoint)))
        return .object(members)
    }
    public init(json: JSONValue) throws(WireError) {
        endpoint = try json["webhook"].map { (v) throws(WireError) in try WebhookJSON.endpoint(json: v) }
        // The route's answer does not repeat the endpoint's id.
        let id = endpoint?.id ?? 0
        deliveries = try ListJSON.items(json: json).map { (v) throws(WireError) in try WebhookJSON.delivery(json: v, endpoint: id) }
    }
}

/// A JSON document answered as it is (a host's AASA file as the registry generates it).
public struct JSONDocument: WireShape, Equatable {
    public var json: JSONValue
    public init(json: JSONValue) { self.json = json }
}
