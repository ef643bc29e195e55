public import ClipCore
public import StrictJSON

/// A clip's invocations as both operations answer them.
public struct TestFlightInvocationList: WireShape {
    public var clip: AppID
    public var invocations: [TestFlightInvocation]

    public init(clip: AppID, invocations: [TestFlightInvocation]) {
        self.clip = clip
        self.invocations = invocations
    }

    public var json: JSONValue {
        .object([
            ("clip", .string(clip.rawValue)),
            ("items", .array(invocations.map(Self.json))),
        ])
    }

    static func json(_ invocation: TestFlightInvocation) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("position", .integer(Int64(invocation.position))), ("url", .string(invocation.url)),
        ]
        switch invocation.target {
        case .experience(let id): members.append(("experienceId", .integer(id)))
        case .defaultExperience: members.append(("defaultExperience", .bool(true)))
        case .unresolved(let why): members.append(("problem", .string(why)))
        }
        members.append(
            ("titles", .array(invocation.titles.map { .object([("locale", .string($0.locale)), ("title", .string($0.title))]) })))
        return .object(members)
    }

    public init(json: JSONValue) throws(WireError) {
        guard let clipText = json["clip"]?.stringValue, let clip = try? AppID(clipText), let items = json["items"]?.arrayValue else {
            throw WireError("testflight invocations: clip or items is missing or malformed")
        }
        self.clip = clip
        invocations = try items.map { (item) throws(WireError) in
            guard case .integer(let position)? = item["position"], let url = item["url"]?.stringValue,
                let titles = item["titles"]?.arrayValue
            else { throw WireError("testflight invocation: position, url or titles is missing or malformed") }
            let target: TestFlightInvocation.Target
            if case .integer(let id)? = item["experienceId"] {
                target = .experience(id)
            } else if item["defaultExperience"]?.boolValue == true {
                target = .defaultExperience
            } else {
                target = .unresolved(item["problem"]?.stringValue ?? "")
            }
            return TestFlightInvocation(
                position: Int(position), url: url, target: target,
                titles: titles.compactMap { t in
                    guard let locale = t["locale"]?.stringValue, let title = t["title"]?.stringValue else { return nil }
                    return TestFlightInvocation.Title(locale: locale, title: title)
                })
        }
    }
}

/// What `clipctl asc link` remembered of a clip: its app and App Clip in App Store Connect, and whether the link is new.
public struct AppStoreConnectLinked: WireShape {
    public var link: AppStoreConnectLink
    public var created: Bool

    public init(link: AppStoreConnectLink, created: Bool) {
        self.link = link
        self.created = created
    }

    public var json: JSONValue {
        .object([
            "clip": .string(link.clip.rawValue), "ascAppId": .string(link.ascAppID), "ascAppClipId": .string(link.ascAppClipID),
            "appBundleId": .string(link.appBundleID), "primaryLocale": link.primaryLocale.map { .string($0) } ?? .null,
            "linkedAt": .string(link.linkedAt), "leadSeconds": .integer(link.leadSeconds), "created": .bool(created),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        guard let clipText = json["clip"]?.stringValue, let clip = try? AppID(clipText), let app = json["ascAppId"]?.stringValue,
            let appClip = json["ascAppClipId"]?.stringValue, let bundle = json["appBundleId"]?.stringValue
        else { throw WireError("an App Store Connect link lacks clip, ascAppId, ascAppClipId or appBundleId") }
        link = AppStoreConnectLink(
            clip: clip, ascAppID: app, ascAppClipID: appClip, appBundleID: bundle, primaryLocale: json["primaryLocale"]?.stringValue,
            linkedAt: json["linkedAt"]?.stringValue ?? "",
            leadSeconds: { if case .integer(let n)? = json["leadSeconds"] { n } else { AppStoreConnectLink.defaultLeadSeconds } }())
        created = json["created"]?.boolValue ?? false
    }
}
