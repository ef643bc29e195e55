import ArgParse
public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// An app's applinks components on a host (docs/apple-formats.md): `PUT /v1/domains/{host}/applinks/{bundleId}`
/// and `clipctl applinks set HOST --app BUNDLE --components JSON|@FILE`. Another team's app is not found; a host
/// held by another team is refused by the store (docs/rules.md#tenancy); If-Match / If-None-Match as every PUT
/// that replaces (kind `l`: the rule exists or not, it has no versions).
public enum ApplinksSet: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var bundle: String
        var components: JSONValue?
        var defaults: JSONValue?
        var position: Int?

        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            bundle = reader.string("bundleId") ?? ""
            let fields = reader.fields
            components = fields.raw("components")
            if components == nil { fields.fail("components", "required", "is required") }
            defaults = fields.object("defaults")
            if let p = fields.number("position") {
                if p >= 0, p == p.rounded(), p < 1_000_000 {
                    position = Int(p)
                } else {
                    fields.fail("position", "range", "expected a whole number ≥ 0")
                }
            }
        }
    }

    public struct Output: OperationOutput {
        public var details: ApplinksDetails
        public var notes: [WriteNote]
        public var json: JSONValue { CatalogJSON.withNotes(CatalogJSON.applinks(details), notes) }
        init(_ outcome: WriteOutcome<ApplinksDetails>) { (details, notes) = (outcome.value, outcome.notes) }
        public init(json: JSONValue) throws(WireError) {
            details = try CatalogJSON.applinks(json: json, host: "the host")
            notes = CatalogJSON.notes(json: json)
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let components = input.components else { throw RegistryError.invalid([]) }
        let app = try AppFields.visibleApp(input.bundle, in: session)
        let stored = (try? session.registry.aasaContent(host: input.host))?.details.contains { $0.app.bundleID == app.bundleID } ?? false
        try input.arguments.existencePreconditions(exists: stored, "applinks of \(app.bundleID.rawValue) on \(input.host)")
        return Output(
            try session.registry.setApplinks(
                host: input.host, app: app.bundleID, components: components, defaults: input.defaults, position: input.position))
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/applinks/{bundleId}",
        command: CommandSpec(
            "set", summary: "set the components of an app on a host", positionals: [PositionalSpec("HOST", help: "the host")],
            options: [
                .option("app", value: "BUNDLE", help: "the full app (required)"),
                .option("components", value: "JSON|@FILE", help: "array of component objects (required)"),
                .option("defaults", value: "JSON", help: "caseSensitive/percentEncoded defaults for this app"),
                .option("position", value: "N", help: "order among the host's entries (first match wins)"),
            ],
            examples: [
                Example(
                    "clipctl applinks set bikesrental.example --app com.example.bikes --components '[{\"/\":\"/rent/*\"}]'",
                    "Open every /rent/ URL of the host in the full app")
            ]),
        under: ["applinks"], commandJSON: { writtenJSON(CatalogJSON.applinks($0.details), notes: $0.notes) }, takesBody: true,
        commandInput: { line, arguments in
            let app = try ApplinksCommands.app(line)
            guard let components = try line.json("components") else { throw CommandUsageError("missing --components") }
            let position = try line.parsed.value("position").map { v -> Int in
                guard let n = Int(v), n >= 0 else { throw CommandUsageError("--position takes a whole number") }
                return n
            }
            let defaults = try line.json("defaults")
            arguments.append("host", line.parsed.positionals.first)
            arguments.append("bundleId", app)
            arguments.body = RequestJSON.setApplinks(components: components, defaults: defaults, position: position)
        },
        present: { output, parsed, printer in
            let count = output.details.components.arrayValue?.count ?? 0
            printer.line("applinks of \(output.details.app.rawValue) on \(parsed.positionals.first ?? ""): \(count) component(s)")
            printer.notes(output.notes)
        })
}

/// `DELETE /v1/domains/{host}/applinks/{bundleId}` and `clipctl applinks remove HOST --app BUNDLE`.
public enum ApplinksRemove: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var bundle: String
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            bundle = reader.string("bundleId") ?? ""
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> NoContent {
        try session.registry.removeApplinks(host: input.host, app: try AppFields.visibleApp(input.bundle, in: session).bundleID)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, "DELETE", "/v1/domains/{host}/applinks/{bundleId}", status: 204,
        command: CommandSpec(
            "remove", summary: "remove an app's components from a host",
            positionals: [PositionalSpec("HOST", help: "the host")],
            options: [.option("app", value: "BUNDLE", help: "the full app (required)")],
            examples: [
                Example(
                    "clipctl applinks remove bikesrental.example --app com.example.bikes", "Remove the app's components from the host")
            ]),
        under: ["applinks"], commandJSON: { _ in CommandJSON.removed() },
        unreadBody: .ignored,
        commandInput: { line, arguments in
            let app = try ApplinksCommands.app(line)
            arguments.append("host", line.parsed.positionals.first)
            arguments.append("bundleId", app)
        },
        present: { _, _, printer in printer.line("removed") })
}

/// A host's applinks defaults and substitution variables: `PUT /v1/domains/{host}/applinks-settings` and
/// `clipctl applinks settings HOST`. A merge (RFC 7396): an absent member keeps its value, null clears it. Host-wide:
/// an administrator or the host's owner (HostOwnership, checked by the store).
public enum ApplinksSettings: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var defaults: JSONValue?
        var variables: JSONValue?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            let fields = reader.fields
            // JSONValue is nil-literal-expressible: an absent member is Optional.none, never JSON null (which clears).
            defaults = fields.has("defaults") ? fields.object("defaults") ?? .null : JSONValue?.none
            variables = fields.has("substitutionVariables") ? fields.object("substitutionVariables") ?? .null : JSONValue?.none
        }
    }

    /// The settings as stored (`defaults`, `substitutionVariables`), with the write's notes and
    /// `changed`: false when they already were as asked (nothing written, no change record).
    public struct Output: OperationOutput {
        public var settings: JSONValue
        public var notes: [WriteNote]
        public var changed: Bool
        public var json: JSONValue {
            guard case .object(var members) = CatalogJSON.withNotes(settings, notes) else { return .null }
            members.append((key: "changed", value: .bool(changed)))
            return .object(members)
        }
        public init(json: JSONValue) throws(WireError) {
            guard case .object(let members) = json else { throw WireError("applinks settings: not an object") }
            settings = .object(members.filter { $0.key != "notes" && $0.key != "changed" })
            notes = CatalogJSON.notes(json: json)
            changed = json["changed"]?.boolValue ?? true
        }
        init(settings: JSONValue, notes: [WriteNote], changed: Bool) {
            (self.settings, self.notes, self.changed) = (settings, notes, changed)
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let stored = try session.registry.setApplinksSettings(
            host: input.host, defaults: input.defaults, substitutionVariables: input.variables, by: session.caller.team)
        return Output(settings: CatalogJSON.applinksSettings(stored.value), notes: stored.notes, changed: stored.changed)
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/applinks-settings",
        command: CommandSpec(
            "settings", summary: "set a host's applinks defaults and substitution variables",
            positionals: [PositionalSpec("HOST", help: "the host")],
            options: [
                .option("defaults", value: "JSON", help: "{\"caseSensitive\": …, \"percentEncoded\": …}"),
                .option("substitution-variables", value: "JSON|@FILE", help: "{\"name\": [\"value\", …]}"),
            ],
            examples: [
                Example(
                    "clipctl applinks settings bikesrental.example --substitution-variables '{\"city\":[\"paris\",\"rome\"]}'",
                    "Define a substitution variable the host's components can use as $(city)")
            ]),
        under: ["applinks"],
        commandJSON: { output in
            guard case .object(var members) = writtenJSON(output.settings, notes: output.notes) else { return .null }
            members.append((key: "changed", value: .bool(output.changed)))
            return .object(members)
        }, takesBody: true,
        commandInput: { line, arguments in
            let defaults = try line.json("defaults")
            let variables = try line.json("substitution-variables")
            arguments.append("host", line.parsed.positionals.first)
            arguments.body = RequestJSON.setApplinksSettings(defaults: defaults, substitutionVariables: variables)
        },
        present: { output, parsed, printer in
            // A write that changes nothing says so (docs/rules.md#updates-and-versions).
            let saved = output.changed || !output.notes.isEmpty
            printer.line(saved ? "applinks settings of \(parsed.positionals.first ?? "") saved" : "nothing to change")
            printer.notes(output.notes)
        })
}

/// Applinks generated from a host's experiences (ExperienceApplinks), on or off: `PUT
/// /v1/domains/{host}/applinks-generation` and `clipctl applinks generate HOST on|off`. Answers the experience URLs
/// the generated components still do not give to their app; the command then exits 1. Host-wide, as the settings.
public enum ApplinksGeneration: Operation {
    public static let callers = CallerRule.token

    public struct Input: OperationInput {
        public var arguments: Arguments
        var host: String
        var enabled: Bool?
        public init(reading reader: inout ArgumentReader) {
            arguments = reader.arguments
            host = reader.string("host") ?? ""
            enabled = reader.fields.bool("fromExperiences", required: true)
        }
    }

    public struct Output: OperationOutput {
        public var host: String
        public var enabled: Bool
        public var unmatched: [ExperienceApplinks.Miss]
        public var notes: [WriteNote]
        public var json: JSONValue { CatalogJSON.applinksGeneration(host: host, enabled: enabled, unmatched: unmatched, notes: notes) }
        init(host: String, enabled: Bool, _ outcome: WriteOutcome<[ExperienceApplinks.Miss]>) {
            (self.host, self.enabled, unmatched, notes) = (host, enabled, outcome.value, outcome.notes)
        }
        public init(json: JSONValue) throws(WireError) {
            let outcome = try CatalogJSON.applinksGeneration(json: json)
            host = json["host"]?.stringValue ?? ""
            enabled = json["fromExperiences"]?.boolValue ?? false
            (unmatched, notes) = (outcome.value, outcome.notes)
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let enabled = input.enabled else { throw RegistryError.invalid([]) }
        let unmatched = try session.registry.setApplinksFromExperiences(host: input.host, enabled, by: session.caller.team)
        return Output(host: try Registry.normalizeHost(input.host), enabled: enabled, unmatched)
    }

    public static let binding = Binding(
        Self.self, "PUT", "/v1/domains/{host}/applinks-generation",
        command: CommandSpec(
            "generate", summary: "let the full apps open the host's experience URLs too (applinks generated from experiences)",
            discussion:
                "Each active experience URL becomes a component of its clip's full app, most specific first, after the app's own rules. Every URL is then checked with the AASA evaluator; exits 1 when one is not given to its app.",
            positionals: [PositionalSpec("HOST", help: "the host"), PositionalSpec("on|off", help: "generate or stop generating")],
            examples: [Example("clipctl applinks generate bikesrental.example on", "Let the full apps open the host's experience URLs too")]
        ),
        under: ["applinks"],
        commandJSON: {
            writtenJSON(CatalogJSON.applinksGeneration(host: $0.host, enabled: $0.enabled, unmatched: $0.unmatched), notes: $0.notes)
        }, takesBody: true,
        commandInput: { line, arguments in
            let state = line.parsed.positionals.count > 1 ? line.parsed.positionals[1] : ""
            guard state == "on" || state == "off" else { throw CommandUsageError("applinks generate takes on or off") }
            arguments.append("host", line.parsed.positionals.first)
            arguments.body = RequestJSON.setApplinksGeneration(state == "on")
        },
        present: { output, parsed, printer in
            let host = parsed.positionals.first ?? ""
            printer.line("applinks of \(host) \(output.enabled ? "cover its experience URLs" : "no longer generated from experiences")")
            printer.notes(output.notes)
            for miss in output.unmatched {
                printer.line(
                    "  warning: \(miss.url) would not open \(miss.app.rawValue): \(miss.result.decision.rawValue) by \(miss.result.rule)")
            }
            guard output.unmatched.isEmpty else {
                throw CommandVerdict.negative(
                    "\(output.unmatched.count) experience URL(s) are not given to their app: an earlier rule of the app decides first (see applinks set)"
                )
            }
        })
}

/// What the applinks commands share.
enum ApplinksCommands {
    /// `--app BUNDLE`, required (exit 64 without it), checked as a bundle ID (exit 65) before anything is sent.
    static func app(_ line: CommandLine) throws -> String {
        let raw = try line.required("app")
        do throws(ValidationFailure) { _ = try BundleID(raw, field: "app") } catch { throw RegistryError.invalid(error.errors) }
        return raw
    }
}
