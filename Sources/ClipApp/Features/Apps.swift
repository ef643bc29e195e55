public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Full apps: created, replaced, read and changed (`/v1/apps…`, `clipctl app set|show`). A team
/// token acts for its own team; another team's app is not found, or "registered to another team"
/// when a write names it (docs/rules.md#tenancy).
public enum AppSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var bundle: BundleID?
        var team: TeamID?
        /// nil: unchanged; `.some(nil)`: cleared.
        var appStoreID: AppStoreID??
        var name: String?
        var preconditions = Arguments()

        public init() {}
        public static let fields: [InputField<Input>] = [
            .app(\.bundle, help: "the app's bundle ID"), .writingTeam(\.team, help: "the team"), .appStoreID(\.appStoreID),
            AppFields.name(\.name),
        ]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    public typealias Output = AppFields.Saved

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        let existing = try? session.registry.app(bundle)
        if let existing, existing.team != team {
            throw RegistryError.conflict("app \(bundle.rawValue) is registered to another team than \(team.rawValue)")
        }
        _ = try input.preconditions.replacePreconditions(kind: "a", current: existing?.version, "app \(bundle.rawValue)")
        return Output(try session.registry.saveApp(bundle, team: team, appStoreID: input.appStoreID, name: input.name))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/apps/{bundleId}", body: .json(optional: false)),
        command: Command(
            ["app", "set"],
            CommandHelp(
                "create an app or change its App Store ID and name",
                examples: [
                    CommandExample(
                        "clipctl app set com.example.bikes --team ABCDE12345 --app-store-id 1234567890 --name Bikes",
                        "Give a full app its App Store ID (the banner's app-id) and name")
                ]),
            json: .shape(\.written),
            present: { output, _, printer in
                AppFields.print(output.outcome.value, printer)
                printer.notes(output.outcome.notes)
            }))
}

/// `POST /v1/apps`: creates an app; one that exists is a conflict (its owner is told to PATCH it).
public enum AppCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var bundle: BundleID?
        var team: TeamID?
        var appStoreID: AppStoreID?
        var name: String?

        public init() {}
        public static let fields: [InputField<Input>] = [
            .value(
                "bundleId", \.bundle, in: .body, "BUNDLE", help: "the app's bundle ID", required: true,
                parse: { (text, field) throws(ValidationFailure) in try BundleID(text, field: field) }, format: \.rawValue),
            .writingTeam(\.team, help: "the team"),
            .value(
                "appStoreId", \.appStoreID, in: .body, "N", help: "numeric App Store ID (the banner's app-id)",
                parse: { (text, _) throws(ValidationFailure) in try AppStoreID(text) }, format: \.rawValue),
            AppFields.name(\.name),
        ]
    }

    public typealias Output = AppFields.Created

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        if let existing = try? session.registry.app(bundle) {
            // The PATCH hint only where the caller could follow it; another team's app is only "taken".
            throw RegistryError.conflict(
                existing.team == team
                    ? "app \(bundle.rawValue) already exists; change it with PATCH /v1/apps/\(bundle.rawValue)"
                    : "app \(bundle.rawValue) is registered to another team than \(team.rawValue)")
        }
        return Output(try session.registry.saveApp(bundle, team: team, appStoreID: .some(input.appStoreID), name: input.name).value)
    }

    public static let binding = Binding(Self.self, Route("POST", "/v1/apps", status: 201, body: .json(optional: false)))
}

/// `GET /v1/apps/{bundleId}` and `clipctl app show BUNDLE`.
public enum AppShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var bundle = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.app(\.bundle, help: "the app's bundle ID")]
    }

    public typealias Output = AppFields.Read

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try AppFields.visibleApp(input.bundle, in: session))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/apps/{bundleId}"),
        command: Command(
            ["app", "show"],
            CommandHelp("show an app", examples: [CommandExample("clipctl app show com.example.bikes", "Show an app and its clips")]),
            // The command checks the bundle ID's form first, as it always has (exit 65).
            steps: CommandSteps(check: { words in
                _ = try ClipFields.parsed { () throws(ValidationFailure) in try BundleID(words.positional(0) ?? "") }
            }),
            present: { output, _, printer in AppFields.print(output.value, printer) }))
}

/// `PATCH /v1/apps/{bundleId}`: changes an app's App Store ID or name, under `If-Match` when given.
public enum AppUpdate: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var bundle = ""
        var appStoreID: AppStoreID??
        var name: String?
        var preconditions = Arguments()

        public init() {}
        public static let fields: [InputField<Input>] = [
            .app(\.bundle, help: "the app's bundle ID"), .appStoreID(\.appStoreID),
            AppFields.name(\.name),
        ]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    public typealias Output = AppFields.Read

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let app = try AppFields.visibleApp(input.bundle, in: session)
        if let expected = try input.preconditions.existingPreconditions(kind: "a", current: app.version, "app \(app.bundleID.rawValue)"),
            expected != app.version
        {
            throw RegistryError.versionMismatch(expected: expected, actual: app.version)
        }
        return Output(try session.registry.saveApp(app.bundleID, team: app.team, appStoreID: input.appStoreID, name: input.name).value)
    }

    public static let binding = Binding(Self.self, Route("PATCH", "/v1/apps/{bundleId}", body: .json(optional: false)))
}

/// What the app operations share: their outputs and the team scope.
public enum AppFields {
    /// An app as read or changed, with its entity tag.
    public struct Read: ObjectAnswer {
        public var value: App
        public init(_ value: App) { self.value = value }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("a", value.version))] }
    }

    /// An app a POST created: 201 with its place.
    public struct Created: ObjectAnswer {
        public var value: App
        public init(_ value: App) { self.value = value }
        public var headers: [(name: String, value: String)] {
            [("Location", "/v1/apps/\(value.bundleID.rawValue)"), ("ETag", entityTag("a", value.version))]
        }
    }

    /// An app a PUT saved: 201 with its place when created, 200 otherwise; with the write's notes.
    public struct Saved: WriteAnswer {
        public var outcome: WriteOutcome<App>
        public init(_ outcome: WriteOutcome<App>) { self.outcome = outcome }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            [("ETag", entityTag("a", outcome.value.version))]
                + (outcome.created ? [("Location", "/v1/apps/\(outcome.value.bundleID.rawValue)")] : [])
        }
    }

    /// The app's display name in the body (`name`; absent leaves it as it is).
    static func name<Input>(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField<Input> {
        .text("name", key, in: .body, "NAME", help: "display name")
    }

    /// Another team's app, one that does not exist and a malformed name all get the same answer,
    /// word for word: it tells nothing of other teams (docs/rules.md#tenancy).
    public static func visibleApp(_ raw: String, in session: Session) throws -> App {
        let notFound = RegistryError.notFound("app \(raw)")
        guard let bundle = try? BundleID(raw) else { throw notFound }
        let app: App
        do { app = try session.registry.app(bundle) } catch RegistryError.notFound { throw notFound }
        try session.checkVisible(team: app.team, "app \(raw)")
        return app
    }

    static func print(_ app: App, _ printer: Printer) {
        let quotedName = app.name.isEmpty ? "" : "  \"\(app.name)\""
        printer.line("\(app.bundleID.rawValue)  team \(app.team.rawValue)  App Store ID \(app.appStoreID?.rawValue ?? "-")\(quotedName)")
    }
}
