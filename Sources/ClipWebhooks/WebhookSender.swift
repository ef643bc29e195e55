import OutboundHTTP

/// Sends one webhook request: POST, a 2xx is success, a redirect is not followed (a failure
/// naming its Location), the answer's body is not read beyond its first few KB.
///
/// The target is checked again at delivery (README "Webhooks", SSRF): the URL as at `add`, then
/// every address its host resolves to must be public unless private targets are allowed, and the
/// request goes to an address that was checked (`OutboundHTTP.post`), so a DNS answer that changes
/// between the check and the connection (rebinding) is never used.
struct WebhookSender: Sendable {
    enum Outcome: Equatable {
        case delivered(status: Int)
        case failed(status: Int?, error: String)
    }

    let timeoutSeconds: Double
    let allowPrivateTargets: Bool

    func send(url: String, headers: [(String, String)], body: [UInt8]) -> Outcome {
        let rules = OutboundHTTP(
            timeoutSeconds: timeoutSeconds, allowPrivateTargets: allowPrivateTargets, privateTargetsOption: "serve --allow-private-targets")
        switch rules.post(url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body) {
        case .success(let answer): return Self.outcome(answer)
        case .failure(.refused(let why)), .failure(.unreachable(let why)): return .failed(status: nil, error: why)
        }
    }

    static func outcome(_ answer: OutboundHTTP.Response) -> Outcome {
        if (200...299).contains(answer.status) { return .delivered(status: answer.status) }
        if let redirect = answer.redirect {
            return .failed(status: answer.status, error: "HTTP \(answer.status) redirect to \(redirect.shownLocation ?? "?") not followed")
        }
        return .failed(status: answer.status, error: "HTTP \(answer.status)")
    }
}
