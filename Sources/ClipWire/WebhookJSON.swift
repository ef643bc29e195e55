public import ClipCore
import Foundation
public import StrictJSON

/// Webhook endpoints as listed (never their secret), a new endpoint with its secret (shown once),
/// and deliveries.
public enum WebhookJSON {
    public static func endpoint(_ e: WebhookEndpoint) -> JSONValue {
        .object([
            ("id", .integer(e.id)), ("url", .string(e.url)), ("events", .array(e.events.patterns.map(JSONValue.string))),
            ("team", e.team.map { .string($0.rawValue) } ?? .null), ("state", .string(e.state.rawValue)),
            ("createdAt", .string(e.createdAt)), ("failingSince", e.failingSince.map(JSONValue.string) ?? .null),
            ("failure", e.failure.map(JSONValue.string) ?? .null),
        ])
    }

    public static func created(_ e: WebhookEndpoint, secret: String) -> JSONValue {
        guard case .object(var members) = endpoint(e) else { return .null }
        members.append((key: "secret", value: .string(secret)))
        return .object(members)
    }

    public static func delivery(_ d: WebhookDelivery) -> JSONValue {
        .object([
            ("event", .integer(d.eventID)), ("webhookId", .string(d.messageID)), ("type", .string(d.type)),
            ("createdAt", .string(d.createdAt)), ("state", .string(d.deliveredAt != nil ? "delivered" : "pending")),
            ("attempts", .integer(Int64(d.attempts))),
            ("nextAttemptAt", d.nextAttemptAt.map { .string(iso8601(milliseconds: $0)) } ?? .null),
            ("lastStatus", d.lastStatus.map { .integer(Int64($0)) } ?? .null), ("lastError", d.lastError.map(JSONValue.string) ?? .null),
            ("deliveredAt", d.deliveredAt.map(JSONValue.string) ?? .null),
        ])
    }

    /// The answer of a test: the endpoint and the test event's `webhook-id`.
    public static func tested(_ e: WebhookEndpoint, messageID: String) -> JSONValue {
        .object([("webhook", endpoint(e)), ("webhookId", .string(messageID))])
    }

    static func iso8601(milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func milliseconds(iso8601 text: String) -> Int64? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))).map {
            Int64(($0.timeIntervalSince1970 * 1000).rounded())
        }
    }

    public static func endpoint(json value: JSONValue) throws(WireError) -> WebhookEndpoint {
        let r = WireReader(value, "webhook")
        let events: WebhookEventPatterns
        do { events = try WebhookEventPatterns(try r.strings("events").joined(separator: ",")) } catch { throw r.fail("events") }
        guard let state = WebhookEndpoint.State(rawValue: try r.string("state")) else { throw r.fail("state") }
        return WebhookEndpoint(
            id: try r.int64("id"), team: try r.optionalTeam("team"), url: try r.string("url"), events: events,
            createdAt: try r.string("createdAt"), state: state, failingSince: try r.optionalString("failingSince"),
            failure: try r.optionalString("failure"))
    }

    public static func created(json value: JSONValue) throws(WireError) -> (endpoint: WebhookEndpoint, secret: String) {
        (try endpoint(json: value), try WireReader(value, "webhook").string("secret"))
    }

    public static func delivery(json value: JSONValue, endpoint: Int64) throws(WireError) -> WebhookDelivery {
        let r = WireReader(value, "delivery")
        let status = try r.optionalInt64("lastStatus")
        let next = try r.optionalString("nextAttemptAt")
        return WebhookDelivery(
            endpointID: endpoint, eventID: try r.int64("event"), messageID: try r.string("webhookId"), type: try r.string("type"),
            createdAt: try r.string("createdAt"), attempts: try r.int("attempts"), nextAttemptAt: next.flatMap(milliseconds(iso8601:)),
            lastStatus: status.map { Int($0) }, lastError: try r.optionalString("lastError"),
            deliveredAt: try r.optionalString("deliveredAt"))
    }

    public static func tested(json value: JSONValue) throws(WireError) -> (endpoint: WebhookEndpoint, messageID: String) {
        let r = WireReader(value, "test")
        guard let inner = value["webhook"] else { throw r.fail("webhook") }
        return (try endpoint(json: inner), try r.string("webhookId"))
    }
}
