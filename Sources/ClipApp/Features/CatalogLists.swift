import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// The apps a caller may see: `GET /v1/apps` and `clipctl app list`, optionally one team's. A team
/// token sees its own team's only (docs/rules.md#tenancy).
public enum AppList: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var team: TeamID?

        public init(reading reader: inout ArgumentReader) {
            team = reader.string("team").flatMap { text in reader.attempt { () throws(ValidationFailure) in try TeamID(text) } }
        }

        public var arguments: Arguments { Arguments([("team", team?.rawValue)].compactMap { name, value in value.map { (name, $0) } }) }
    }

    public struct Output: OperationOutput {
        public var apps: [App]
        public var json: JSONValue { ListJSON.items(apps.map(CatalogJSON.app)) }
        public init(apps: [App]) { self.apps = apps }
        public init(json: JSONValue) throws(WireError) {
            apps = try ListJSON.items(json: json).map { (v) throws(WireError) in try CatalogJSON.app(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(apps: try session.registry.apps(team: session.caller.team).filter { input.team == nil || $0.team == input.team })
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/apps",
        command: CommandSpec(
            "list", summary: "list apps", options: [.option("team", value: "TEAMID", help: "only this team's")],
            examples: [Example("clipctl app list --team ABCDE12345", "List one team's apps")]),
        under: ["app"], commandJSON: { .array($0.apps.map(CatalogJSON.app)) }, present: present)

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) {
        for app in output.apps {
            let quotedName = app.name.isEmpty ? "" : "  \"\(app.name)\""
            printer.line(
                "\(app.bundleID.rawValue)  team \(app.team.rawValue)  App Store ID \(app.appStoreID?.rawValue ?? "-")\(quotedName)")
        }
    }
}

/// The clips a caller may see, with their hosts: `GET /v1/clips` and `clipctl clip list`, optionally
/// one app's. A team token sees its own team's only (docs/rules.md#tenancy).
public enum ClipList: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var app: BundleID?

        public init(reading reader: inout ArgumentReader) {
            app = reader.string("app").flatMap { text in reader.attempt { () throws(ValidationFailure) in try BundleID(text, field: "app") }
            }
        }

        public var arguments: Arguments { Arguments([("app", app?.rawValue)].compactMap { name, value in value.map { (name, $0) } }) }
    }

    public struct Output: OperationOutput {
        public var clips: [Clip]
        public var json: JSONValue { ListJSON.items(clips.map { CatalogJSON.clip($0) }) }
        public init(clips: [Clip]) { self.clips = clips }
        public init(json: JSONValue) throws(WireError) {
            clips = try ListJSON.items(json: json).map { (v) throws(WireError) in try CatalogJSON.clip(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(clips: try session.registry.clips(app: input.app, team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/clips",
        command: CommandSpec(
            "list", summary: "list clips with their hosts", options: [.option("app", value: "BUNDLE", help: "only this app's")],
            examples: [Example("clipctl clip list --app com.example.bikes", "List an app's clips with their hosts")]),
        under: ["clip"], commandJSON: { .array($0.clips.map { CatalogJSON.clip($0) }) }, present: present)

    static func present(_ output: Output, _ parsed: CommandWords, _ printer: Printer) {
        for clip in output.clips {
            let hosts = clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", ")
            printer.line("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(hosts)")
        }
    }
}
