public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// The apps a caller may see: `GET /v1/apps` and `clipctl app list`, optionally one team's. A team
/// token sees its own team's only (docs/rules.md#tenancy).
public enum AppList: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        public var team: TeamID?
        public init() {}
        public static let fields: [InputField<Input>] = [.team(\.team, in: .query, help: "only this team's", required: false)]
    }

    public typealias Output = Items<App>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.apps(team: session.caller.team).filter { input.team == nil || $0.team == input.team })
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/apps"),
        command: Command(
            ["app", "list"],
            CommandHelp("list apps", examples: [CommandExample("clipctl app list --team ABCDE12345", "List one team's apps")]),
            json: .shape { .array($0.items.map(\.json)) }, present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) {
        for app in output.items {
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

    public struct Input: DeclaredInput {
        public var app: BundleID?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .value(
                "app", \.app, "BUNDLE", help: "only this app's",
                parse: { (text, field) throws(ValidationFailure) in try BundleID(text, field: field) },
                format: \.rawValue)
        ]
    }

    public typealias Output = Items<Clip>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.clips(app: input.app, team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/clips"),
        command: Command(
            ["clip", "list"],
            CommandHelp(
                "list clips with their hosts",
                examples: [CommandExample("clipctl clip list --app com.example.bikes", "List an app's clips with their hosts")]),
            json: .shape { .array($0.items.map(\.json)) }, present: present))

    static func present(_ output: Output, _ words: CommandWords, _ printer: Printer) {
        for clip in output.items {
            let hosts = clip.hosts.isEmpty ? "-" : clip.hosts.joined(separator: ", ")
            printer.line("\(clip.appID.rawValue)  app \(clip.appBundleID.rawValue)  hosts: \(hosts)")
        }
    }
}
