import ClipApp
import ClipCore
import Foundation
import HTTP1
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one webhook request: POST, a 2xx is success, a redirect is not followed (a failure
/// naming its Location), the answer's body is not read beyond its first few KB.
///
/// The target is checked again at delivery (README "Webhooks", SSRF): the URL as at `add`, then
/// every address its host resolves to must be public unless private targets are allowed. Over
/// http the request goes to the address that was checked. Over https URLSession resolves the name
/// again itself, so a DNS answer that changes between the check and the connection (rebinding)
/// is not caught there.
struct WebhookSender: Sendable {
    enum Outcome: Equatable {
        case delivered(status: Int)
        case failed(status: Int?, error: String)
    }

    let timeoutSeconds: Double
    let allowPrivateTargets: Bool

    func send(url: String, headers: [(String, String)], body: [UInt8]) -> Outcome {
        let rules = OutboundHTTP(timeoutSeconds: timeoutSeconds, allowPrivateTargets: allowPrivateTargets, names: .serve)
        let parts: WebhookTarget.URLParts, first: IPAddress
        switch rules.checkTarget(url) {
        case .failure(.refused(let why)), .failure(.unreachable(let why)): return .failed(status: nil, error: why)
        case .success(let target):
            parts = target.parts
            first = target.addresses[0]
        }
        if parts.scheme == "https" { return sendTLS(url: url, headers: headers, body: body, rules: rules) }
        let bytes: [UInt8]
        switch first {
        case .v4(let b), .v6(let b): bytes = b
        }
        let hostField = (parts.address.map { if case .v6 = $0 { true } else { false } } ?? false) ? "[\(parts.host)]" : parts.host
        var head = "POST \(parts.target) HTTP/1.1\r\nHost: \(hostField)\(parts.port == 80 ? "" : ":\(parts.port)")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        do {
            let response = try HTTPClient.exchange(
                address: bytes, port: parts.port, request: Array(head.utf8) + body, timeoutSeconds: timeoutSeconds)
            return Self.outcome(status: response.status, location: response.headers["Location"])
        } catch {
            return .failed(status: nil, error: error.errno == ETIMEDOUT ? "no answer within \(timeoutSeconds) s" : "\(error)")
        }
    }

    static func outcome(status: Int, location: String?) -> Outcome {
        switch status {
        case 200...299: return .delivered(status: status)
        case 300...399:
            return .failed(status: status, error: "HTTP \(status) redirect to \(location.map(Self.shown) ?? "?") not followed")
        default: return .failed(status: status, error: "HTTP \(status)")
        }
    }

    /// The receiver's Location as it may be stored and printed to a terminal: every byte outside printable ASCII
    /// percent-encoded (RFC 3986 §2.1: a URL carries no others; this also defuses terminal escape sequences), at most
    /// 300 bytes of it.
    static func shown(_ location: String) -> String {
        var out = ""
        for byte in location.utf8.prefix(300) {
            if (0x21...0x7E).contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return location.utf8.count > 300 ? out + "…" : out
    }

    private func sendTLS(url: String, headers: [(String, String)], body: [UInt8], rules: OutboundHTTP) -> Outcome {
        guard let target = URL(string: url) else { return .failed(status: nil, error: "malformed URL") }
        var request = URLRequest(url: target, timeoutInterval: timeoutSeconds)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body)
        let session = rules.session()
        defer { session.finishTasksAndInvalidate() }
        let result = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { _, response, error in
            let outcome: Outcome
            if let http = response as? HTTPURLResponse {
                outcome = Self.outcome(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location"))
            } else {
                outcome = .failed(status: nil, error: error.map { "\($0.localizedDescription)" } ?? "no answer")
            }
            result.value.withLock { $0 = outcome }
            done.signal()
        }.resume()
        if done.wait(timeout: .now() + timeoutSeconds + 5) == .timedOut {
            return .failed(status: nil, error: "no answer within \(timeoutSeconds) s")
        }
        return result.value.withLock { $0 } ?? .failed(status: nil, error: "no answer")
    }
}

private final class OutcomeBox: Sendable {
    let value = Locked<WebhookSender.Outcome?>(nil)
}
