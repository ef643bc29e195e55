import ClipApp
import ClipCore
import Foundation
import HTTP1
import HTTPSClient

/// Sends one webhook request: POST, a 2xx is success, a redirect is not followed (a failure
/// naming its Location), the answer's body is not read beyond its first few KB.
///
/// The target is checked again at delivery (README "Webhooks", SSRF): the URL as at `add`, then
/// every address its host resolves to must be public unless private targets are allowed, and the
/// request goes to an address that was checked (over https too: `OutboundHTTP.exchange`), so a DNS
/// answer that changes between the check and the connection (rebinding) is never used.
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

    /// The receiver's Location as it may be stored and printed to a terminal (`Outbound.printable`).
    static func shown(_ location: String) -> String { Outbound.printable(location, keepingSpace: false) }

    /// Over https through `OutboundHTTP.exchange`: to the checked addresses only, 4 KiB of the answer read at most.
    private func sendTLS(url: String, headers: [(String, String)], body: [UInt8], rules: OutboundHTTP) -> Outcome {
        switch rules.exchange(
            "POST", url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body, maxBodyBytes: 4096, schemes: ["https"])
        {
        case .success(let answer): return Self.outcome(status: answer.status, location: answer.header("location"))
        case .failure(.refused(let why)), .failure(.unreachable(let why)): return .failed(status: nil, error: why)
        }
    }
}
