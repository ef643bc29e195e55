public import ClipCore
public import StrictJSON

/// `applinks` components for a full app generated from its clips' advanced experiences, so that
/// the installed app opens the links its App Clip is invoked with (docs/apple-formats.md).
///
/// One component per experience URL, in the resolver's order (`NormalizedURL.isMoreSpecific`),
/// matching what the registered URL matches (`NormalizedURL.matches`; a test compares them on
/// generated data). The registered URL is a prefix, so its path becomes `"<path>/*"`, which also
/// matches the path itself (conformance semantics.md, "a pattern ending in /* also matches the
/// path without that segment"), and its query items become a query dictionary, which ignores
/// items it does not name (Apple's "Supporting associated domains").
public enum ExperienceApplinks {
    /// The experience URLs whose links one app should open.
    public struct AppLinks: Sendable, Equatable {
        public var app: AppID
        public var urls: [NormalizedURL]
        public init(app: AppID, urls: [NormalizedURL]) {
            self.app = app
            self.urls = urls
        }
    }

    /// The components for `urls`, most specific first. `percentEncoded` is the setting in force
    /// where they are placed: patterns are written percent-encoded, so a component holding an
    /// escape says `"percentEncoded": true` when the cascade says false.
    /// A URL that `isExpressible` refuses gets no component (`verify` then reports it).
    public static func components(_ urls: [NormalizedURL], percentEncoded: Bool = true) -> [JSONValue] {
        let ordered = Set(urls).filter(isExpressible).sorted { NormalizedURL.isMoreSpecific($0, than: $1) }
        return ordered.map { url in
            var members: [(key: String, value: JSONValue)] = [
                (key: "/", value: .string(url.path == "/" ? "*" : literal(url.path) + "/*"))
            ]
            if !url.queryItems.isEmpty {
                var items: [(key: String, value: JSONValue)] = []
                for item in url.queryItems.sorted(by: { $0.name < $1.name }) where !items.contains(where: { $0.key == item.name }) {
                    // Every occurrence of a named item must match its pattern, so a name given twice
                    // with different values is only required to be there ("?*": one character or more).
                    let values = Set(url.queryItems.filter { $0.name == item.name }.map { $0.value ?? "" })
                    let pattern = values.count == 1 ? literal(values.first!) : "?*"
                    items.append((key: item.name, value: .string(pattern)))
                }
                members.append((key: "?", value: .object(items)))
            }
            if !percentEncoded && url.canonical.contains("%") { members.append((key: "percentEncoded", value: true)) }
            return .object(members)
        }
    }

    /// Whether a component can require what `url` requires. A query dictionary reads a missing
    /// item as present and empty (Apple's "Supporting associated domains", query item
    /// components; the conformance corpus's semantics.md), so an item required with an empty or
    /// no value ("?flag", "?flag=") cannot be told from its absence: its component would open the
    /// app on every URL under the path, on the whole host for "/". Such a URL gets none.
    public static func isExpressible(_ url: NormalizedURL) -> Bool {
        url.queryItems.allSatisfy { !($0.value ?? "").isEmpty }
    }

    /// Text as a pattern: "$(" would start a substitution variable and there is no escape, so
    /// "$" becomes "?" (any one character), which still matches the URL (docs/apple-formats.md#applinks).
    static func literal(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            out.append(c == "$" && rest.first == "(" ? "?" : c)
        }
        return out
    }

    /// Merges generated components into `details`: after the components of the app's own entry
    /// when it has one (its rules, exclusions included, keep precedence), leaving out those it
    /// already has (it would decide first, so a repeat only spends bytes of the 128 KB), else as
    /// a new entry at the end. `hostDefaults` is `applinks.defaults`, for the percent-encoding
    /// cascade.
    public static func merge(_ generated: [AppLinks], into details: [ApplinksDetails], hostDefaults: JSONValue?) -> [ApplinksDetails] {
        var result = details
        for links in generated where !links.urls.isEmpty {
            if let i = result.firstIndex(where: { $0.app == links.app }) {
                let percentEncoded = result[i].defaults?["percentEncoded"]?.boolValue ?? hostDefaults?["percentEncoded"]?.boolValue ?? true
                let existing = result[i].components.arrayValue ?? []
                result[i].components = .array(
                    existing + components(links.urls, percentEncoded: percentEncoded).filter { !existing.contains($0) })
            } else {
                let percentEncoded = hostDefaults?["percentEncoded"]?.boolValue ?? true
                result.append(ApplinksDetails(app: links.app, components: .array(components(links.urls, percentEncoded: percentEncoded))))
            }
        }
        return result
    }

    /// An experience URL the app would not open under `document`, and what decided instead.
    public struct Miss: Sendable, Equatable, CustomStringConvertible {
        public let app: AppID
        public let url: String
        public let result: AASAEvaluator.Result
        public init(app: AppID, url: String, result: AASAEvaluator.Result) {
            self.app = app
            self.url = url
            self.result = result
        }
        public var description: String {
            "\(url) would not open \(app.rawValue): \(result.decision.rawValue) by \(result.rule)"
        }
    }

    /// Checks with the evaluator that every experience URL opens its app under `document`.
    public static func verify(_ document: JSONValue, host: String, _ generated: [AppLinks]) -> [Miss] {
        var misses: [Miss] = []
        for links in generated {
            for url in links.urls {
                let result = AASAEvaluator.evaluate(document, appID: links.app.rawValue, url: url.canonical, domain: host)
                if result.decision != .match { misses.append(Miss(app: links.app, url: url.canonical, result: result)) }
            }
        }
        return misses
    }
}
