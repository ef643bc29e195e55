import ArgParse
import ClipCore
import ClipWire
import Foundation
import StrictJSON

/// `clipctl webhook …`: on the database or, with `--server`, through `/v1/webhooks`.
extension Context {
    func webhookAdd() throws {
        let url = parsed.positional(0)!
        let eventsText = try requiredValue("events")
        let events = try parse { () throws(ValidationFailure) in try WebhookEventPatterns(eventsText) }
        let team = try parsed.value("team").map { t in try parse { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
        let allowPrivate = parsed.flag("allow-private-targets")
        if allowPrivate && remoteServer != nil {
            throw CommandFailure.usage(
                "--allow-private-targets applies to a database; a server decides for itself (serve --allow-private-targets)")
        }
        let created = try backend().addWebhook(url: url, events: events, team: team, allowPrivateTargets: allowPrivate)
        let (endpoint, secret) = created.value
        if json { return printWritten(WebhookJSON.created(endpoint, secret: secret), notes: created.notes) }
        // The secret alone on standard output (SECRET=$(clipctl webhook add …)); the rest on standard error.
        print(secret)
        io.err("webhook \(endpoint.id) (\(endpoint.team.map { "team \($0.rawValue)" } ?? "every team")) added for \(endpoint.events); ")
        io.err("the secret above is shown only once\n")
        for note in created.notes { io.err("  \(note.text)\n") }
    }

    func webhookList() throws {
        let endpoints = try backend().webhooks()
        if json { printJSON(.array(endpoints.map(WebhookJSON.endpoint))); return }
        for e in endpoints {
            let scope = (e.team.map { "team:\($0.rawValue)" } ?? "admin").padding(toLength: 15, withPad: " ", startingAt: 0)
            print("\(e.id)  \(scope)  \(e.state.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(e.url)  \(e.events)")
            if let failure = e.failure { print("    failing since \(e.failingSince ?? "?"): \(failure)") }
        }
    }

    func webhookID() throws -> Int64 {
        guard let id = Int64(parsed.positional(0)!), id > 0 else { throw CommandFailure.usage("a webhook id is a positive number") }
        return id
    }

    func webhookRemove() throws {
        let endpoint = try backend().removeWebhook(id: try webhookID())
        if json { printJSON(WebhookJSON.endpoint(endpoint)) } else { print("removed webhook \(endpoint.id) (\(endpoint.url))") }
    }

    func webhookTest() throws {
        let (endpoint, message) = try backend().testWebhook(id: try webhookID())
        if json { return printJSON(WebhookJSON.tested(endpoint, messageID: message)) }
        print("queued webhook.test \(message) for webhook \(endpoint.id) (\(endpoint.url)); clipctl serve sends it")
    }

    func webhookEnable() throws {
        let endpoint = try backend().enableWebhook(id: try webhookID())
        if json { printJSON(WebhookJSON.endpoint(endpoint)) } else { print("webhook \(endpoint.id) is \(endpoint.state.rawValue)") }
    }

    func webhookDeliveries() throws {
        let id = try webhookID()
        var limit = 20
        if let text = parsed.value("limit") {
            guard let n = Int(text), (1...1000).contains(n) else { throw CommandFailure.usage("--limit takes a number from 1 to 1000") }
            limit = n
        }
        let backend = try backend()
        let deliveries = try backend.webhookDeliveries(id: id, limit: limit)
        if json { printJSON(.array(deliveries.map(WebhookJSON.delivery))); return }
        if let endpoint = try backend.webhooks().first(where: { $0.id == id }), let failure = endpoint.failure {
            print("webhook \(id) is failing since \(endpoint.failingSince ?? "?"): \(failure)")
        }
        for d in deliveries {
            let state = d.deliveredAt.map { "delivered \($0)" } ?? "pending, \(d.attempts) attempts"
            let last = d.lastError ?? d.lastStatus.map { "HTTP \($0)" } ?? ""
            print("\(d.eventID)  \(d.messageID)  \(d.type)  \(state)\(last.isEmpty ? "" : "  last: \(last)")")
        }
    }
}
