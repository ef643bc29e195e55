public import AppleFormats
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

    public struct Input: DeclaredInput {
        var host = ""
        var bundle = ""
        var components: JSONValue?
        var defaults: JSONValue?
        var position: Int?
        var preconditions = Arguments()

        public init() {}
        static let components = InputField<Input>.json(
            "components", \.components, "JSON|@FILE", help: "array of component objects", required: true)
        static let position = InputField<Input>.ordinal(
            "position", \.position, "N", help: "order among the host's entries (first match wins)")
        public static let fields: [InputField<Input>] = [
            .host(\.host, help: "the host"), .app(\.bundle, option: ApplinksCommands.app, help: "the full app"), components,
            .object("defaults", \.defaults, "JSON", help: "caseSensitive/percentEncoded defaults for this app"), position,
        ]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    /// The app's details as stored, with the write's notes.
    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<ApplinksDetails>
        public init(_ outcome: WriteOutcome<ApplinksDetails>) { self.outcome = outcome }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let components = input.components else { throw RegistryError.invalid([]) }
        let app = try AppFields.visibleApp(input.bundle, in: session)
        let stored = (try? session.registry.aasaContent(host: input.host))?.details.contains { $0.app.bundleID == app.bundleID } ?? false
        try input.preconditions.existencePreconditions(exists: stored, "applinks of \(app.bundleID.rawValue) on \(input.host)")
        return Output(
            try session.registry.setApplinks(
                host: input.host, app: app.bundleID, components: components, defaults: input.defaults, position: input.position))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/applinks/{bundleId}", body: .json(optional: false)),
        command: Command(
            ["applinks", "set"],
            CommandHelp(
                "set the components of an app on a host",
                examples: [
                    CommandExample(
                        "clipctl applinks set bikesrental.example --app com.example.bikes --components '[{\"/\":\"/rent/*\"}]'",
                        "Open every /rent/ URL of the host in the full app")
                ]),
            steps: CommandSteps(check: { words in
                try ApplinksCommands.checkApp(words)
                // What the route refuses as a field error the command refuses as a usage error, as it always has.
                guard let text = words.value(Input.position.facts.option), words.value(Input.components.facts.option) != nil else { return }
                guard let n = Int(text), n >= 0 else { throw CommandUsageError("--\(Input.position.facts.option) takes a whole number") }
            }),
            json: .shape(\.written),
            present: { output, words, printer in
                let details = output.outcome.value
                printer.line(
                    "applinks of \(details.app.rawValue) on \(words.positional(0) ?? ""): \(details.components.arrayValue?.count ?? 0) component(s)"
                )
                printer.notes(output.outcome.notes)
            }))
}

/// `DELETE /v1/domains/{host}/applinks/{bundleId}` and `clipctl applinks remove HOST --app BUNDLE`.
public enum ApplinksRemove: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host = ""
        var bundle = ""
        public init() {}
        public static let fields: [InputField<Input>] = [
            .host(\.host, help: "the host"), .app(\.bundle, option: ApplinksCommands.app, help: "the full app"),
        ]
    }

    public static func run(_ input: Input, in session: Session) throws -> NoContent {
        try session.registry.removeApplinks(host: input.host, app: try AppFields.visibleApp(input.bundle, in: session).bundleID)
        return NoContent()
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/domains/{host}/applinks/{bundleId}", status: 204, body: .none(.ignored)),
        command: Command(
            ["applinks", "remove"],
            CommandHelp(
                "remove an app's components from a host",
                examples: [
                    CommandExample(
                        "clipctl applinks remove bikesrental.example --app com.example.bikes", "Remove the app's components from the host")
                ]),
            steps: CommandSteps(check: ApplinksCommands.checkApp), json: .shape { _ in CommandJSON.removed() },
            present: { _, _, printer in printer.line("removed") }))
}

/// A host's applinks defaults and substitution variables: `PUT /v1/domains/{host}/applinks-settings` and
/// `clipctl applinks settings HOST`. A merge (RFC 7396): an absent member keeps its value, null clears it. Host-wide:
/// an administrator or the host's owner (HostOwnership, checked by the store).
public enum ApplinksSettings: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host = ""
        var defaults: JSONValue?
        var variables: JSONValue?
        public init() {}
        public static let fields: [InputField<Input>] = [
            .host(\.host, help: "the host"),
            .object("defaults", \.defaults, "JSON", help: "{\"caseSensitive\": …, \"percentEncoded\": …}", clearable: true),
            .object(
                "substitutionVariables", \.variables, "JSON|@FILE", help: "{\"name\": [\"value\", …]}", option: "substitution-variables",
                clearable: true),
        ]
    }

    /// The settings as stored, with the write's notes and `changed`: false when they already were as asked
    /// (nothing written, no change record).
    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<ApplinksHostSettings>
        public init(_ outcome: WriteOutcome<ApplinksHostSettings>) { self.outcome = outcome }
        public var json: JSONValue { Self.changed(CatalogJSON.withNotes(outcome.value.json, outcome.notes), outcome.changed) }
        /// `--json`: the notes always listed, then `changed`.
        var commandJSON: JSONValue { Self.changed(written, outcome.changed) }
        static func changed(_ object: JSONValue, _ changed: Bool) -> JSONValue {
            guard case .object(var members) = object else { return .null }
            members.append((key: "changed", value: .bool(changed)))
            return .object(members)
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(
            try session.registry.setApplinksSettings(
                host: input.host, defaults: input.defaults, substitutionVariables: input.variables, by: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/applinks-settings", body: .json(optional: false)),
        command: Command(
            ["applinks", "settings"],
            CommandHelp(
                "set a host's applinks defaults and substitution variables",
                examples: [
                    CommandExample(
                        "clipctl applinks settings bikesrental.example --substitution-variables '{\"city\":[\"paris\",\"rome\"]}'",
                        "Define a substitution variable the host's components can use as $(city)")
                ]),
            json: .shape(\.commandJSON),
            present: { output, words, printer in
                // A write that changes nothing says so (docs/rules.md#updates-and-versions).
                let saved = output.outcome.changed || !output.outcome.notes.isEmpty
                printer.line(saved ? "applinks settings of \(words.positional(0) ?? "") saved" : "nothing to change")
                printer.notes(output.outcome.notes)
            }))
}

/// Applinks generated from a host's experiences (ExperienceApplinks), on or off: `PUT
/// /v1/domains/{host}/applinks-generation` and `clipctl applinks generate HOST on|off`. Answers the experience URLs
/// the generated components still do not give to their app; the command then exits 1. Host-wide, as the settings.
public enum ApplinksGeneration: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var host = ""
        var enabled: Bool?
        public init() {}
        /// `fromExperiences`, which the command says as `on` or `off`.
        static let enabled: InputField<Input> = {
            let facts = FieldFacts(
                name: "fromExperiences", place: .body, type: .choice(["on", "off"]), placeholder: "on|off",
                help: "generate or stop generating", required: true, positional: true)
            return InputField(
                facts, read: { input, reader in input.enabled = reader.fields.bool(facts.name, required: true) },
                write: { input, arguments in input.enabled.map { arguments.setMember(facts.name, .bool($0)) } })
        }()
        public static let fields: [InputField<Input>] = [.host(\.host, help: "the host"), enabled]
    }

    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<ApplinksGenerated>
        public init(_ outcome: WriteOutcome<ApplinksGenerated>) { self.outcome = outcome }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let enabled = input.enabled else { throw RegistryError.invalid([]) }
        let unmatched = try session.registry.setApplinksFromExperiences(host: input.host, enabled, by: session.caller.team)
        let host = try Registry.normalizeHost(input.host)
        return Output(WriteOutcome(ApplinksGenerated(host: host, enabled: enabled, unmatched: unmatched.value), notes: unmatched.notes))
    }

    public static let binding = Binding(
        Self.self, Route("PUT", "/v1/domains/{host}/applinks-generation", body: .json(optional: false)),
        command: Command(
            ["applinks", "generate"],
            CommandHelp(
                "let the full apps open the host's experience URLs too (applinks generated from experiences)",
                discussion:
                    "Each active experience URL becomes a component of its clip's full app, most specific first, after the app's own rules. Every URL is then checked with the AASA evaluator; exits 1 when one is not given to its app.",
                examples: [
                    CommandExample(
                        "clipctl applinks generate bikesrental.example on", "Let the full apps open the host's experience URLs too")
                ]),
            // The words `on` and `off` are the body's true and false.
            steps: CommandSteps(input: { line, arguments in
                var input = Input()
                (input.host, input.enabled) = (
                    line.parsed.positional(0) ?? "", ["on": true, "off": false][line.parsed.positional(1) ?? ""]
                )
                guard input.enabled != nil else { throw CommandUsageError("applinks generate takes on or off") }
                arguments = input.arguments
            }),
            json: .shape(\.written),
            present: { output, words, printer in
                let generated = output.outcome.value
                printer.line(
                    "applinks of \(words.positional(0) ?? "") \(generated.enabled ? "cover its experience URLs" : "no longer generated from experiences")"
                )
                printer.notes(output.outcome.notes)
                for miss in generated.unmatched {
                    printer.line(
                        "  warning: \(miss.url) would not open \(miss.app.rawValue): \(miss.result.decision.rawValue) by \(miss.result.rule)"
                    )
                }
                guard generated.unmatched.isEmpty else {
                    throw CommandVerdict.negative(
                        "\(generated.unmatched.count) experience URL(s) are not given to their app: an earlier rule of the app decides first (see applinks set)"
                    )
                }
            }))
}

/// What the applinks commands share.
enum ApplinksCommands {
    /// The commands' `--app BUNDLE` for the path's `{bundleId}`.
    static let app = "app"

    /// `--app BUNDLE`, required (exit 64 without it), checked as a bundle ID (exit 65) before anything is sent.
    @Sendable static func checkApp(_ words: CommandWords) throws {
        guard let raw = words.value(app) else { throw CommandUsageError("missing --\(app)") }
        _ = try ClipFields.parsed { () throws(ValidationFailure) in try BundleID(raw, field: app) }
    }
}
