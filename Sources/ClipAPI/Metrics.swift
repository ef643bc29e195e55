import Locking

/// Prometheus text-format metrics (exposition format 0.0.4): requests by route template, method
/// and status; a latency histogram by route template. Raw URLs are never labels (cardinality
/// and privacy). Every label takes a bounded set of values whatever a client
/// sends: route templates plus `unmatched` and `refused`, the methods below plus `other`, and
/// statuses 100–599 (an anonymous client must not grow `/metrics` or the process).
final class Metrics: Sendable {
    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }
    /// A route's latency histogram.
    private struct Latency {
        var buckets = [Int](repeating: 0, count: Metrics.bounds.count)
        var sum = 0.0
        var count = 0
    }
    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Latency] = [:]
        /// The fixed routes' requests by `fixedIndex`, and their latency by route number.
        var fixedRequests: [Int]
        var fixedLatency: [Latency]
    }
    private let counts: Locked<Counts>
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// Routes counted by number (the hot routes): GET or HEAD, 200 or 404, without hashing the key's
    /// Strings for two dictionary probes (callgrind, AASA under `--quiet`: ~10% of a request). They
    /// are shown as every other route is.
    private let fixedRoutes: [String]
    static let fixedMethods = ["GET", "HEAD"]
    static let fixedStatuses = [200, 404]

    init(fixedRoutes: [String] = []) {
        self.fixedRoutes = fixedRoutes
        counts = Locked(
            Counts(
                fixedRequests: Array(repeating: 0, count: fixedRoutes.count * Self.fixedMethods.count * Self.fixedStatuses.count),
                fixedLatency: Array(repeating: Latency(), count: fixedRoutes.count)))
    }

    private static func fixedIndex(route: Int, isHEAD: Bool, notFound: Bool) -> Int { route * 4 + (isHEAD ? 2 : 0) + (notFound ? 1 : 0) }

    /// `record` for `fixedRoutes[route]`, GET or HEAD, answered 200 or 404.
    func record(fixedRoute route: Int, isHEAD: Bool, notFound: Bool, seconds: Double) {
        counts.withLock { counts in
            counts.fixedRequests[Self.fixedIndex(route: route, isHEAD: isHEAD, notFound: notFound)] += 1
            Self.add(seconds, to: &counts.fixedLatency[route])
        }
    }

    /// Updated in place under the lock: one probe per table, no copy of the buckets (callgrind: the
    /// copy-modify-store of four tables was 6% of an AASA request, with an allocation).
    func record(route: String, method: String, status: Int, seconds: Double) {
        let key = RequestKey(route: route, method: Self.methodLabel(method), status: (100...599).contains(status) ? status : 0)
        counts.withLock { counts in
            counts.requests[key, default: 0] += 1
            Self.add(seconds, to: &counts.latency[route, default: Latency()])
        }
    }

    private static func add(_ seconds: Double, to latency: inout Latency) {
        for (i, bound) in bounds.enumerated() where seconds <= bound { latency.buckets[i] += 1 }
        latency.sum += seconds
        latency.count += 1
    }

    /// The method label: the RFC 9110 §9 methods and PATCH (RFC 5789) as themselves, anything else `other`.
    static func methodLabel(_ method: String) -> String {
        switch method {
        case "GET": "GET"
        case "HEAD": "HEAD"
        case "POST": "POST"
        case "PUT": "PUT"
        case "PATCH": "PATCH"
        case "DELETE": "DELETE"
        case "OPTIONS": "OPTIONS"
        case "CONNECT": "CONNECT"
        case "TRACE": "TRACE"
        case "-": "-"
        default: "other"
        }
    }

    func render(experiences: [String: Int], connections: Int) -> String {
        var out = "# HELP clipregistry_http_requests_total HTTP requests answered, by route template, method and status.\n"
        out += "# TYPE clipregistry_http_requests_total counter\n"
        var counts = counts.withLock { $0 }
        // The fixed routes' counts join the others'.
        for (route, template) in fixedRoutes.enumerated() {
            for (m, method) in Self.fixedMethods.enumerated() {
                for (n, status) in Self.fixedStatuses.enumerated() {
                    let count = counts.fixedRequests[Self.fixedIndex(route: route, isHEAD: m == 1, notFound: n == 1)]
                    if count > 0 { counts.requests[RequestKey(route: template, method: method, status: status), default: 0] += count }
                }
            }
            let fixed = counts.fixedLatency[route]
            guard fixed.count > 0 else { continue }
            var latency = counts.latency[template] ?? Latency()
            for i in latency.buckets.indices { latency.buckets[i] += fixed.buckets[i] }
            latency.sum += fixed.sum
            latency.count += fixed.count
            counts.latency[template] = latency
        }
        let lines = counts.requests.map { key, count in
            "clipregistry_http_requests_total{route=\"\(key.route)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(count)\n"
        }
        for line in lines.sorted() { out += line }
        out += "# HELP clipregistry_http_request_duration_seconds Time to answer a request, by route template.\n"
        out += "# TYPE clipregistry_http_request_duration_seconds histogram\n"
        for (route, latency) in counts.latency.sorted(by: { $0.key < $1.key }) {
            for (i, bound) in Self.bounds.enumerated() {
                out += "clipregistry_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(latency.buckets[i])\n"
            }
            out += "clipregistry_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(latency.count)\n"
            out += "clipregistry_http_request_duration_seconds_sum{route=\"\(route)\"} \(latency.sum)\n"
            out += "clipregistry_http_request_duration_seconds_count{route=\"\(route)\"} \(latency.count)\n"
        }
        out += "# HELP clipregistry_experiences Advanced experiences (not removed), by status.\n# TYPE clipregistry_experiences gauge\n"
        for (status, count) in experiences.sorted(by: { $0.key < $1.key }) {
            out += "clipregistry_experiences{status=\"\(status)\"} \(count)\n"
        }
        out += "# HELP clipregistry_http_connections Open HTTP connections.\n# TYPE clipregistry_http_connections gauge\n"
        out += "clipregistry_http_connections \(connections)\n"
        return out
    }
}
