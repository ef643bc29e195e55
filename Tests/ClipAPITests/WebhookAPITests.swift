@testable import ClipAPI
import ClipCore
import Foundation
import HTTP1
import StrictJSON
import Testing

/// `/v1/webhooks` and its tenancy (the delivery worker's tests are in ClipWebhooksTests).
@Suite(.serialized) struct WebhookAPITests {
    func body(_ r: HTTPClient.Response) throws -> JSONValue { try JSONParser.parse(r.text) }

    @Test(arguments: APITransport.allCases) func teamsManageOnlyTheirOwnEndpoints(_ transport: APITransport) throws {
        let f = try APIFixture(transport)
        let add = #"{"url":"https://hooks.a.example.com/in","events":["experience.*","aasa.changed"]}"#
        let created = try f.call("POST", "/v1/webhooks", token: f.teamA, json: add)
        #expect(created.status == 201, "\(created.text)")
        let answer = try body(created)
        #expect(answer["secret"]?.stringValue?.hasPrefix("whsec_") == true)
        #expect(answer["team"]?.stringValue == "ABCDE12345")  // a team token's endpoint is its team's
        #expect(created.headers["Cache-Control"] == "no-store")
        let id = try #require(answer["id"].flatMap { if case .integer(let n) = $0 { n } else { nil } })
        // The secret is shown once: never listed.
        let listed = try f.call("GET", "/v1/webhooks", token: f.teamA)
        #expect(listed.status == 200 && !listed.text.contains("whsec_") && listed.text.contains("hooks.a.example.com"))
        #expect(try f.call("GET", "/v1/webhooks", token: f.admin).text.contains("hooks.a.example.com"))

        let before = try tableDump(f.path)
        // Team B: not its endpoint, so not found, whatever it tries; nothing changes.
        #expect(try !f.call("GET", "/v1/webhooks", token: f.teamB).text.contains("hooks.a.example.com"))
        for (method, path) in [
            ("DELETE", "/v1/webhooks/\(id)"), ("POST", "/v1/webhooks/\(id)/test"), ("POST", "/v1/webhooks/\(id)/enable"),
            ("GET", "/v1/webhooks/\(id)/deliveries"),
        ] {
            let r = try f.call(method, path, token: f.teamB)
            #expect(r.status == 404, "\(method) \(path) as team B: \(r.status) \(r.text)")
        }
        // Team B cannot subscribe to team A's events.
        let other = #"{"url":"https://hooks.b.example.com/in","events":["*"],"team":"ABCDE12345"}"#
        #expect(try f.call("POST", "/v1/webhooks", token: f.teamB, json: other).status == 403)
        #expect(try tableDump(f.path) == before)

        // The same add twice is a conflict; a refused add changes nothing.
        let again = try f.call("POST", "/v1/webhooks", token: f.teamA, json: add)
        #expect(again.status == 409)
        #expect(try f.jsonOf(again)["existing"]?.stringValue == "/v1/webhooks/\(id)")
        for hostile in [
            #"{"url":"file:///etc/passwd","events":["*"]}"#, #"{"url":"gopher://x.example/","events":["*"]}"#,
            #"{"url":"http://169.254.169.254/latest/meta-data/","events":["*"]}"#, #"{"url":"http://[::ffff:127.0.0.1]/","events":["*"]}"#,
            #"{"url":"http://0x7f000001/","events":["*"]}"#, #"{"url":"http://2130706433/","events":["*"]}"#,
            #"{"url":"https://a.example\u200B.com/","events":["*"]}"#, #"{"url":"https://x.example.com/","events":["nope.*"]}"#,
            #"{"url":"https://x.example.com/","events":[]}"#, #"{"url":"https://x.example.com/"}"#,
            #"{"url":"https://\#(String(repeating: "a", count: 10_000)).example/","events":["*"]}"#,
        ] {
            let r = try f.call("POST", "/v1/webhooks", token: f.teamA, json: hostile)
            #expect(r.status == 422, "\(hostile.prefix(80)): \(r.status) \(r.text)")
        }
        #expect(try tableDump(f.path) == before)
        #expect(try f.call("GET", "/v1/webhooks/abc/deliveries", token: f.teamA).status == 404)
        #expect(try f.call("GET", "/v1/webhooks/99/deliveries", token: f.admin).status == 404)

        // Its own team: test, deliveries, remove.
        let tested = try f.call("POST", "/v1/webhooks/\(id)/test", token: f.teamA)
        #expect(tested.status == 202)
        let deliveries = try f.call("GET", "/v1/webhooks/\(id)/deliveries", token: f.teamA)
        #expect(deliveries.status == 200 && deliveries.text.contains("webhook.test"))
        #expect(try f.call("DELETE", "/v1/webhooks/\(id)", token: f.teamA).status == 204)
        #expect(try f.call("GET", "/v1/webhooks/\(id)/deliveries", token: f.teamA).status == 404)
    }

    @Test func anAdministratorsEndpointMayHaveNoTeam() throws {
        let f = try APIFixture(.inProcess)
        let r = try f.call("POST", "/v1/webhooks", token: f.admin, json: #"{"url":"https://hooks.example.com/all","events":["*"]}"#)
        #expect(r.status == 201)
        #expect(try body(r)["team"] == .null)
        // Without a token: 401.
        #expect(try f.call("GET", "/v1/webhooks").status == 401)
    }
}
