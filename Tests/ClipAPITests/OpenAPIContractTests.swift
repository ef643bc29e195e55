import ClipAPI
import ClipStore
import Foundation
import Testing

/// api/openapi.yaml and the router describe the same routes (docs/architecture.md#the-http-api).
struct OpenAPIContractTests {
    /// (method, path) pairs of the spec's `paths`, read line by line: a path is a two-space
    /// indented key starting with "/", an operation a four-space indented HTTP method key.
    static func specRoutes() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("api/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        var routes = Set<String>()
        var inPaths = false
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, let first = line.first, first != " " { break }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if let current, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "patch", "delete", "head", "options"].contains(String(key)) {
                    routes.insert("\(key.uppercased()) \(current)")
                }
            }
        }
        return routes
    }

    @Test func specAndRouterAgree() throws {
        let f = try APIFixture(.inProcess)
        let pool = try RegistryPool(path: f.path)
        let api = ClipAPI(pool: pool, log: { _ in })
        let served = Set(api.routes.map { "\($0.method) \($0.template)" })
        let documented = try Self.specRoutes()
        #expect(documented.count > 30)
        #expect(served.subtracting(documented).sorted() == [], "served but not in api/openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "in api/openapi.yaml but not served")
    }
}
