public import StrictJSON

/// A resource identifier object (JSON:API 1.0 "Resource Identifier Objects"): what a relationship's
/// `data` holds.
public struct JSONAPIIdentifier: Hashable, Sendable {
    public var type: String
    public var id: String

    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }

    var json: JSONValue { ["type": .string(type), "id": .string(id)] }
}

/// A resource object as ASC sends it: `type`, `id`, `attributes`, `relationships` (whose `data` is
/// present only for what the request included or ASC chose to link).
public struct JSONAPIResource: Sendable {
    public var type: String
    public var id: String
    public var attributes: JSONValue
    /// Relationship name → the linked identifiers (one or many); absent when ASC gave links only.
    public var toOne: [String: JSONAPIIdentifier?]
    public var toMany: [String: [JSONAPIIdentifier]]

    init(_ value: JSONValue, at where_: String) throws(ASCClientError) {
        guard case .object = value, let type = value["type"]?.stringValue, let id = value["id"]?.stringValue else {
            throw .invalidResponse("\(where_) is not a resource object with a type and an id")
        }
        self.type = type
        self.id = id
        attributes = value["attributes"] ?? .object([])
        toOne = [:]
        toMany = [:]
        for (name, relationship) in value["relationships"]?.objectMembers ?? [] {
            switch relationship["data"] {
            case .some(.array(let items)):
                toMany[name] = items.compactMap { item in
                    item["type"]?.stringValue.flatMap { type in item["id"]?.stringValue.map { JSONAPIIdentifier(type: type, id: $0) } }
                }
            case .some(.null): toOne[name] = .some(nil)
            case .some(let item):
                if let type = item["type"]?.stringValue, let id = item["id"]?.stringValue {
                    toOne[name] = JSONAPIIdentifier(type: type, id: id)
                }
            case nil: break
            }
        }
    }

    func string(_ name: String) -> String? { attributes[name]?.stringValue }
    func bool(_ name: String) -> Bool? { attributes[name]?.boolValue }
    func integer(_ name: String) -> Int? {
        if case .integer(let value)? = attributes[name] { return Int(value) }
        return nil
    }
}

/// A JSON:API top-level document from ASC: primary data (one resource or many), `included`, and the
/// document-level `links.next` of a page.
public struct JSONAPIDocument: Sendable {
    public var data: [JSONAPIResource]
    public var included: [JSONAPIResource]
    public var nextLink: String?

    public init(_ value: JSONValue) throws(ASCClientError) {
        switch value["data"] {
        case .some(.array(let items)):
            var resources: [JSONAPIResource] = []
            for (index, item) in items.enumerated() { resources.append(try JSONAPIResource(item, at: "data[\(index)]")) }
            data = resources
        case .some(let item): data = [try JSONAPIResource(item, at: "data")]
        case nil: throw .invalidResponse("the document has no data")
        }
        var included: [JSONAPIResource] = []
        for (index, item) in (value["included"]?.arrayValue ?? []).enumerated() {
            included.append(try JSONAPIResource(item, at: "included[\(index)]"))
        }
        self.included = included
        nextLink = value["links"]?["next"]?.stringValue
    }

    /// An included resource by identifier.
    func included(_ identifier: JSONAPIIdentifier?) -> JSONAPIResource? {
        guard let identifier else { return nil }
        return included.first { $0.type == identifier.type && $0.id == identifier.id }
    }
}
