import ClipCore
import Dispatch
import Foundation
import Locking
import OutboundHTTP

/// How `verify` spends time and connections (docs/operations.md#has-my-change-reached-iphones): one
/// host's fetches run at once and end by `hostDeadlineSeconds`; at most `hostsAtOnce` hosts of one
/// request are verified at a time, and at most `fetchesInFlight` fetches run in the whole process,
/// whatever the number of requests and hosts.
extension Outbound {
    public static let hostsAtOnce = 4
    public static let fetchesInFlight = 24
    /// The process's fetch slots; a fetch that finds none free by its deadline is not made.
    static let fetchSlots = DispatchSemaphore(value: fetchesInFlight)

    /// Each `(url, agent)` fetched at once; what has no answer by the host's deadline is `unreachable`.
    /// A fetch still running then is left to end on its own timeout (`OutboundHTTP.timeoutSeconds`).
    func fetchAll(
        _ requests: [(url: String, agent: String)], isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> [Result<Response, Failure>] {
        let deadline = DispatchTime.now() + hostDeadlineSeconds
        let results = Locked<[Result<Response, Failure>?]>(Array(repeating: nil, count: requests.count))
        let group = DispatchGroup()
        let fetch = self.fetch, seconds = hostDeadlineSeconds
        for (i, request) in requests.enumerated() {
            group.enter()
            // A thread of its own: a fetch blocks on the network, which would starve Dispatch's few shared threads.
            Thread {
                defer { group.leave() }
                guard Outbound.fetchSlots.wait(timeout: deadline) == .success else {
                    let busy = "not fetched: \(Outbound.fetchesInFlight) fetches were in flight on this server for \(seconds) s"
                    results.withLock { $0[i] = .failure(.unreachable(busy)) }
                    return
                }
                defer { Outbound.fetchSlots.signal() }
                guard !isCancelled() else {
                    results.withLock { $0[i] = .failure(.unreachable("not fetched: the request was cancelled")) }
                    return
                }
                let result = fetch(request.url, request.agent, isCancelled)
                results.withLock { $0[i] = result }
            }.start()
        }
        _ = group.wait(timeout: deadline)
        let late = Failure.unreachable("no answer within \(Self.seconds(seconds)) (this host's checks end by then)")
        return results.withLock { $0 }.map { $0 ?? .failure(late) }
    }

    /// `body` over `items`, at most `width` at a time; the caller waits, so no more is queued than runs.
    static func boundedMap<T: Sendable, R: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) -> R) -> [R] {
        let results = Locked<[R?]>(Array(repeating: nil, count: items.count))
        let free = DispatchSemaphore(value: width)
        let group = DispatchGroup()
        for (i, item) in items.enumerated() {
            free.wait()
            group.enter()
            Thread {
                let result = body(item)
                results.withLock { $0[i] = result }
                free.signal()
                group.leave()
            }.start()
        }
        group.wait()
        return results.withLock { $0 }.map { $0! }
    }

    public static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }

    /// Why `cdnBaseURL` or `siteURLTemplate` cannot be fetched whatever the host, naming the option
    /// (`serve` refuses to start with it, exit 64); nil when both make https URLs.
    public static func settingsProblem(cdnBaseURL: String?, siteURLTemplate: String?, names: SettingNames) -> String? {
        if let url = cdnBaseURL,
            let why = url.contains("?") ? "/HOST would be added after its query" : urlProblem(url + "/example.com", given: url)
        {
            return "\(names.cdnURL) takes an https URL to which /HOST is added, such as \(appleCDN): \(why)"
        }
        if let template = siteURLTemplate {
            let form = "\(names.siteURL) takes an https URL with {host} in it, such as \(wellKnown)"
            guard template.contains("{host}") else { return form }
            if let why = urlProblem(template.replacingOccurrences(of: "{host}", with: "example.com"), given: template) {
                return "\(form): \(why)"
            }
        }
        return nil
    }

    /// Why `url`, made from the option's value `given` for a sample host, cannot be fetched.
    private static func urlProblem(_ url: String, given: String) -> String? {
        // Apple's bot and CDN are reached over HTTPS only (apple-spec.md §4.1).
        guard url.lowercased().hasPrefix("https://") else { return "\(given.prefix(60)) is not an https URL" }
        do { _ = try WebhookTarget.check(url, allowPrivate: true) } catch { return error.errors.map(\.message).joined(separator: "; ") }
        return url.contains("#") ? "a #fragment is never sent (RFC 9112 §3.2)" : nil
    }
}

/// How many verifications a server runs at once (docs/operations.md#outbound-requests): a few per team,
/// so that one team's slow or hanging sites cannot take every slot, and a bound in all. Past either a
/// verification is refused at once with 429 and `Retry-After` (RFC 6585 §4) rather than queued behind
/// fetches that may take `Outbound.hostDeadlineSeconds`. clipctl on a database (`Caller.local`) is one
/// person's process and is not counted.
public enum VerificationAdmission {
    public static let perTeam = 2
    public static let inAll = 8
    /// Seconds a refused caller is told to wait: about one host's deadline.
    public static let retryAfterSeconds = 20

    private struct Running {
        var all = 0
        var byCaller: [String: Int] = [:]
    }
    private static let running = Locked(Running())

    /// The key the caller was counted under; nil: not counted.
    static func enter(_ caller: Caller) throws -> String? {
        let key: String
        switch caller {
        case .local: return nil
        case .team(let team, _): key = "team " + team.rawValue
        case .admin, .anyone: key = "admin"
        }
        let refusal = running.withLock { running -> String? in
            if running.byCaller[key, default: 0] >= perTeam {
                return "\(perTeam) verifications of this \(key == "admin" ? "admin" : "team") are running; ask again when one ends"
            }
            if running.all >= inAll { return "\(inAll) verifications are running on this server; ask again when one ends" }
            running.all += 1
            running.byCaller[key, default: 0] += 1
            return nil
        }
        if let refusal {
            throw OperationError.tooManyAtOnce(refusal, retryAfterSeconds: retryAfterSeconds)
        }
        return key
    }

    static func leave(_ key: String?) {
        guard let key else { return }
        running.withLock { running in
            running.all -= 1
            running.byCaller[key, default: 1] -= 1
            if running.byCaller[key] == 0 { running.byCaller[key] = nil }
        }
    }
}
