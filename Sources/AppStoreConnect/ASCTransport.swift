public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request as the App Store Connect client sends it.
public struct ASCHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    /// Header names as sent; the transport adds nothing of its own that matters to ASC.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP answer; header names lowercased (RFC 9110 §5.1: they are case-insensitive).
public struct ASCHTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why no answer came at all (as opposed to an error answer).
public enum ASCTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing arrived within the transport's timeout.
    case timedOut
    /// The connection could not be made: nothing was sent.
    case unreachable(String)
    /// The request was sent and the connection ended without an answer: it may or may not have been carried out.
    case noAnswer(String)

    public var description: String {
        switch self {
        case .timedOut: "no answer in time"
        case .unreachable(let reason): "cannot reach App Store Connect: \(reason)"
        case .noAnswer(let reason): "App Store Connect closed the connection without an answer: \(reason)"
        }
    }
}

/// Sends one request and returns whatever status came back; retries are the client's business.
public protocol ASCTransport: Sendable {
    func send(_ request: ASCHTTPRequest) async throws(ASCTransportError) -> ASCHTTPResponse
}

/// The transport over URLSession (FoundationNetworking on Linux, libcurl underneath).
///
/// A request with a body (every POST and PATCH here, which are not idempotent: RFC 9110 §9.2.2, and upload parts)
/// goes on a connection of its own, opened for it and closed after it: libcurl sends a request again by itself when a
/// reused connection turns out closed ("Connection died, retrying a fresh connect"), and FoundationNetworking's body
/// stream is spent by then, so the second copy left without its body (issue 24). On a new connection nothing is
/// re-sent; a connection closed without an answer is `.noAnswer`, for the client to treat as ambiguous.
public final class URLSessionTransport: ASCTransport {
    private let session: URLSession
    /// Seconds to wait for the connection and between bytes of an answer.
    public let timeout: Double

    public init(timeout: Double = 60) {
        self.timeout = timeout
        session = URLSession(configuration: Self.configuration(timeout: timeout))
    }

    deinit { session.finishTasksAndInvalidate() }

    static func configuration(timeout: Double) -> URLSessionConfiguration {
        // swift-corelibs-foundation takes the idle timeout from the session's configuration.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return configuration
    }

    public func send(_ request: ASCHTTPRequest) async throws(ASCTransportError) -> ASCHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let ownConnection = request.body != nil || !["GET", "HEAD", "DELETE"].contains(request.method)
        let session = ownConnection ? URLSession(configuration: Self.configuration(timeout: timeout)) : self.session
        defer { if ownConnection { session.finishTasksAndInvalidate() } }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.transportError(error)
        } catch {
            throw .unreachable(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .unreachable("the answer is not HTTP") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return ASCHTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    /// Whether the request may have reached App Store Connect: a connection never made sent nothing.
    static func transportError(_ error: URLError) -> ASCTransportError {
        switch error.code {
        case .timedOut: .timedOut
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet, .unsupportedURL, .badURL,
            .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            .unreachable(error.localizedDescription)
        default: .noAnswer(error.localizedDescription)
        }
    }
}
