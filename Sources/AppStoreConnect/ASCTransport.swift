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
    /// The connection could not be made or broke.
    case unreachable(String)

    public var description: String {
        switch self {
        case .timedOut: "no answer in time"
        case .unreachable(let reason): "cannot reach App Store Connect: \(reason)"
        }
    }
}

/// Sends one request and returns whatever status came back; retries are the client's business.
public protocol ASCTransport: Sendable {
    func send(_ request: ASCHTTPRequest) async throws(ASCTransportError) -> ASCHTTPResponse
}

/// The transport over URLSession (FoundationNetworking on Linux, libcurl underneath).
public final class URLSessionTransport: ASCTransport {
    private let session: URLSession
    /// Seconds to wait for the connection and between bytes of an answer.
    public let timeout: Double

    public init(timeout: Double = 60) {
        self.timeout = timeout
        // swift-corelibs-foundation takes the idle timeout from the session's configuration.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: ASCHTTPRequest) async throws(ASCTransportError) -> ASCHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError where error.code == .timedOut {
            throw .timedOut
        } catch {
            throw .unreachable(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .unreachable("the answer is not HTTP") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
        return ASCHTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}
