import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// Full apps: created, replaced, read and changed (`/v1/apps…`, `clipctl app set|show`). A team
/// token acts for its own team; another team's app is not found, or "registered to another team"
/// when a write names it (docs/rules.md#tenancy).
public enum AppSave: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: OperationInput {
        public var arguments: Arguments
        var bundle: BundleID?
        var team: TeamID?
        /// nil: unchanged; `.some(nil)`: cleared.
        var appStoreID: AppStoreID??
        var name: String?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let raw = reader.string("bundleId") ?? ""
            bundle = reader.attempt { () throws(ValidationFailure) in try BundleID(raw, field: "bundleId") }
            team = reader.writingTeam()
            appStoreID = AppFields.appStoreIDChange(reader.fields)
            name = reader.fields.string("name")
        }
    }

    public typealias Output = AppFields.Saved

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        let existing = try? session.registry.app(bundle)
        if let existing, existing.team != team {
            throw RegistryError.conflict("app \(bundle.rawValue) is registered to another team than \(team.rawValue)")
        }
        _ = try input.arguments.replacePreconditions(kind: "a", current: existing?.version, "app \(bundle.rawValue)")
        return Output(try session.registry.saveApp(bundle, team: team, appStoreID: input.appStoreID, name: input.name))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/apps/{bundleId}",
        command: CommandSpec(
            "set", summary: "create an app or change its App Store ID and name",
            positionals: [PositionalSpec("BUNDLE", help: "the app's bundle ID")],
            options: [
                .option("team", value: "TEAMID", help: "the team (required)"),
                .option("app-store-id", value: "N", help: "numeric App Store ID (the banner's app-id)"),
                .flag("no-app-store-id", help: "clear the App Store ID"), .option("name", value: "NAME", help: "display name"),
            ],
            examples: [
                Example(
                    "clipctl app set com.example.bikes --team ABCDE12345 --app-store-id 1234567890 --name Bikes",
                    "Give a full app its App Store ID (the banner's app-id) and name")
            ]),
        under: ["app"], commandJSON: { writtenJSON(CatalogJSON.app($0.outcome.value), notes: $0.outcome.notes) }, takesBody: true,
        commandInput: { line, arguments in
            let parsed = line.parsed
            var body: [(key: String, value: JSONValue)] = [("team", .string(try line.required("team")))]
            if parsed.flag("no-app-store-id") && parsed.value("app-store-id") != nil {
                throw CommandUsageError("--app-store-id and --no-app-store-id contradict each other")
            }
            if let id = parsed.value("app-store-id") { body.append(("appStoreId", .string(id))) }
            if parsed.flag("no-app-store-id") { body.append(("appStoreId", .null)) }
            if let name = parsed.value("name") { body.append(("name", .string(name))) }
            arguments.append("bundleId", parsed.positionals.first)
            arguments.body = .object(body)
        },
        present: { output, _, printer in
            AppFields.print(output.outcome.value, printer)
            printer.notes(output.outcome.notes)
        })
}

/// `POST /v1/apps`: creates an app; one that exists is a conflict (its owner is told to PATCH it).
public enum AppCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var bundle: BundleID?
        var team: TeamID?
        var appStoreID: AppStoreID?
        var name: String?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            let fields = reader.fields
            if let b = fields.string("bundleId", required: true) {
                bundle = fields.attempt { () throws(ValidationFailure) in try BundleID(b, field: "bundleId") }
            }
            team = reader.writingTeam()
            if let a = fields.string("appStoreId") { appStoreID = fields.attempt { () throws(ValidationFailure) in try AppStoreID(a) } }
            name = fields.string("name")
        }
    }

    public typealias Output = AppFields.Created

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let bundle = input.bundle, let team = input.team else { throw RegistryError.invalid([]) }
        let (appStoreID, name) = (input.appStoreID, input.name)
        try session.checkWritable(team: team)
        if let existing = try? session.registry.app(bundle) {
            // The PATCH hint only where the caller could follow it; another team's app is only "taken".
            throw RegistryError.conflict(
                existing.team == team
                    ? "app \(bundle.rawValue) already exists; change it with PATCH /v1/apps/\(bundle.rawValue)"
                    : "app \(bundle.rawValue) is registered to another team than \(team.rawValue)")
        }
        return Output(app: try session.registry.saveApp(bundle, team: team, appStoreID: .some(appStoreID), name: name).value)
    }

    public static let binding = Binding(Self.self, "POST", "/v1/apps", status: 201, takesBody: true)
}

/// `GET /v1/apps/{bundleId}` and `clipctl app show BUNDLE`.
public enum AppShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var bundle: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            bundle = reader.string("bundleId") ?? ""
        }
    }

    public typealias Output = AppFields.Read

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(app: try AppFields.visibleApp(input.bundle, in: session))
    }

    public static let binding = Binding(
        Self.self, "GET", "/v1/apps/{bundleId}",
        command: CommandSpec(
            "show", summary: "show an app", positionals: [PositionalSpec("BUNDLE", help: "the app's bundle ID")],
            examples: [Example("clipctl app show com.example.bikes", "Show an app and its clips")]),
        under: ["app"],
        commandInput: { line, arguments in
            let raw = line.parsed.positionals.first ?? ""
            // The command checks the bundle ID's form first, as it always has (exit 65).
            do throws(ValidationFailure) { _ = try BundleID(raw) } catch { throw RegistryError.invalid(error.errors) }
            arguments.append("bundleId", raw)
        },
        present: { output, _, printer in AppFields.print(output.app, printer) })
}

/// `PATCH /v1/apps/{bundleId}`: changes an app's App Store ID or name, under `If-Match` when given.
public enum AppUpdate: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: OperationInput {
        public var arguments: Arguments
        var bundle: String
        var appStoreID: AppStoreID??
        var name: String?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            bundle = reader.string("bundleId") ?? ""
            appStoreID = AppFields.appStoreIDChange(reader.fields)
            name = reader.fields.string("name")
        }
    }

    public typealias Output = AppFields.Read

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let app = try AppFields.visibleApp(input.bundle, in: session)
        if let expected = try input.arguments.existingPreconditions(kind: "a", current: app.version, "app \(app.bundleID.rawValue)"),
            expected != app.version
        {
            throw RegistryError.versionMismatch(expected: expected, actual: app.version)
        }
        return Output(app: try session.registry.saveApp(app.bundleID, team: app.team, appStoreID: input.appStoreID, name: input.name).value)
    }

    public static let binding = Binding(Self.self, "PATCH", "/v1/apps/{bundleId}", takesBody: true)
}

/// What the app operations share: their outputs, the `appStoreId` member and the team scope.
public enum AppFields {
    /// An app as read or changed, with its entity tag.
    public struct Read: OperationOutput {
        public var app: App
        public init(app: App) { self.app = app }
        public var json: JSONValue { CatalogJSON.app(app) }
        public var headers: [(name: String, value: String)] { [("ETag", entityTag("a", app.version))] }
        public init(json: JSONValue) throws(WireError) { app = try CatalogJSON.app(json: json) }
    }

    /// An app a POST created: 201 with its place.
    public struct Created: OperationOutput {
        public var app: App
        public init(app: App) { self.app = app }
        public var json: JSONValue { CatalogJSON.app(app) }
        public var headers: [(name: String, value: String)] {
            [("Location", "/v1/apps/\(app.bundleID.rawValue)"), ("ETag", entityTag("a", app.version))]
        }
        public init(json: JSONValue) throws(WireError) { app = try CatalogJSON.app(json: json) }
    }

    /// An app a PUT saved: 201 with its place when created, 200 otherwise; with the write's notes.
    public struct Saved: OperationOutput {
        public var outcome: WriteOutcome<App>
        public init(_ outcome: WriteOutcome<App>) { self.outcome = outcome }
        public var json: JSONValue { CatalogJSON.savedApp(outcome) }
        public var status: Int? { outcome.created ? 201 : 200 }
        public var headers: [(name: String, value: String)] {
            [("ETag", entityTag("a", outcome.value.version))]
                + (outcome.created ? [("Location", "/v1/apps/\(outcome.value.bundleID.rawValue)")] : [])
        }
        public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) throws(WireError) {
            outcome = WriteOutcome(try CatalogJSON.app(json: json), created: status == 201, notes: CatalogJSON.notes(json: json))
        }
    }

    /// `appStoreId`: absent leaves it, `null` clears it.
    static func appStoreIDChange(_ fields: FieldReader) -> AppStoreID?? {
        guard fields.has("appStoreId") else { return nil }
        guard let a = fields.string("appStoreId") else { return .some(nil) }
        return fields.attempt { () throws(ValidationFailure) in try AppStoreID(a) }.map { .some($0) }
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
