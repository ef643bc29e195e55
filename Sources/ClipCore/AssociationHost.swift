/// A host as an App Clip association, an applinks rule or webcredentials name it: an exact
/// fully qualified domain name, normalized like a URL's host (`DomainName`), with no wildcard,
/// scheme, port or path. App Clips are associated with exact hosts: Apple's "Associating your
/// App Clip with your website" allows no wildcard in the `appclips:` entitlement
/// (https://developer.apple.com/documentation/appclip/associating-your-app-clip-with-your-website).
public enum AssociationHost {
    public static func normalize(_ host: String, field: String = "host") throws(ValidationFailure) -> String {
        if host.hasPrefix("*.") {
            throw ValidationFailure(
                field: field, rule: "host.wildcard",
                message: "App Clip associations name exact hosts; wildcards are not allowed (Apple: \"Supporting associated domains\")")
        }
        if host.contains(where: { $0 == "/" || $0 == ":" || $0 == "?" || $0 == "#" || $0 == "@" }) {
            throw ValidationFailure(
                field: field, rule: "host.format", message: "give a host name only, such as shop.example: no scheme, port or path")
        }
        do { return try DomainName.normalize(host) } catch {
            throw ValidationFailure(field: field, rule: "url.host", message: error.message)
        }
    }
}
