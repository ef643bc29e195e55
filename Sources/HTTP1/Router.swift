/// Path parameters of a matched route, percent-decoded.
public struct RouteParameters: Sendable {
    public let values: [String: String]
    public subscript(_ name: String) -> String? { values[name] }
}

/// Whether a route's handler answers from memory, without blocking, so that the server may run it
/// on its event loop rather than on its blocking pool.
public enum MemoryAnswer: Sendable, Equatable {
    /// It may block (a database read or write): the blocking pool.
    case never
    case always
    /// From memory unless the query names this item (`explain`, say, which needs the database).
    case unlessQueryNames(String)

    public func holds(for request: HTTPRequest) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .unlessQueryNames(let name): !QueryString.names(name, in: request.query)
        }
    }
}

/// Routes being registered: method + path template (`/v1/experiences/{id}`) → handler, then
/// `freeze()` into the immutable `RouteTable` that serves requests. Registering the same method
/// and template twice is a programming error.
public struct Router {
    public typealias Handler = @Sendable (HTTPRequest, RouteParameters) -> HTTPResponse

    private var routes: [RouteTable.Route] = []

    public init() {}

    public mutating func add(_ method: String, _ template: String, fromMemory: MemoryAnswer = .never, _ handler: @escaping Handler) {
        precondition(!routes.contains { $0.method == method && $0.template == template }, "\(method) \(template) is registered twice")
        let segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part -> RouteTable.Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        routes.append(
            RouteTable.Route(
                method: method, template: template, segments: Array(segments),
                literalShape: segments.map { if case .literal = $0 { true } else { false } }, fromMemory: fromMemory,
                handler: handler))
    }

    public func freeze() -> RouteTable { RouteTable(routes) }
}

/// The routes of a server, immutable. An unknown path answers 404; a known path with another
/// method 405 with `Allow` (RFC 9110 §15.5.6); HEAD is served by the GET route when no HEAD route
/// is given (RFC 9110 §9.3.2).
public struct RouteTable: Sendable {
    public struct Route: Sendable {
        public let method: String
        public let template: String
        let segments: [Segment]
        /// For each segment, whether it is a literal: the route's specificity.
        let literalShape: [Bool]
        public let fromMemory: MemoryAnswer
        public let handler: Router.Handler
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

    public let routes: [Route]
    /// Routes without parameters by path, then method: the common lookup in one probe.
    private let literalRoutes: [String: [String: Int]]

    public init() { self.init([]) }

    init(_ routes: [Route]) {
        self.routes = routes
        var literal: [String: [String: Int]] = [:]
        for (i, route) in routes.enumerated() where !route.segments.contains(where: { if case .parameter = $0 { true } else { false } }) {
            literal[route.template, default: [:]][route.method] = i
        }
        literalRoutes = literal
    }

    /// Whether the route `request` matches answers it from memory (false when none matches).
    public func answersFromMemory(_ request: HTTPRequest) -> Bool {
        guard case .found(let route, _) = match(method: request.method, path: request.path) else { return false }
        return route.fromMemory.holds(for: request)
    }

    public func match(method: String, path: Substring) -> Match {
        if let methods = literalRoutes[String(path)], let i = methods[method] ?? (method == "HEAD" ? methods["GET"] : nil) {
            return .found(routes[i], RouteParameters(values: [:]))
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var decoded: [String] = []
        for part in parts {
            guard let value = PercentDecoding.decode(part) else { return .badPath }
            decoded.append(value)
        }
        // The routes whose template matches, and of those only the most specific: a literal segment wins over a
        // parameter (`/v1/experiences/export` over `/v1/experiences/{id}`), for the match and for `Allow` alike.
        var matching: [(route: Route, parameters: RouteParameters)] = []
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
            if ok { matching.append((route, RouteParameters(values: parameters))) }
        }
        guard let shape = matching.map({ $0.route.literalShape }).max(by: { Self.isMoreSpecific($1, than: $0) }) else {
            return .notFound
        }
        let candidates = matching.filter { $0.route.literalShape == shape }
        if let exact = candidates.first(where: { $0.route.method == method })
            ?? (method == "HEAD" ? candidates.first(where: { $0.route.method == "GET" }) : nil)
        {
            return .found(exact.route, exact.parameters)
        }
        var allowed = Set(candidates.map(\.route.method))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allow: allowed.sorted())
    }

    /// Whether shape `a` (true: a literal segment) is more specific than `b`: at the first segment where they
    /// differ, `a` has the literal.
    static func isMoreSpecific(_ a: [Bool], than b: [Bool]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x }
        return false
    }
}
