package import ClipCore
import HTTP1
package import HTTPSClient

/// Every request the server or clipctl makes to an address a tenant named (webhooks, `verify`),
/// under one set of rules (README "Webhooks", SSRF; docs/operations.md#outbound-requests):
/// the URL as `WebhookTarget.check` allows it, then every address its host resolves to must be public
/// unless private targets are allowed, and the connection goes to those addresses only (libcurl is
/// given them, so a DNS answer that changes after the check is never used); a timeout; redirects
/// answered, never followed; at most a cap of the answer read, the rest never read (`Transfer`).
/// HTTPS trusts the system's CA store (/etc/ssl/certs/ca-certificates.crt).
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

    /// `method` `url` to the addresses `checkTarget` allows, at most `maxBodyBytes` of the answer's body read;
    /// `schemes` are the URL schemes allowed.
    package func exchange(
        _ method: String, _ url: String, headers: [(name: String, value: String)], body: [UInt8] = [], maxBodyBytes: Int,
        schemes: [String], isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> Result<Transfer.Response, Outbound.Failure> {
        let addresses: [IPAddress]
        switch checkTarget(url) {
        case .failure(let failure): return .failure(failure)
        case .success(let target): addresses = target.addresses
        }
        let request = Transfer.Request(
            url: url, method: method, headers: headers, body: body, timeoutSeconds: timeoutSeconds, maxBodyBytes: maxBodyBytes,
            pinnedAddresses: addresses.map(\.description), schemes: schemes, isCancelled: isCancelled)
        return Transfer.perform(request).mapError { .unreachable($0.message) }
    }

    /// GET `url` with `userAgent`: https only, at most `Outbound.maxBodyBytes` + 1 bytes of the body read.
    public func get(
        _ url: String, userAgent: String, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> Result<Outbound.Response, Outbound.Failure> {
        // Apple's bot and CDN are reached over HTTPS only (apple-spec.md §4.1).
        guard url.lowercased().hasPrefix("https://") else {
            if case .failure(let failure) = checkTarget(url) { return .failure(failure) }
            return .failure(.refused("refused: \(url) is not an https URL (Apple fetches over HTTPS only)"))
        }
        return exchange(
            "GET", url, headers: [("User-Agent", userAgent)], maxBodyBytes: Outbound.maxBodyBytes + 1, schemes: ["https"],
            isCancelled: isCancelled
        ).map { answer in
            var headers: [String: String] = [:]
            // What a remote server says is shown to people and printed to terminals: never raw (QA: an ESC in a
            // Location retitled the terminal and faked lines).
            for (name, value) in answer.headers where headers[name] == nil { headers[name] = Outbound.printable(value) }
            return Outbound.Response(status: answer.status, headers: headers, body: answer.body)
        }
    }

    /// What `verify` fetches with, under these rules.
    public func outbound(cdnBaseURL: String?, siteURLTemplate: String?) -> Outbound {
        Outbound(
            cdnBaseURL: cdnBaseURL ?? Outbound.appleCDN, siteURLTemplate: siteURLTemplate ?? Outbound.wellKnown, names: names,
            fetch: { url, agent, isCancelled in self.get(url, userAgent: agent, isCancelled: isCancelled) })
    }
}
