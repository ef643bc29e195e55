extension SyncPlan {
    /// The registry's name (docs/architecture.md#the-http-api) for what an RFC 6901 pointer into an advanced experience
    /// request names; `languages` are the request's inline localizations in order (`included[n]`). nil: no field of ours.
    public static func registryField(pointer: String, languages: [String]) -> String? {
        let parts = pointer.split(separator: "/").map(String.init)
        let attributes = [
            "link": "url", "action": "action", "businessCategory": "category", "defaultLanguage": "language", "isPoweredBy": "poweredBy",
            "place": "place",
        ]
        if parts.count >= 3, parts[0] == "data", parts[1] == "attributes", let name = attributes[parts[2]] {
            return ([name] + parts.dropFirst(3)).joined(separator: ".")
        }
        if parts.count >= 3, parts[0] == "data", parts[1] == "relationships", parts[2] == "headerImage" { return "headerImage" }
        if parts.count >= 4, parts[0] == "included", let index = Int(parts[1]), languages.indices.contains(index), parts[2] == "attributes"
        {
            return "localizations.\(languages[index]).\(parts[3])"
        }
        return nil
    }
}
