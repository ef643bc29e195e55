public import ClipCore
import ClipStore
public import ClipWire
public import StrictJSON

/// The experiences a caller may see, ordered by URL, a page at a time: `GET /v1/experiences` and
/// `clipctl list` (every page). A team token sees its own team's only (docs/rules.md#tenancy); an
/// unknown clip lists nothing for it (a filter, not a resource), and is not found for the others.
public enum ExperienceList: Operation {
    public static let callers = CallerRule.token

    /// The query as given: `run` applies its rules in the order the route always has (the clip,
    /// the host, then the status and cursor, then the limit).
    public struct Input: DeclaredInput {
        public var clip: String?
        public var host: String?
        public var status: String?
        public var cursor: String?
        public var limit: String?
        public var labels: [String] = []
        var at: Instant?
        /// The request's query items in its order, repeated in the next page's `Link` (RFC 8288).
        var query: [(name: String, value: String)] = []

        public init() {}

        public static let host = InputField<Input>.text("host", \.host, "HOST", help: "only on this host")
        public static let fields: [InputField<Input>] = [
            .text("clip", \.clip, "CLIP", help: "only this clip's"), host,
            .optional(FieldFacts(ExperienceField.status, in: .query, withDefault: false, upperCased: true), \.status),
            .labelSelector(\.labels), .optional(.cursor, \.cursor), .optional(.routeLimit(of: "experiences"), \.limit), .moment(\.at),
        ]

        public mutating func check(_ reader: inout ArgumentReader) { query = reader.arguments.values }
    }

    public struct Output: OperationOutput {
        public var experiences: [AdvancedExperience]
        /// Each one's state at the answer's moment (docs/rules.md#experiences-in-time), in `experiences` order.
        public var states: [ExperienceState?]
        public var nextCursor: String?
        /// The request's query items, repeated in the next page's `Link` (RFC 8288).
        var query: [(name: String, value: String)] = []

        public init(experiences: [AdvancedExperience], nextCursor: String?, at: Instant?) {
            self.experiences = experiences
            self.nextCursor = nextCursor
            states = experiences.map { e in at.map(e.state) }
        }

        var items: [JSONValue] { zip(experiences, states).map { ExperienceJSON.full($0, state: $1) } }

        public var json: JSONValue { ListJSON.page(items, nextCursor: nextCursor) }

        public var headers: [(name: String, value: String)] {
            guard let nextCursor else { return [] }
            let items = query.filter { $0.name != "cursor" }.map {
                "\(PercentEncoding.encode($0.name.utf8))=\(PercentEncoding.encode($0.value.utf8))"
            }
            return [("Link", "</v1/experiences?\((items + ["cursor=\(nextCursor)"]).joined(separator: "&"))>; rel=\"next\"")]
        }

        public init(json: JSONValue) throws(WireError) {
            let items = try ListJSON.items(json: json)
            experiences = try items.map { (v) throws(WireError) in try CatalogJSON.experience(json: v) }
            states = items.map(CatalogJSON.state)
            nextCursor = ListJSON.nextCursor(json: json)
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var filter = Registry.ListFilter(team: session.caller.team)
        if let clip = input.clip {
            do { filter.clip = try session.registry.clipID(clip) } catch {
                // Who sees every clip (the database's owner, an admin token) is told, on a database and over
                // a server alike; a team token gets an empty list, which tells nothing of other teams' clips.
                // A reference that is no clip's is refused for every caller: it tells nothing either.
                guard session.caller.team != nil, case .notFound = error else { throw error }
                return Output(experiences: [], nextCursor: nil, at: nil)
            }
        }
        if let host = input.host { filter.host = try Registry.normalizeHost(host) }
        var errors: [FieldError] = []
        do { filter.labels = try LabelSelector(input.labels) } catch { errors += error.errors }
        if let status = input.status {
            do { filter.status = try ExperienceStatus.parse(status, field: ExperienceField.status.name) } catch { errors += error.errors }
        }
        if let cursor = input.cursor {
            // Only a URL this server's pages end with (docs/architecture.md#the-http-api).
            guard let after = ListCursor.decode(cursor), after.hasPrefix("https://") else {
                throw OperationError.malformed("the cursor is not one this server gave")
            }
            filter.afterURL = after
        }
        guard errors.isEmpty else { throw RegistryError.invalid(errors) }
        let limit = try PageLimit.read(input.limit, fallback: 100)
        // One more than asked says whether more follow.
        filter.limit = limit + 1
        var items = try session.registry.experiences(filter)
        var next: String?
        if items.count > limit {
            items.removeLast()
            next = items.last.map { ListCursor.encode($0.url.canonical) }
        }
        if let at = input.at { items = try session.registry.projected(items, at: at) }
        var output = Output(experiences: items, nextCursor: next, at: input.at ?? session.registry.instant)
        output.query = input.query
        return output
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/experiences"),
        command: Command(
            ["list"],
            CommandHelp(
                "list experiences, ordered by URL",
                examples: [
                    CommandExample("clipctl list --host bikesrental.example --status ACTIVE", "List the active experiences on one host"),
                    CommandExample(
                        "clipctl --server http://127.0.0.1:8080 list --json",
                        "List through a running server's API as JSON (the token from CLIP_TOKEN)"),
                ]),
            steps: CommandSteps(everyPage: true), json: .shape { .array($0.items) },
            present: ExperienceCommands.presentList))
}

/// `POST /v1/experiences` and `clipctl register URL`: registers an experience, creating the team,
/// app, clip and domain association it implies (the write's notes say so). A team token registers
/// for its own team only (403 otherwise, before anything is read).
public enum ExperienceCreate: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        /// The experience's JSON form, which `ExperienceJSON.decode` reads whole, with every field error.
        var document: JSONValue = .object([])
        var image: [UInt8]?

        public init() {}

        static let clip = FieldFacts.experienceClip(
            "TEAMID.BUNDLE", help: "the App Clip's App ID, such as ABCDE12345.com.example.app.Clip", required: true)
        public static let fields: [InputField<Input>] =
            [.experienceURL(help: "the invocation URL (https)", required: true, positional: true), clip].map { .member($0, of: \.document) }
            + ExperienceCommands.fields(\.document, image: \.image)
            + [.member(FieldFacts(ExperienceField.poweredBy), of: \.document)]

        public mutating func check(_ reader: inout ArgumentReader) { document = reader.document() ?? .object([]) }
    }

    public typealias Output = ExperienceWritten

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try Experiences.checkWritable(input.document, in: session)
        return Output(try session.registry.register(input.document, image: input.image), at: session.registry.instant)
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/experiences", status: 201, body: .json(optional: false)),
        command: Command(
            ["register"],
            CommandHelp(
                "register an advanced experience for a URL",
                discussion: "Creates the team, app, clip and domain association the URL and clip imply, and says so.",
                examples: [
                    CommandExample(
                        "clipctl register https://bikesrental.example/rent --clip ABCDE12345.com.example.bikes.Clip --title 'Rent a bike' --subtitle 'Unlock one in seconds'",
                        "Register a URL for a clip; its team, app and domain association are created as needed"),
                    CommandExample(
                        "clipctl register https://bikesrental.example/rent/paris --clip ABCDE12345.com.example.bikes.Clip --title 'Rent a bike' --subtitle 'Paris, all day' --localization 'fr=Louer un vélo|Paris, toute la journée'",
                        "Register one with a French card beside the default English one"),
                ]),
            steps: CommandSteps(input: ExperienceCommands.registerInput), json: .shape(ExperienceCommands.writtenJSON),
            present: ExperienceCommands.presentRegistered))
}

/// `GET /v1/experiences/{id}` and `clipctl show ID|URL`.
public enum ExperienceShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var id = ""
        var at: Instant?
        public init() {}
        public static let id = InputField<Input>.experienceID(\.id)
        public static let fields: [InputField<Input>] = [id, .moment(\.at)]
    }

    public typealias Output = ExperienceWritten

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var e = try Experiences.visible(input.id, in: session)
        // At a moment asked for: as the campaigns will have changed it (docs/schedules.md#campaigns).
        if let at = input.at { e = try session.registry.projected([e], at: at)[0] }
        return Output(WriteOutcome(e), at: input.at ?? session.registry.instant)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/experiences/{id}"),
        command: Command(
            ["show"],
            CommandHelp(
                "show one experience",
                examples: [
                    CommandExample(
                        "clipctl show https://bikesrental.example/rent", "Show an experience by its registered URL (or by its id)")
                ]),
            json: .shape { ExperienceJSON.full($0.outcome.value, state: $0.state) },
            present: { output, _, printer in ExperienceCommands.print(output.outcome.value, state: output.state, printer) }))
}

/// `PATCH /v1/experiences/{id}` and `clipctl update|deactivate|activate ID|URL`: changes the fields
/// the body gives (absent ones unchanged), under `If-Match` when given. An update that changes
/// nothing makes no version (docs/rules.md#updates-and-versions).
public enum ExperienceUpdate: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var id = ""
        /// The fields to change as the body gives them, which `ExperienceJSON.decode` reads whole over the experience.
        var document: JSONValue = .object([])
        var image: [UInt8]?
        var preconditions = Arguments()

        public init() {}

        /// Not required by the command, which takes `--where` instead (`ExperienceBulkUpdate`).
        public static let id = InputField<Input>.experienceID(\.id, required: false)
        public static let fields: [InputField<Input>] =
            [id]
            + [.experienceURL(help: "new URL"), .experienceClip("CLIP", help: "move to another clip")].map { .member($0, of: \.document) }
            + ExperienceCommands.fields(\.document, image: \.image, update: true)
            + [.member(FieldFacts(ExperienceField.poweredBy, negatable: true).helped("set isPoweredBy"), of: \.document)]

        public mutating func check(_ reader: inout ArgumentReader) {
            document = reader.document() ?? .object([])
            preconditions = reader.preconditions
        }
    }

    public typealias Output = ExperienceWritten

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let current = try Experiences.visible(input.id, in: session)
        try Experiences.checkWritable(input.document, in: session)
        let expected = try input.preconditions.existingPreconditions(
            kind: "e\(current.id)", current: current.version, "experience \(current.id)")
        return Output(
            try session.registry.update(String(current.id), with: input.document, image: input.image, expectedVersion: expected),
            at: session.registry.instant)
    }

    public static let binding = Binding(
        Self.self, Route("PATCH", "/v1/experiences/{id}", body: .json(optional: false)),
        command: Command(
            ["update"],
            CommandHelp(
                "change fields of an experience, or of every experience a selector matches",
                discussion:
                    "With --where instead of ID|URL, one change to every match in one transaction (docs/sheets.md#selectors): without --yes it only says what would change.",
                examples: [
                    CommandExample(
                        "clipctl update 1 --title 'Rent an e-bike' --localization 'fr=Louer un vélo électrique|En quelques secondes'",
                        "Change the title, and the French card only"),
                    CommandExample(
                        "clipctl update --where 'host=ride.example,label.city=paris' --image station.png --expect 300 --yes",
                        "Give 300 experiences one header image, stored once, or change nothing"),
                ]),
            options: ExperienceCommands.bulkOptions,
            steps: CommandSteps(
                check: ExperienceCommands.checkTarget("update"), input: ExperienceCommands.updateInput,
                route: { words in words.value(ExperienceBulkUpdate.Input.selector.option) != nil ? ExperienceBulkUpdate.binding : nil }),
            json: .shape(ExperienceCommands.writtenJSON), present: ExperienceCommands.presentUpdated))

    /// `activate` and `deactivate`: a PATCH of `status` alone, on the update's route.
    static func statusBinding(_ status: ExperienceStatus, _ name: String, _ help: CommandHelp) -> Binding {
        Binding(
            StatusChange.self, Route("PATCH", "/v1/experiences/{id}", body: .json(optional: false), served: false),
            command: Command(
                [name], help, options: ExperienceCommands.bulkOptions,
                steps: CommandSteps(
                    check: ExperienceCommands.checkTarget(name),
                    input: { line, arguments in
                        if line.parsed.value(ExperienceBulkUpdate.Input.selector.option) != nil {
                            try ExperienceCommands.bulkInput(line, &arguments)
                        } else {
                            try arguments.add(StatusChange.Input.fields[0].facts, line.parsed.positional(0) ?? "", line)
                        }
                        arguments.body = RequestJSON.setStatus(status)
                    },
                    route: { words in words.value(ExperienceBulkUpdate.Input.selector.option) != nil ? ExperienceBulkUpdate.binding : nil }),
                json: .shape(ExperienceCommands.writtenJSON),
                present: { output, _, printer in
                    let e = output.outcome.value
                    printer.line("experience \(e.id) is \(e.status.rawValue): \(e.url.canonical)")
                    ExperienceCommands.printExtras(output.outcome, printer)
                }))
    }

    /// The update as `activate` and `deactivate` name it: the experience alone (their body is the status).
    enum StatusChange: Operation {
        static let callers = CallerRule.token
        static let evaluatesPreconditions = true
        struct Input: DeclaredInput {
            var update = ExperienceUpdate.Input()
            init() {}
            /// Not required by the command, which takes `--where` instead (`ExperienceBulkUpdate`).
            static let fields: [InputField<Input>] = [.experienceID(\.update.id, help: "experience id or URL", required: false)]
            mutating func check(_ reader: inout ArgumentReader) { update.check(&reader) }
        }
        typealias Output = ExperienceWritten
        static func run(_ input: Input, in session: Session) throws -> Output { try ExperienceUpdate.run(input.update, in: session) }
    }
}

/// `clipctl deactivate ID|URL`: stops an experience from matching (`ExperienceUpdate`'s route).
public enum ExperienceDeactivate {
    public static let binding = ExperienceUpdate.statusBinding(
        .deactivated, "deactivate",
        CommandHelp(
            "stop an experience from matching",
            examples: [
                CommandExample(
                    "clipctl deactivate https://bikesrental.example/rent", "Stop an experience from matching without removing it"),
                CommandExample(
                    "clipctl deactivate --where 'host=ride.example,label.city=paris' --expect 25 --yes",
                    "Take the 25 Paris stations off the registry's surfaces at once, or change nothing"),
            ]))
}

/// `clipctl activate ID|URL`: lets a deactivated experience match again (`ExperienceUpdate`'s route).
public enum ExperienceActivate {
    public static let binding = ExperienceUpdate.statusBinding(
        .active, "activate",
        CommandHelp(
            "let a deactivated experience match again", examples: [CommandExample("clipctl activate 1", "Let experience 1 match again")]))
}

/// `DELETE /v1/experiences/{id}` (204) and `clipctl remove ID|URL`: a soft delete; the URL becomes
/// free and the history stays. The command reads the experience first and removes only the
/// version it read (`If-Match`), so that what it prints is what was removed.
public enum ExperienceRemove: Operation {
    public static let callers = CallerRule.token
    public static let evaluatesPreconditions = true

    public struct Input: DeclaredInput {
        var id = ""
        var preconditions = Arguments()
        public init() {}
        public static let id = InputField<Input>.experienceID(\.id, help: "experience id or URL")
        public static let fields: [InputField<Input>] = [id]
        public mutating func check(_ reader: inout ArgumentReader) { preconditions = reader.preconditions }
    }

    /// No content; a command presents the experience it read before (`Arguments.commandRead`).
    public struct Output: OperationOutput {
        public var removed: AdvancedExperience?
        public init(removed: AdvancedExperience?) { self.removed = removed }
        public var json: JSONValue { .null }
        public init(json: JSONValue) throws(WireError) { removed = nil }
        public init(answer: OperationAnswer) throws(WireError) {
            removed = try answer.commandRead.map { (v) throws(WireError) in try CatalogJSON.experience(json: v) }
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let current = try Experiences.visible(input.id, in: session)
        let expected = try input.preconditions.existingPreconditions(
            kind: "e\(current.id)", current: current.version, "experience \(current.id)")
        return Output(removed: try session.registry.remove(String(current.id), expectedVersion: expected).value)
    }

    public static let binding = Binding(
        Self.self, Route("DELETE", "/v1/experiences/{id}", status: 204, body: .none(.ignored)),
        command: Command(
            ["remove"],
            CommandHelp(
                "remove an experience (soft delete; its URL becomes free)",
                examples: [CommandExample("clipctl remove 1", "Remove experience 1; its URL can be registered again")]),
            steps: CommandSteps(input: ExperienceCommands.removeInput), json: .shape { $0.removed.map(CommandJSON.removed) ?? .null },
            present: { output, _, printer in
                guard let e = output.removed else { return }
                printer.line("removed experience \(e.id): \(e.url.canonical)")
            }))
}

/// An experience as read or written, with the write's notes and warnings, its entity tag and, when a
/// POST created it, its place.
public struct ExperienceWritten: OperationOutput {
    public var outcome: WriteOutcome<AdvancedExperience>
    /// The version before the write, when the command read it (`clipctl update` says "nothing to change").
    public var versionBefore: Int?
    /// Its state at the answer's moment (docs/rules.md#experiences-in-time); nil once removed.
    public var state: ExperienceState?

    /// `at`: the moment the state is answered for.
    public init(_ outcome: WriteOutcome<AdvancedExperience>, at: Instant?) {
        self.outcome = outcome
        state = at.map(outcome.value.state)
    }

    public var json: JSONValue { CatalogJSON.written(outcome, state: state) }

    public var headers: [(name: String, value: String)] {
        let e = outcome.value
        return [("ETag", entityTag("e\(e.id)", e.version))] + (outcome.created ? [("Location", "/v1/experiences/\(e.id)")] : [])
    }

    public init(json: JSONValue) throws(WireError) { try self.init(json: json, status: 200) }

    public init(json: JSONValue, status: Int) throws(WireError) {
        outcome = try CatalogJSON.written(json: json, created: status == 201)
        state = CatalogJSON.state(json: json)
    }

    /// With what the command read: the experience before, and the warnings of an image it uploaded first.
    public init(answer: OperationAnswer) throws(WireError) {
        try self.init(json: answer.json, status: answer.status)
        let read = answer.commandRead
        outcome.warnings += (read?["imageWarnings"]?.arrayValue ?? []).compactMap(ProblemJSON.fieldError(json:))
        if let before = read?["before"], before != .null { versionBefore = try CatalogJSON.experience(json: before).version }
    }
}

/// What the experience operations share: the team scope of an id and of a written clip.
public enum Experiences {
    /// An experience the caller may see, by its id as the route's path gives it: "01", "+1" and
    /// another team's experience answer what a missing one does (docs/rules.md#identifiers, #tenancy).
    public static func visible(_ id: String, in session: Session) throws -> AdvancedExperience {
        guard let n = ExperienceReference.id(id) else { throw RegistryError.notFound("experience \(id)") }
        let e = try session.registry.experience(String(n))
        try session.checkVisible(team: e.clip.team, "experience \(n)")
        return e
    }

    /// A team token writes its own team's clips only (HTTP 403, before the body's other checks).
    static func checkWritable(_ document: JSONValue, in session: Session) throws {
        if let clip = document["clip"]?.stringValue, let id = try? AppID(clip) { try session.checkWritable(team: id.team) }
    }
}
