import ClipCore
import HTTP1
import HTTPSClient

#if canImport(Glibc)
    import Glibc
#endif

/// Every request the server or clipctl makes to an address a tenant named (webhooks, `verify`, the propagation watch),
/// under one set of rules (README "Webhooks", SSRF; docs/operations.md#outbound-requests): the URL as
/// `WebhookTarget.check` allows it, then every address its host resolves to must be public unless private targets are
/// allowed, and the connection goes to those addresses only (so a DNS answer that changes after the check is never
/// used); a timeout; redirects answered, never followed (`Redirect`); at most a cap of the answer read, the rest never
/// read. HTTPS goes through libcurl (`Transfer`), which trusts the system's CA store
/// (/etc/ssl/certs/ca-certificates.crt); a webhook's plain http through `HTTPClient.exchange`.
public struct OutboundHTTP: Sendable {
    public let timeoutSeconds: Double
    public let allowPrivateTargets: Bool
    /// The option of this process that relaxes the address rules, named in refusals: `serve`'s on a server,
    /// `verify`'s on a database, never another command's.
    public let privateTargetsOption: String

    public init(timeoutSeconds: Double, allowPrivateTargets: Bool, privateTargetsOption: String) {
        self.timeoutSeconds = timeoutSeconds
        self.allowPrivateTargets = allowPrivateTargets
        self.privateTargetsOption = privateTargetsOption
    }

    /// An answer: its status, its header fields by lower-cased name (the first of each), and its body as far as it
    /// was read.
    public struct Response: Sendable, Equatable {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]
        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The redirect the answer is, not followed; nil for any other answer.
        public var redirect: Redirect? { Redirect(status: status, location: headers["location"]) }
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The address rules refused the target before any connection (a private address, `localhost`).
        case refused(String)
        /// No answer: DNS, connection, TLS, timeout.
        case unreachable(String)
    }

    /// Read this much of a fetched answer at most (`get`), one byte more to tell a larger file.
    public static let maxBodyBytes = 256 * 1024

    /// The URL's parts and the addresses its host has, or why it is refused (`refused:` …) or not reached.
    /// The address rules are WebhookTarget's, told with the option of this process that relaxes them.
    func checkTarget(_ url: String) -> Result<(parts: WebhookTarget.URLParts, addresses: [IPAddress]), Failure> {
        let parts: WebhookTarget.URLParts
        do { parts = try WebhookTarget.check(url, allowPrivate: true) } catch {
            return .failure(.refused("refused: \(error.errors.map(\.message).joined(separator: "; "))"))
        }
        let allows = "requests go to public addresses only (\(privateTargetsOption) allows others)"
        let name = parts.host.hasSuffix(".") ? String(parts.host.dropLast()) : parts.host
        if !allowPrivateTargets, name == "localhost" || name.hasSuffix(".localhost") {
            return .failure(.refused("refused: \(parts.host) is the local machine; \(allows)"))
        }
        let addresses: [IPAddress]
        if let address = parts.address {
            if !allowPrivateTargets, WebhookTarget.kind(address) != .public {
                return .failure(.refused("refused: \(address) is \(WebhookTarget.kind(address).withArticle) address; \(allows)"))
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
                .refused("refused: \(parts.host) resolves to \(bad), \(WebhookTarget.kind(bad).withArticle) address; \(allows)"))
        }
        return .success((parts, addresses))
    }

    /// `method` `url` over https through libcurl, pinned to `addresses`, at most `maxBodyBytes` of the answer's body read.
    private func transfer(
        _ method: String, _ url: String, headers: [(name: String, value: String)], body: [UInt8], maxBodyBytes: Int,
        addresses: [IPAddress], isCancelled: @escaping @Sendable () -> Bool
    ) -> Result<Transfer.Response, Failure> {
        let request = Transfer.Request(
            url: url, method: method, headers: headers, body: body, timeoutSeconds: timeoutSeconds, maxBodyBytes: maxBodyBytes,
            pinnedAddresses: addresses.map(\.description), schemes: ["https"], isCancelled: isCancelled)
        return Transfer.perform(request).mapError { .unreachable($0.message) }
    }

    /// GET `url` with `userAgent`: https only, at most `maxBodyBytes` + 1 bytes of the body read; the header values
    /// made printable (`printable`), since what a remote server says is shown to people and printed to terminals.
    public func get(
        _ url: String, userAgent: String, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> Result<Response, Failure> {
        // Apple's bot and CDN are reached over HTTPS only (apple-spec.md §4.1).
        guard url.lowercased().hasPrefix("https://") else {
            if case .failure(let failure) = checkTarget(url) { return .failure(failure) }
            return .failure(.refused("refused: \(url) is not an https URL (Apple fetches over HTTPS only)"))
        }
        let addresses: [IPAddress]
        switch checkTarget(url) {
        case .failure(let failure): return .failure(failure)
        case .success(let target): addresses = target.addresses
        }
        return transfer(
            "GET", url, headers: [("User-Agent", userAgent)], body: [], maxBodyBytes: Self.maxBodyBytes + 1, addresses: addresses,
            isCancelled: isCancelled
        ).map { answer in
            var headers: [String: String] = [:]
            // QA: an ESC in a Location retitled the terminal and faked lines.
            for (name, value) in answer.headers where headers[name] == nil { headers[name] = Self.printable(value) }
            return Response(status: answer.status, headers: headers, body: answer.body)
        }
    }

    /// POST `body` to `url` (a webhook's delivery), http or https: over https through libcurl pinned to every checked
    /// address, 4 KiB of the answer's body read at most; over http to the first checked address (`HTTPClient.exchange`:
    /// non-blocking connect, one deadline for connect, send and read, at most 8 KB of the answer read). The header
    /// values are as the receiver sent them.
    public func post(_ url: String, headers: [(name: String, value: String)], body: [UInt8]) -> Result<Response, Failure> {
        let parts: WebhookTarget.URLParts, addresses: [IPAddress]
        switch checkTarget(url) {
        case .failure(let failure): return .failure(failure)
        case .success(let target): (parts, addresses) = target
        }
        if parts.scheme == "https" {
            return transfer("POST", url, headers: headers, body: body, maxBodyBytes: 4096, addresses: addresses, isCancelled: { false })
                .map(Response.init)
        }
        let bytes: [UInt8]
        switch addresses[0] {
        case .v4(let b), .v6(let b): bytes = b
        }
        let hostField = (parts.address.map { if case .v6 = $0 { true } else { false } } ?? false) ? "[\(parts.host)]" : parts.host
        var head = "POST \(parts.target) HTTP/1.1\r\nHost: \(hostField)\(parts.port == 80 ? "" : ":\(parts.port)")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        do {
            let response = try HTTPClient.exchange(
                address: bytes, port: parts.port, request: Array(head.utf8) + body, timeoutSeconds: timeoutSeconds)
            var fields: [String: String] = [:]
            for field in response.headers where fields[field.name.lowercased()] == nil { fields[field.name.lowercased()] = field.value }
            return .success(Response(status: response.status, headers: fields, body: response.body))
        } catch {
            return .failure(.unreachable(error.errno == ETIMEDOUT ? "no answer within \(timeoutSeconds) s" : "\(error)"))
        }
    }

    /// `method` `url` to a server this process's user named (`clipctl --server`), over http or https: none of the
    /// address rules (the user chose it, on this machine as often as not), the whole answer read, given up when no
    /// byte comes or goes for `idleSeconds`; a redirect is the answer, never followed, as for every request here.
    /// The header values are as the server sent them.
    public static func send(
        _ method: String, to url: String, headers: [(name: String, value: String)], body: [UInt8], idleSeconds: Double
    ) -> Result<Response, Failure> {
        let request = Transfer.Request(
            url: url, method: method, headers: headers, body: body, timeoutSeconds: 86_400, maxBodyBytes: .max,
            schemes: ["http", "https"], idleSeconds: idleSeconds)
        return Transfer.perform(request).map(Response.init).mapError { .unreachable($0.message) }
    }

    /// Text a remote server sent, as it may be stored, answered and printed to a terminal: every byte outside
    /// printable ASCII percent-encoded (RFC 3986 §2.1; a field value or a URL carries no others worth showing, and
    /// this defuses terminal escape sequences), at most 300 bytes of it. `keepingSpace: false` for a URL, which has none.
    public static func printable(_ text: String, keepingSpace: Bool = true) -> String {
        let out = PercentEncoding.encode(text.utf8.prefix(300)) { (0x21...0x7E).contains($0) || (keepingSpace && $0 == 0x20) }
        return text.utf8.count > 300 ? out + "…" : out
    }
}

extension OutboundHTTP.Response {
    /// libcurl's answer: its header fields by name, the first of each, as sent.
    init(_ answer: Transfer.Response) {
        var fields: [String: String] = [:]
        for (name, value) in answer.headers where fields[name] == nil { fields[name] = value }
        self.init(status: answer.status, headers: fields, body: answer.body)
    }
}
