package import ClipCore
package import Foundation
import HTTP1
import Locking

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// Every request the server or clipctl makes to an address a tenant named (webhooks, `verify`),
/// under one set of rules (README "Webhooks", SSRF; docs/operations.md#has-my-change-reached-iphones):
/// the URL as `WebhookTarget.check` allows it, then every address its host resolves to must be public
/// unless private targets are allowed; a timeout; redirects answered, never followed; at most a cap
/// of the answer's body read. Over https URLSession resolves the name again itself, so a DNS answer
/// that changes between the check and the connection (rebinding) is not caught there. HTTPS trusts
/// the system's CA store (/etc/ssl/certs/ca-certificates.crt): FoundationNetworking on Linux takes no other.
public struct OutboundHTTP: Sendable {
    public let timeoutSeconds: Double
    public let allowPrivateTargets: Bool
    /// The options of this process named in refusals: `serve`'s on a server, `verify`'s on a database.
    public let names: Outbound.SettingNames

    public init(timeoutSeconds: Double, allowPrivateTargets: Bool, names: Outbound.SettingNames = .verify) {
        self.timeoutSeconds = timeoutSeconds
        self.allowPrivateTargets = allowPrivateTargets
        self.names = names
    }

    /// The URL's parts and the addresses its host has, or why it is refused (`refused:` …) or not reached.
    /// The address rules are WebhookTarget's, told with the option of this process that relaxes them
    /// (`names.allowPrivateTargets`), never another command's.
    package func checkTarget(_ url: String) -> Result<(parts: WebhookTarget.URLParts, addresses: [IPAddress]), Outbound.Failure> {
        let parts: WebhookTarget.URLParts
        do { parts = try WebhookTarget.check(url, allowPrivate: true) } catch {
            return .failure(.refused("refused: \(error.errors.map(\.message).joined(separator: "; "))"))
        }
        let allows = "requests go to public addresses only (\(names.allowPrivateTargets) allows others)"
        let name = parts.host.hasSuffix(".") ? String(parts.host.dropLast()) : parts.host
        if !allowPrivateTargets, name == "localhost" || name.hasSuffix(".localhost") {
            return .failure(.refused("refused: \(parts.host) is the local machine; \(allows)"))
        }
        let addresses: [IPAddress]
        if let address = parts.address {
            if !allowPrivateTargets, WebhookTarget.kind(address) != .public {
                return .failure(.refused("refused: \(address) is a \(WebhookTarget.kind(address).rawValue) address; \(allows)"))
            }
            addresses = [address]
        } else {
            do {
                addresses = try HTTPClient.resolve(host: parts.host).map { $0.count == 4 ? .v4($0) : .v6($0) }
            } catch {
                return .failure(.unreachable("\(error.call)"))
            }
        }
        guard !addresses.isEmpty else { return .failure(.unreachable("\(parts.host) has no address")) }
        if !allowPrivateTargets, let bad = addresses.first(where: { WebhookTarget.kind($0) != .public }) {
            return .failure(
                .refused("refused: \(parts.host) resolves to \(bad), a \(WebhookTarget.kind(bad).rawValue) address; \(allows)"))
        }
        return .success((parts, addresses))
    }

    /// A session without cookies or cache, whose tasks time out after `timeoutSeconds` and follow no redirect.
    package func session(delegate: any URLSessionDelegate = RedirectRefuser()) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// GET `url` with `userAgent`: https only, at most `Outbound.maxBodyBytes` + 1 bytes of the body read.
    public func get(_ url: String, userAgent: String) -> Result<Outbound.Response, Outbound.Failure> {
        if case .failure(let failure) = checkTarget(url) { return .failure(failure) }
        guard url.lowercased().hasPrefix("https://"), let target = URL(string: url) else {
            return .failure(.refused("refused: \(url) is not an https URL (Apple fetches over HTTPS only)"))
        }
        var request = URLRequest(url: target, timeoutInterval: timeoutSeconds)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        let reader = CappedReader()
        let session = session(delegate: reader)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request).resume()
        if reader.done.wait(timeout: .now() + timeoutSeconds + 5) == .timedOut {
            return .failure(.unreachable("no answer within \(timeoutSeconds) s"))
        }
        return reader.result.withLock { $0 } ?? .failure(.unreachable("no answer"))
    }

    /// What `verify` fetches with, under these rules.
    public func outbound(cdnBaseURL: String?, siteURLTemplate: String?) -> Outbound {
        Outbound(
            cdnBaseURL: cdnBaseURL ?? Outbound.appleCDN, siteURLTemplate: siteURLTemplate ?? Outbound.wellKnown, names: names,
            fetch: { url, agent in self.get(url, userAgent: agent) })
    }
}

/// Answers every redirect with "do not follow", so the 3xx itself is the answer.
package class RedirectRefuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Reads an answer's body up to `limit` bytes (`Outbound.maxBodyBytes` + 1), then stops the transfer;
/// follows no redirect. (Not a subclass of `RedirectRefuser`: a subclass's delegate methods the
/// superclass left to the protocol's defaults are never called.) It keeps NSObject's `init()` and
/// declares none of its own: Swift 6.3 compiles a designated initializer on an NSObject subclass, in a
/// file that `package import`s Foundation, into a vtable thunk for `NSObject.init()` that calls itself
/// ("function call causes an infinite recursion", seen with swift-6.3.1; scripts/release allows no warning).
final class CappedReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let limit = Outbound.maxBodyBytes + 1
    let body = Locked<[UInt8]>([])
    let result = Locked<Result<Outbound.Response, Outbound.Failure>?>(nil)
    let done = DispatchSemaphore(value: 0)

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let full = body.withLock { b in
            b += data.prefix(limit - b.count)
            return b.count >= limit
        }
        if full { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let bytes = body.withLock { $0 }
        if let http = task.response as? HTTPURLResponse, error == nil || bytes.count >= limit {
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            result.withLock { $0 = .success(Outbound.Response(status: http.statusCode, headers: headers, body: bytes)) }
        } else {
            result.withLock { $0 = .failure(.unreachable(error.map { $0.localizedDescription } ?? "no answer")) }
        }
        done.signal()
    }
}
