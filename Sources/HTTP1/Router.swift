/// Path parameters of a matched route, percent-decoded.
public struct RouteParameters: Sendable {
    public let values: [String: String]
    public subscript(_ name: String) -> String? { values[name] }
}

/// Method + path template (`/v1/experiences/{id}`) → handler. An unknown path answers 404; a
/// known path with another method 405 with `Allow` (swift-style §9.11); HEAD is served by the
/// GET handler when no HEAD route is given. Registering the same method and template twice is a
/// programming error.
public final class Router: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest, RouteParameters) -> HTTPResponse

    public struct Route: Sendable {
        public let method: String
        public let template: String
        let segments: [Segment]
        public let handler: Handler
    }

    enum Segment: Equatable, Sendable {
        case literal(String)
        case parameter(String)
    }

    public enum Match {
        case found(Route, RouteParameters)
        case notFound
        case methodNotAllowed(allow: [String])
        case badPath
    }

    public private(set) var routes: [Route] = []
    /// Routes without parameters by path, then method: the common lookup in one probe.
    private var literalRoutes: [String: [String: Int]] = [:]

    public init() {}

    public func add(_ method: String, _ template: String, _ handler: @escaping Handler) {
        precondition(!routes.contains { $0.method == method && $0.template == template }, "\(method) \(template) is registered twice")
        let segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        if !segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
            literalRoutes[template, default: [:]][method] = routes.count
        }
        routes.append(Route(method: method, template: template, segments: Array(segments), handler: handler))
    }

    public func match(method: String, path: Substring) -> Match {
        if let methods = literalRoutes[String(path)], let i = methods[method] ?? (method == "HEAD" ? methods["GET"] : nil) {
            return .found(routes[i], RouteParameters(values: [:]))
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var decoded: [String] = []
        for part in parts {
            guard let value = Self.percentDecode(part) else { return .badPath }
            decoded.append(value)
        }
        var allowed: [String] = []
        var found: (Route, RouteParameters)?
        for route in routes where route.segments.count == decoded.count {
            var parameters: [String: String] = [:]
            var ok = true
            for (segment, value) in zip(route.segments, decoded) {
                switch segment {
                case .literal(let literal): ok = literal == value
                case .parameter(let name):
                    ok = !value.isEmpty
                    parameters[name] = value
                }
                if !ok { break }
            }
            guard ok else { continue }
            allowed.append(route.method)
            if route.method == method || (method == "HEAD" && route.method == "GET" && found == nil) {
                if found == nil || route.method == method { found = (route, RouteParameters(values: parameters)) }
            }
        }
        if let found { return .found(found.0, found.1) }
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        return .methodNotAllowed(allow: allowed.sorted())
    }

    /// Percent-decodes one path segment, or a query name or value with `plusIsSpace` (WHATWG URL
    /// §5.1); nil for a malformed escape, invalid UTF-8 or NUL.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == 0 || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let b = iterator.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = iterator.next().flatMap(hex), let l = iterator.next().flatMap(hex) else { return nil }
                bytes.append(h << 4 | l)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(0x20)
            default: bytes.append(b)
            }
        }
        guard !bytes.contains(0), let s = String(validating: bytes, as: UTF8.self) else { return nil }
        return s
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
