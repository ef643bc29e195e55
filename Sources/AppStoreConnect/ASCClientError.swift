import StrictJSON

/// One entry of ASC's `errors[]` (the specification's `ResponseError`): `code` is the part to act
/// on ("for programmatic error handling, use only the code property", prefix-matched: Apple,
/// "Parsing the Error Response Code"); `detail` is for people; `source` points into the request.
public struct ASCErrorItem: Equatable, Sendable {
    public var status: String
    public var code: String
    public var title: String
    public var detail: String?
    /// RFC 6901 pointer into the request body (`/data/attributes/link`).
    public var pointer: String?
    /// The query parameter at fault (`filter[bundleId]`).
    public var parameter: String?

    public init(status: String, code: String, title: String, detail: String? = nil, pointer: String? = nil, parameter: String? = nil) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.pointer = pointer
        self.parameter = parameter
    }

    /// Whether `code` is `prefix` or a more specific code under it (`ENTITY_ERROR` matches
    /// `ENTITY_ERROR.ATTRIBUTE.INVALID`).
    public func hasCode(_ prefix: String) -> Bool { code == prefix || code.hasPrefix(prefix + ".") }

    static func list(from document: JSONValue?) -> [ASCErrorItem] {
        (document?["errors"]?.arrayValue ?? []).compactMap { error in
            guard let code = error["code"]?.stringValue else { return nil }
            return ASCErrorItem(
                status: error["status"]?.stringValue ?? "", code: code, title: error["title"]?.stringValue ?? "",
                detail: error["detail"]?.stringValue, pointer: error["source"]?["pointer"]?.stringValue,
                parameter: error["source"]?["parameter"]?.stringValue)
        }
    }
}

/// What went wrong talking to App Store Connect. Texts carry ASC's own `detail` and pointer, never
/// a token.
public enum ASCClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ASC refused the request (400, 403, 404, 409, 422 …) with these errors: final, not retried.
    case rejected(status: Int, method: String, path: String, errors: [ASCErrorItem])
    /// 401 twice: with the token in use and with a fresh one. The key is revoked or the IDs are wrong.
    case unauthorized(errors: [ASCErrorItem])
    /// Still 429 after the policy's waits, or a `Retry-After` too long to wait for.
    case rateLimited(retryAfterSeconds: Double?, rateLimit: ASCRateLimit?)
    /// 5xx on every attempt.
    case serverError(status: Int, attempts: Int, errors: [ASCErrorItem])
    /// No answer in time on every attempt.
    case timedOut(attempts: Int)
    /// A POST got no usable answer (timeout or 5xx): it may or may not have been carried out, so
    /// it is not repeated; read the state before trying again.
    case outcomeUnknown(method: String, path: String, reason: String)
    case unreachable(String)
    /// The answer is not the JSON:API document the specification describes.
    case invalidResponse(String)
    /// A `links.next` pointing away from the API's origin: the token is not sent there.
    case foreignLink(String)
    case token(ASCTokenError)
    /// An upload operation kept failing.
    case uploadFailed(imageID: String, offset: Int, status: Int?)
    /// Image processing ended `FAILED` (`assetDeliveryState.errors`), or never ended.
    case imageProcessingFailed(imageID: String, errors: [String])
    case imageProcessingTimedOut(imageID: String, state: String)
    /// The work was stopped from outside (a server shutting down) between requests.
    case cancelled
    /// An image App Store Connect links to (`imageAsset.templateUrl`) could not be fetched.
    case imageUnavailable(url: String, reason: String)

    public var description: String {
        switch self {
        case .rejected(let status, let method, let path, let errors):
            let what = errors.map { error in
                var text = "\(error.code): \(error.detail ?? error.title)"
                if let pointer = error.pointer { text += " (at \(pointer))" }
                if let parameter = error.parameter { text += " (parameter \(parameter))" }
                return text
            }
            return "App Store Connect refused \(method) \(path) (\(status)): " + (what.isEmpty ? "no detail" : what.joined(separator: "; "))
        case .unauthorized(let errors):
            // A token is signed with this machine's time (iat, exp): a clock far off makes every token look expired.
            return "App Store Connect refused the key (401 with a fresh token): "
                + (errors.first?.detail ?? "check ASC_KEY_ID, ASC_ISSUER_ID and that the key is not revoked")
                + " (tokens carry this machine's time: check its clock too)"
        case .rateLimited(let retryAfter, let rateLimit):
            var text = "App Store Connect's rate limit for this key is exhausted"
            if let retryAfter { text += "; it asks to wait \(Int(retryAfter)) s" }
            if let limit = rateLimit?.hourLimit { text += " (\(limit) requests an hour)" }
            return text
        case .serverError(let status, let attempts, let errors):
            return "App Store Connect failed (\(status)) \(attempts) times" + (errors.first.map { ": \($0.detail ?? $0.title)" } ?? "")
        case .timedOut(let attempts): return "App Store Connect did not answer in time, \(attempts) times"
        case .outcomeUnknown(let method, let path, let reason):
            return "\(method) \(path) got no usable answer (\(reason)); it may have been carried out: read the state before retrying"
        case .unreachable(let reason): return reason
        case .invalidResponse(let reason): return "App Store Connect's answer is not what its specification describes: \(reason)"
        case .foreignLink(let link): return "App Store Connect's next link \(link) leaves the API's origin; not followed"
        case .token(let error): return error.description
        case .uploadFailed(let imageID, let offset, let status):
            return "uploading image \(imageID) failed at byte \(offset)" + (status.map { " (HTTP \($0))" } ?? "")
        case .imageProcessingFailed(let imageID, let errors):
            return "App Store Connect could not process image \(imageID): "
                + (errors.isEmpty ? "no reason given" : errors.joined(separator: "; "))
        case .imageProcessingTimedOut(let imageID, let state):
            return "image \(imageID) is still \(state) after waiting; run again later"
        case .cancelled: return "stopped before App Store Connect was asked again (shutting down); run it again to finish"
        case .imageUnavailable(let url, let reason): return "the image at \(url) could not be fetched: \(reason)"
        }
    }
}
