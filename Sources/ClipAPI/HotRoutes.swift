import ClipCore
import ClipStore
import Foundation
public import HTTP1
import StrictJSON

/// The two hot routes, resolve and the served AASA, answered on the event loop from the request's
/// bytes (`HTTPServer`'s hot handler): no `HTTPRequest`, no `HTTPResponse`, no registry checked out,
/// the answer's head written as bytes into the connection's buffer. The answers are byte for byte
/// those of the ordinary way (`handle`, the routes and `cached`) but for the request id; anything
/// out of the common case (a condition, a client's request id, `explain`, a default experience, a URL
/// that is not plain, an error) is left to that way, which answers it as before. Each answer's log
/// line is `handle`'s, written as bytes into a buffer (`AccessLog`).
///
/// Profile (callgrind, `scripts/bench-http`): before this, building the `HTTPRequest`, the query's
/// `String`s, the route match, the registry checkout, the `HTTPResponse` and its `HTTPHeaders` and
/// serializing them were most of a request's instructions and all of its allocations.
extension ClipAPI {
    static let resolvePath: StaticString = "/v1/resolve"
    static let aasaPaths: [StaticString] = ["/.well-known/apple-app-site-association", "/apple-app-site-association"]
    /// The route templates (the metrics' labels) of those paths.
    static let resolveTemplate = resolvePath.description
    static let aasaTemplates = aasaPaths.map(\.description)
    /// The hot routes' templates, counted by number in the metrics (`Metrics.record(fixedRoute:…)`).
    static let hotRouteTemplates = [resolveTemplate] + aasaTemplates

    /// `HTTPHotHandler`: true when the answer was appended to `buffers.out`.
    public func answerHot(_ request: RequestView, _ buffers: inout HotBuffers) -> Bool {
        let isHEAD = request.isHEAD
        guard isHEAD || request.isGET else { return false }
        // A client's request id is echoed and a conditional request may be a 304: both the ordinary way.
        guard request.field("X-Request-Id") == nil, request.field("If-None-Match") == nil, request.field("If-Modified-Since") == nil
        else { return false }
        let started = monotonicSeconds()
        let path = request.path
        if path.matches(Self.resolvePath) {
            return resolveHot(request, isHEAD: isHEAD, started: started, &buffers)
        }
        for (i, aasaPath) in Self.aasaPaths.enumerated() where path.matches(aasaPath) {
            return aasaHot(request, template: Self.aasaTemplates[i], isHEAD: isHEAD, started: started, &buffers)
        }
        return false
    }

    /// `resolve` for a plain URL that resolves to an advanced experience (`LiveIndex.writeAdvancedAnswer`).
    private func resolveHot(_ request: RequestView, isHEAD: Bool, started: Double, _ buffers: inout HotBuffers) -> Bool {
        guard let query = request.query else { return false }
        // The query decoded as `QueryString.parse` does, into the connection's scratch bytes; the last item of a
        // name wins (`Context.query`).
        buffers.scratch.removeAll(keepingCapacity: true)
        var url: Range<Int>?, language: Range<Int>?, explain = false, at = false
        let wellFormed = QueryString.decodeItems(query, into: &buffers.scratch) { name, value in
            if name.matches("url") {
                url = value
            } else if name.matches("language") {
                language = value
            } else if name.matches("explain") {
                explain = true
            } else if name.matches("at") {
                at = true
            }
        }
        guard wellFormed, !explain, !at, let url, !url.isEmpty else { return false }
        let moment = pool.instant
        let preferences: [Language]
        do {
            preferences = try Registry.preferences(
                language: language.map { String(decoding: buffers.scratch[$0], as: UTF8.self) },
                acceptLanguage: request.field("Accept-Language").map { String(decoding: $0, as: UTF8.self) })
        } catch {
            return false
        }
        buffers.body.removeAll(keepingCapacity: true)
        let answer = buffers.scratch.withUnsafeBufferPointer { scratch in
            (try? pool.index.writePlainAnswer(
                invocationURL: UnsafeBufferPointer(rebasing: scratch[url]), preferences: preferences, at: moment, into: &buffers.body))
                ?? nil
        }
        switch answer {
        case .advanced?:
            writeCacheable(
                request, template: Self.resolveTemplate, policy: resolvePolicy, entityTag: nil, isHEAD: isHEAD, started: started,
                &buffers)
        case .noMatch(let host, let hostHasExperiences)?:
            // The miss as `Resolve.Output` writes it (`resolve` answers with it): "no match: " and `Resolver`'s reason around
            // the normalized (lower-cased) host, then the members of the answer but its reason (`matched`, `invocationURL`;
            // no notes without a match).
            let detailStart = buffers.scratch.count
            Self.append("no match: ", to: &buffers.scratch)
            let words = Resolver.noMatchReason(hostHasExperiences: hostHasExperiences)
            Self.append(words.before, to: &buffers.scratch)
            for i in host {
                let b = buffers.scratch[url.lowerBound + i]
                buffers.scratch.append(b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b)
            }
            Self.append(words.after, to: &buffers.scratch)
            buffers.scratch.withUnsafeBufferPointer { scratch in
                Self.writeProblem(status: 404, detail: UnsafeBufferPointer(rebasing: scratch[detailStart...]), into: &buffers.body)
                buffers.body.removeLast()
                Self.append(#","matched":null,"invocationURL":"#, to: &buffers.body)
                JSONWriter.writeString(utf8: UnsafeBufferPointer(rebasing: scratch[url]), into: &buffers.body)
                buffers.body.append(UInt8(ascii: "}"))
            }
            writeProblemAnswer(request, template: Self.resolveTemplate, status: 404, isHEAD: isHEAD, started: started, &buffers)
        case nil:
            return false
        }
        return true
    }

    /// `servedAASA` for a host that has an AASA file (the read model's cache).
    private func aasaHot(_ request: RequestView, template: String, isHEAD: Bool, started: Double, _ buffers: inout HotBuffers) -> Bool {
        guard let host = request.host, !host.isEmpty else { return false }
        // The port is not part of the association (docs/apple-formats.md#appclips).
        let name = UnsafeBufferPointer(rebasing: host[..<(host.firstIndex(of: UInt8(ascii: ":")) ?? host.endIndex)])
        buffers.body.removeAll(keepingCapacity: true)
        guard let normalized = try? normalizedHosts.normalize(name) else {
            Self.append(Self.aasaUnknownHost, to: &buffers.body)
            buffers.scratch.removeAll(keepingCapacity: true)
            buffers.body.withUnsafeBufferPointer { Self.writeProblem(status: 404, detail: $0, into: &buffers.scratch) }
            swap(&buffers.body, &buffers.scratch)
            writeProblemAnswer(request, template: template, status: 404, isHEAD: isHEAD, started: started, &buffers)
            return true
        }
        let found: LiveIndex.AASAFile?
        do { found = try pool.index.aasa(host: normalized) } catch { return false }  // the database's error: the ordinary way's
        guard let file = found else {
            // `RegistryError.notFound`'s problem (`Problem.init`: "not found: " and what was not).
            buffers.scratch.removeAll(keepingCapacity: true)
            Self.append("not found: ", to: &buffers.scratch)
            Self.append(Self.aasaNotConfigured.before, to: &buffers.scratch)
            var normalized = normalized
            normalized.withUTF8 { buffers.scratch.append(contentsOf: $0) }
            Self.append(Self.aasaNotConfigured.after, to: &buffers.scratch)
            buffers.scratch.withUnsafeBufferPointer { Self.writeProblem(status: 404, detail: $0, into: &buffers.body) }
            writeProblemAnswer(request, template: template, status: 404, isHEAD: isHEAD, started: started, &buffers)
            return true
        }
        buffers.body.append(contentsOf: file.bytes)
        writeCacheable(request, template: template, policy: aasaPolicy, entityTag: file.etag, isHEAD: isHEAD, started: started, &buffers)
        return true
    }

    /// The served AASA's 404 problems (`servedAASA`): a host that is not one, and one with nothing configured.
    static let aasaUnknownHost: StaticString = "no apple-app-site-association for this host"
    static let aasaNotConfigured: (before: StaticString, after: StaticString) = (
        "AASA for ", ": no clip, applinks rule or webcredentials is configured for this host"
    )

    @inline(__always) static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `Problem.response`'s body without field errors or extra members (`ProblemJSON.problem`, written by
    /// `JSONWriter`): the same members in the same order, `detail` escaped by the same writer.
    static func writeProblem(status: Int, detail: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        append(#"{"type":"about:blank","title":"#, to: &out)
        JSONWriter.write(.string(HTTPStatus.reason(status)), into: &out)
        append(#","status":"#, to: &out)
        JSONWriter.writeInteger(Int64(status), into: &out)
        append(#","detail":"#, to: &out)
        JSONWriter.writeString(utf8: detail, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// The problem answer with `buffers.body` as `handle` and `ResponseWriter` make it: a public route's error
    /// carries no caching fields (`CachePolicy.apply`); counted in the metrics as `handle` counts it.
    private func writeProblemAnswer(
        _ request: RequestView, template: String, status: Int, isHEAD: Bool, started: Double, _ buffers: inout HotBuffers
    ) {
        let requestID = buffers.appendAnswer(status: status, contentType: "application/problem+json", isHEAD: isHEAD)
        observe(request, template: template, status: status, isHEAD: isHEAD, started: started, requestID: buffers.out[requestID])
    }

    /// Counted in the metrics as `handle` counts it, and logged with `handle`'s line, member for member (a
    /// `JSONValue` object written by `JSONWriter`), into the access log's buffer. `requestID`: the head's.
    private func observe(
        _ request: RequestView, template: String, status: Int, isHEAD: Bool, started: Double, requestID: ArraySlice<UInt8>
    ) {
        let seconds = monotonicSeconds() - started
        if let route = Self.hotRouteTemplates.firstIndex(of: template), status == 200 || status == 404 {
            metrics.record(fixedRoute: route, isHEAD: isHEAD, notFound: status == 404, seconds: seconds)
        } else {
            metrics.record(route: template, method: isHEAD ? "HEAD" : "GET", status: status, seconds: seconds)
        }
        guard let accessLog else { return }
        accessLog.append { line in
            Self.append(#"{"time":""#, to: &line)
            AccessLog.appendNow(to: &line)
            // "error" from 500 on: the hot routes answer 200 and 404 only.
            Self.append(#"","level":"info","msg":"request","requestId":""#, to: &line)
            line.append(contentsOf: requestID)
            Self.append(isHEAD ? #"","method":"HEAD","route":"# : #"","method":"GET","route":"#, to: &line)
            JSONWriter.write(.string(template), into: &line)
            Self.append(#","status":"#, to: &line)
            JSONWriter.writeInteger(Int64(status), into: &line)
            Self.append(#","durationMs":"#, to: &line)
            AccessLog.appendMilliseconds(seconds, to: &line)
            Self.append(#","remote":"#, to: &line)
            JSONWriter.write(.string(request.remoteAddress), into: &line)
            line.append(UInt8(ascii: "}"))
        }
    }

    /// The 200 with `buffers.body`, its head as `cached` (`CachePolicy.apply`), `handle` (the request id) and
    /// `ResponseWriter` make it, in their order; counted in the metrics as `handle` counts it. The fields that are
    /// the same for every answer of the route (`CachePolicy.fieldLines`) are bytes made once (the head's Strings
    /// were 6% of a resolve request's instructions under callgrind).
    private func writeCacheable(
        _ request: RequestView, template: String, policy: CachePolicy, entityTag: String?, isHEAD: Bool, started: Double,
        _ buffers: inout HotBuffers
    ) {
        let now = Int64(Date().timeIntervalSince1970)
        let changed = (try? pool.index.lastChange()).flatMap { lastChangeSeconds($0) }
        let requestID = buffers.appendAnswer(
            status: 200, contentType: "application/json", entityTag: entityTag.map { .given($0) } ?? .ofBody,
            cachingFields: policy.fieldLines, lastModified: changed.map { min($0, now) }, isHEAD: isHEAD)
        observe(request, template: template, status: 200, isHEAD: isHEAD, started: started, requestID: buffers.out[requestID])
    }
}
