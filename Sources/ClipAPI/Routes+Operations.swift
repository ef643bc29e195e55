import ClipApp
import ClipCore
import ClipStore
import HTTP1
import StrictJSON

extension ClipAPI {
    /// Serves every operation of the application layer at its route (`Application.bindings`): the
    /// path parameters and query items are the input's arguments, the caller comes from the token,
    /// and the layer admits it and reads the input (docs/application-layer.md#operations-and-bindings).
    func registerOperations() {
        for binding in Application.bindings where binding.servesRoute {
            if binding.waitsOnOthers { waitingRoutes.insert("\(binding.method) \(binding.path)") }
            add(binding.method, binding.path, binding.callers, caching: binding.caching) { api, c in
                var arguments = c.preconditions
                arguments.accept = c.request.headers["Accept"]
                arguments.acceptLanguage = c.request.headers["Accept-Language"]
                for item in c.query { arguments.append(item.name, item.value) }
                for name in binding.pathParameters { arguments.append(name, c.parameters[name]) }
                if binding.takesStream {
                    // Held whole by the HTTP layer already (at most the body limit); read by the operation in chunks.
                    arguments.stream = BodyStream(type: c.mediaType, bytes: c.request.body, chunkBytes: Registry.importChunkBytes)
                } else if binding.takesBytes {
                    arguments.attachment = c.request.body
                    arguments.contentType = c.request.headers["Content-Type"]
                } else if binding.takesBody {
                    if !(binding.bodyOptional && c.request.body.isEmpty) { arguments.body = try c.jsonBody() }
                } else if binding.unreadBody == .ignored {
                    // Not read, whatever it is (`UnreadBody.ignored`).
                } else if binding.method == "GET" || binding.method == "HEAD" || binding.unreadBody == .ignoredIfJSON {
                    try c.noBody()
                } else if binding.unreadBody == .refused {
                    try Self.refuseWhatTheOperationDoesNotRead(c, binding)
                }
                if binding.takesBody || binding.takesStream || binding.takesBytes, binding.method != "GET" {
                    try Self.refuseQueryItemsTheWriteDoesNotRead(c, binding)
                }
                var session = Session(
                    registry: c.registry, caller: c.caller, outbound: api.outbound,
                    allowsPrivateTargets: api.allowsPrivateWebhookTargets, appStoreConnect: api.appStoreConnect)
                session.isCancelled = c.request.clientGone
                if c.caller == .anyone, Self.bearerSecret(c.request) != nil {
                    session.carriesValidToken = { try Self.carriesValidToken(c) }
                }
                do {
                    let answer = try binding.perform(arguments, session)
                    // 204 has no body (RFC 9110 §15.3.5).
                    if answer.status == 204 { return HTTPResponse(status: 204, headers: HTTPHeaders(answer.headers)) }
                    if let stream = answer.stream {
                        return HTTPResponse(
                            status: answer.status, headers: HTTPHeaders([(name: "Content-Type", value: stream.type)] + answer.headers),
                            body: try stream.bytes())
                    }
                    if let content = answer.content {
                        return HTTPResponse(
                            status: answer.status, headers: HTTPHeaders([(name: "Content-Type", value: content.type)] + answer.headers),
                            body: content.bytes)
                    }
                    return json(answer.json, status: answer.status, headers: answer.headers)
                } catch let partial as PartialFailure {
                    // What was done goes with the failure (an apply's `applied`).
                    let cause = Problem.of(partial.cause)
                    guard var problem = (cause as? Problem) ?? (cause as? RegistryError).map({ Problem($0) }) else { throw cause }
                    if case .object(let members) = partial.partial { problem.extra += members }
                    throw problem
                } catch {
                    throw Problem.of(error)
                }
            }
        }
    }
}

extension ClipAPI {
    /// A write reads its input from the query only: a body, or a query item it does not read (a
    /// misspelt `URL=`), is refused before anything is written rather than ignored (found by hostile QA:
    /// a typo cleared a clip's TestFlight invocations).
    static func refuseWhatTheOperationDoesNotRead(_ c: Context, _ binding: Binding) throws {
        guard c.request.body.isEmpty else {
            // A body that is not JSON is 415 first, as on every route (docs/http-api.md).
            _ = try c.jsonBody()
            throw Problem.badRequest("this route takes its input in the query, not in a body")
        }
        guard let known = binding.argumentNames else { return }
        let unknown = c.query.map(\.name).filter { !known.contains($0) }
        guard unknown.isEmpty else {
            // A query item is a request field whatever its name (`url[0]` too): unknown ones are a malformed request (400).
            throw Problem(
                status: 400, detail: "the request has fields that are unknown or read-only",
                errors: unknown.map { FieldError(field: $0, rule: "unknown", message: "is not a parameter of this route") })
        }
    }
}

extension ClipAPI {
    /// The query items of a write that reads a body are its declared query fields, each once unless it repeats (the older
    /// writes that read no body ignore what they are sent, docs/http-api.md): a misspelt `dryrun=true` or a
    /// second `dryRun` would otherwise leave the write to happen for real.
    static func refuseQueryItemsTheWriteDoesNotRead(_ c: Context, _ binding: Binding) throws {
        guard let fields = binding.fields, !c.query.isEmpty else { return }
        let declared = fields.filter { $0.place == .query }
        var errors: [FieldError] = []
        var seen: Set<String> = []
        for item in c.query {
            guard let field = declared.first(where: { $0.name == item.name }) else {
                errors.append(FieldError(field: item.name, rule: "unknown", message: "is not a parameter of this route"))
                continue
            }
            if !seen.insert(item.name).inserted && !field.repeatable {
                errors.append(FieldError(field: item.name, rule: "repeated", message: "is given more than once"))
            }
        }
        guard errors.isEmpty else {
            throw Problem(status: 400, detail: "the request has fields that are unknown or repeated", errors: errors)
        }
    }
}

extension Problem {
    /// The problem as the API sends it: `application/problem+json` with its header fields.
    var response: HTTPResponse {
        var response = HTTPResponse(status: status, contentType: "application/problem+json", body: JSONWriter.bytes(json))
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}

extension ClipAPI {
    /// Whether a request to a public route carries a live bearer token (which public routes otherwise ignore): what
    /// anyone may ask is then lifted to what a token may, as on the token routes.
    static func carriesValidToken(_ c: Context) throws -> Bool {
        guard let secret = ClipAPI.bearerSecret(c.request) else { return false }
        return try c.registry.authenticate(secret) != nil
    }
}

extension EntityTagList {
    /// Every `name` field of the request (`If-Match`, `If-None-Match`) combined, as HTTP1 reads the `#entity-tag`
    /// list (`HTTPHeaders.entityTagCondition`); nil when there is none.
    init?(_ headers: HTTPHeaders, _ name: String) {
        guard let condition = headers.entityTagCondition(name) else { return nil }
        switch condition {
        case .any: self.init(text: headers.all(name).joined(separator: ", "), condition: .any)
        case .tags(let tags):
            self.init(
                text: headers.all(name).joined(separator: ", "),
                condition: .tags(tags.map { Tag(opaque: String($0.opaque), isWeak: $0.isWeak) }))
        }
    }
}
