public import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Campaigns (docs/schedules.md#campaigns): `/v1/campaigns…` and `clipctl campaign …`. A campaign belongs to one team and
/// changes that team's experiences only; a team token sees and changes its own team's (another team's is not found).
public enum CampaignAdd: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var name = ""
        var team: TeamID?
        var selector: String?
        var experiences: [Int64] = []
        var startsAt: Instant?
        var endsAt: Instant?
        var changes: JSONValue?
        var restore: JSONValue?
        var pushAhead = false

        public init() {}

        static let name = InputField<Input>.text(
            "name", \.name, in: .body, "NAME", help: "the campaign's name in its team, such as summer-2027", required: true,
            positional: true)
        static let team = InputField<Input>.writingTeam(\.team, help: "the team whose experiences it changes (a team token's own)")
        static let selector = InputField<Input>.text(
            "where", \.selector, in: .body, "SELECTOR",
            help: "the experiences it changes, chosen when it starts, such as 'label.region=idf' (docs/sheets.md#selectors)")
        /// `experiences`: a list of ids in the body; the command's `--experience ID`, repeatable.
        static let experiences: InputField<Input> = {
            let facts = FieldFacts(
                name: "experiences", place: .body, type: .text, placeholder: "ID", help: "an experience it changes, by id (repeatable)",
                repeatable: true, option: "experience")
            return InputField(
                facts,
                read: { input, reader in
                    guard let list = reader.fields.raw(facts.name) else { return }
                    let ids = list.arrayValue?.compactMap { value -> Int64? in if case .integer(let n) = value, n > 0 { n } else { nil } }
                    guard let ids, ids.count == list.arrayValue?.count, !ids.isEmpty, ids.count <= 10_000 else {
                        reader.fields.fail(facts.name, "type", "must be a list of 1 to 10000 experience ids")
                        return
                    }
                    input.experiences = ids
                },
                write: { input, arguments in
                    if !input.experiences.isEmpty { arguments.setMember(facts.name, .array(input.experiences.map(JSONValue.integer))) }
                })
        }()
        static let startsAt = InputField<Input>.instant(
            "startsAt", \.startsAt, option: "from", help: "when it starts, such as '2027-06-01T00:00 Europe/Paris'", required: true)
        static let endsAt = InputField<Input>.instant(
            "endsAt", \.endsAt, option: "until", help: "when it ends and its changes are undone (default: when ended by hand)")
        static let changes = InputField<Input>.object(
            "changes", \.changes, "JSON|@FILE",
            help:
                "the members it sets, as an update takes them: title, subtitle, localizations, action, category, poweredBy, headerImage, place"
        )
        static let restore = InputField<Input>.object(
            "restore", \.restore, "JSON|@FILE", help: "what those members become at the end (default: what each was before the start)")
        static let pushAhead = InputField<Input>.flag(
            "pushAhead", \.pushAhead, in: .body,
            help:
                "push its start and end to App Store Connect the clip's lead ahead of them (clipctl asc lead), so that devices show it from its start",
            option: "push-ahead")
        public static let fields: [InputField<Input>] = [
            name, team, selector, experiences, startsAt, endsAt, changes, restore, pushAhead,
        ]

        public mutating func check(_ reader: inout ArgumentReader) {
            if changes == nil, !reader.fields.errors.contains(where: { $0.field == Input.changes.facts.name }) {
                reader.fields.fail(Input.changes.facts.name, "required", "is required")
            }
        }
    }

    public struct Output: WriteAnswer {
        public var outcome: WriteOutcome<Campaign>
        public init(_ outcome: WriteOutcome<Campaign>) { self.outcome = outcome }
        public var status: Int? { 201 }
        public var headers: [(name: String, value: String)] { [("Location", "/v1/campaigns/\(outcome.value.id)")] }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let team = input.team, let startsAt = input.startsAt, let changes = input.changes else { throw RegistryError.invalid([]) }
        try session.checkWritable(team: team)
        var selector: ExperienceSelector?
        if let text = input.selector {
            do { selector = try ExperienceSelector(text, field: Input.selector.facts.name) } catch {
                throw RegistryError.invalid(error.errors)
            }
        }
        return Output(
            try session.registry.addCampaign(
                Registry.CampaignDraft(
                    team: team, name: input.name, selector: selector, experiences: input.experiences, changes: changes,
                    restore: input.restore, startsAt: startsAt, endsAt: input.endsAt, pushAhead: input.pushAhead)))
    }

    /// `--set MEMBER=VALUE`, repeatable: one member of `changes` (a flag's `true`/`false`, a place's JSON, any other text).
    static let set = FieldFacts(
        name: "set", place: .command, type: .text, placeholder: "MEMBER=VALUE",
        help: "a member it sets, such as subtitle='Summer rides' (repeatable; beside --localization and --changes)", repeatable: true)
    static let localization = FieldFacts(
        name: "localization", place: .command, type: .text, placeholder: "LANG=TITLE|SUBTITLE",
        help: "a card it sets in a language (repeatable)", repeatable: true)

    /// The `changes` the command line gives: `--changes`, then each `--set` and `--localization` over it.
    static func changes(_ line: CommandLine) throws -> JSONValue? {
        var members = try line.json(Input.changes.facts.option)?.objectMembers ?? []
        func put(_ key: String, _ value: JSONValue) {
            members.removeAll { $0.key == key }
            members.append((key: key, value: value))
        }
        for term in line.parsed.all(set.option) {
            guard let eq = term.firstIndex(of: "="), eq != term.startIndex else {
                throw CommandUsageError("--\(set.option) takes \(set.placeholder), such as subtitle='Summer rides'")
            }
            let key = String(term[..<eq]), text = String(term[term.index(after: eq)...])
            switch ExperienceField.named[key]?.kind {
            case .flag?:
                guard let truth = ["true": true, "false": false][text] else { throw CommandUsageError("--set \(key)= takes true or false") }
                put(key, .bool(truth))
            case .json?:
                do { put(key, try JSONParser.parse(text)) } catch {
                    throw RegistryError.invalid([
                        FieldError(field: "changes.\(key)", rule: "json", message: "malformed JSON: \(error.description)")
                    ])
                }
            default: put(key, .string(text))
            }
        }
        let cards = try ExperienceCommands.localizations(line.parsed)
        if let cards { put("localizations", cards) }
        return members.isEmpty && cards == nil && line.parsed.value(Input.changes.facts.option) == nil ? nil : .object(members)
    }

    public static let binding: Binding = Binding(
        Self.self, Route("POST", "/v1/campaigns", status: 201, body: .json(optional: false)),
        command: Command(
            ["campaign", "add"],
            CommandHelp(
                "schedule a change to some experiences for a while; at its end each member goes back",
                discussion: "The experiences are those --where selects when it starts (or those --experience names). "
                    + "A member someone changed during the campaign keeps their change at the end. "
                    + "clipctl campaign show NAME previews what it changes; the scheduler of clipctl serve (or clipctl schedule run) applies it.",
                examples: [
                    CommandExample(
                        "clipctl campaign add summer-2027 --team A1B2C3D4E5 --where label.region=idf --from '2027-06-01 Europe/Paris' --until '2027-09-01 Europe/Paris' --set subtitle='Summer: first ride free'",
                        "Give the stations labelled region=idf a summer subtitle from June 1 to August 31")
                ]),
            options: [set, localization],
            steps: CommandSteps(input: { line, arguments in
                var input = Input()
                input.name = line.parsed.positional(0) ?? ""
                input.team = try line.parsed.value(Input.team.facts.option).map { text in
                    try ClipFields.parsed { () throws(ValidationFailure) in try TeamID(text, field: Input.team.facts.name) }
                }
                input.selector = line.parsed.value(Input.selector.facts.option)
                for id in line.parsed.all(Input.experiences.facts.option) {
                    guard let n = ExperienceReference.id(id) else {
                        throw CommandUsageError("--experience takes an experience id, such as 12")
                    }
                    input.experiences.append(n)
                }
                input.changes = try changes(line)
                input.restore = try line.json(Input.restore.facts.option)
                input.pushAhead = line.parsed.flag(Input.pushAhead.facts.option)
                arguments = input.arguments
                for field in [Input.startsAt.facts, Input.endsAt.facts] {
                    if let text = line.parsed.value(field.option) { arguments.setMember(field.name, .string(text)) }
                }
            }),
            json: .shape(\.written),
            present: { output, _, printer in
                let c = output.outcome.value
                printer.line("campaign \(c.name) (\(c.id)) scheduled: \(CampaignCommands.window(c))")
                printer.warnings(output.outcome.warnings)
                printer.notes(output.outcome.notes)
            }))
}

/// `GET /v1/campaigns` and `clipctl campaign list`: the caller's campaigns, newest start first.
public enum CampaignList: Operation {
    public static let callers = CallerRule.token
    public typealias Input = NoInput
    public typealias Output = Items<Campaign>

    public static func run(_ input: Input, in session: Session) throws -> Output {
        Output(try session.registry.campaigns(team: session.caller.team))
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/campaigns"),
        command: Command(
            ["campaign", "list"],
            CommandHelp(
                "list the campaigns, newest start first",
                examples: [CommandExample("clipctl campaign list", "Every campaign: its state and window")]),
            present: { output, _, printer in
                if output.items.isEmpty { printer.line("no campaigns") }
                for c in output.items {
                    printer.line(
                        "\(c.id)  \(c.name)  \(c.state.rawValue.uppercased())  \(CampaignCommands.window(c))  team \(c.team.rawValue)")
                }
            }))
}

/// `GET /v1/campaigns/{id}` and `clipctl campaign show ID|NAME [--at TIME]`: the campaign, what it changes on each of its
/// experiences (a dry run: nothing is written), its state at a moment, and its timeline.
public enum CampaignShow: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        var id = ""
        var at: Instant?
        public init() {}
        public static let fields: [InputField<Input>] = [CampaignCommands.reference(\.id), .moment(\.at)]
    }

    public typealias Output = CampaignDetail

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let registry = session.registry
        let campaign = try registry.campaign(input.id, team: session.caller.team)
        let at = input.at ?? registry.instant
        let applied = try registry.appliedFlips(team: campaign.team, limit: 1000).filter {
            ($0.kind == .campaignStart || $0.kind == .campaignEnd) && $0.subject == campaign.id
        }
        let upcoming = try registry.upcomingFlips(team: campaign.team, limit: 1000).filter {
            ($0.kind == .campaignStart || $0.kind == .campaignEnd) && $0.subject == campaign.id
        }
        return Output(
            campaign: campaign, stateAt: campaign.state(at: at), at: at, preview: try registry.campaignPreview(campaign),
            timeline: applied.reversed() + upcoming)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/campaigns/{id}"),
        command: Command(
            ["campaign", "show"],
            CommandHelp(
                "show a campaign: what it changes on each experience, and when",
                discussion: "A dry run: nothing is written. --at says what state the schedule gives it at that time.",
                examples: [
                    CommandExample(
                        "clipctl campaign show summer-2027 --at '2027-07-14 Europe/Paris'",
                        "What summer-2027 changes, and whether it runs on July 14")
                ]),
            present: { d, _, printer in
                let c = d.campaign
                printer.line("campaign \(c.name) (\(c.id)), team \(c.team.rawValue): \(c.state.rawValue), \(CampaignCommands.window(c))")
                printer.line("at \(d.at): \(d.stateAt.rawValue)")
                printer.line(
                    "changes: \(JSONWriter.string(c.changes))" + (c.restore.map { "; at the end: \(JSONWriter.string($0))" } ?? ""))
                for flip in d.timeline {
                    let when =
                        flip.appliedAt.map {
                            "applied \($0) by \(flip.by ?? "schedule")" + (flip.isLate ? ", late by \(flip.delaySeconds ?? 0) s" : "")
                        } ?? "due"
                    printer.line("  \(flip.dueAt)  \(flip.kind == .campaignStart ? "start" : "end")  \(when)")
                }
                printer.line(
                    "\(d.preview.count) experience\(d.preview.count == 1 ? "" : "s")" + (c.state == .scheduled ? " (as selected now)" : ""))
                for line in d.preview.prefix(Printer.listedAtMost) {
                    let held = line.heldBy.map { "  (held by campaign \($0): left alone)" } ?? ""
                    printer.line(
                        "  \(line.experience)  \(line.url)  \(JSONWriter.string(line.before)) → \(JSONWriter.string(line.after))\(held)")
                }
                if d.preview.count > Printer.listedAtMost {
                    printer.line("  … and \(d.preview.count - Printer.listedAtMost) more (--json lists them all)")
                }
            }))
}

/// `POST /v1/campaigns/{id}/start` and `clipctl campaign start`: a scheduled campaign starts now, before its time.
public enum CampaignStart: Operation {
    public static let callers = CallerRule.token
    public typealias Input = CampaignCommands.Reference
    public typealias Output = CampaignFlip

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.startCampaign(try CampaignCommands.writable(input.id, in: session), team: session.caller.team).value
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/campaigns/{id}/start", body: .none(.refused)),
        command: Command(
            ["campaign", "start"],
            CommandHelp(
                "start a scheduled campaign now, before its time",
                examples: [CommandExample("clipctl campaign start summer-2027", "Make summer-2027's changes now")]),
            present: CampaignCommands.presentFlip))
}

/// `POST /v1/campaigns/{id}/end` and `clipctl campaign end`: a running campaign ends now, its changes undone.
public enum CampaignEnd: Operation {
    public static let callers = CallerRule.token
    public typealias Input = CampaignCommands.Reference
    public typealias Output = CampaignFlip

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.endCampaign(try CampaignCommands.writable(input.id, in: session), team: session.caller.team, cancel: false)
            .value
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/campaigns/{id}/end", body: .none(.refused)),
        command: Command(
            ["campaign", "end"],
            CommandHelp(
                "end a running campaign now: its changes are undone",
                examples: [CommandExample("clipctl campaign end summer-2027", "Set back what summer-2027 changed, now")]),
            present: CampaignCommands.presentFlip))
}

/// `POST /v1/campaigns/{id}/cancel` and `clipctl campaign cancel`: a scheduled campaign never starts; a running one ends
/// now as `end` ends it, and is kept as cancelled.
public enum CampaignCancel: Operation {
    public static let callers = CallerRule.token
    public typealias Input = CampaignCommands.Reference
    public typealias Output = CampaignFlip

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.endCampaign(try CampaignCommands.writable(input.id, in: session), team: session.caller.team, cancel: true)
            .value
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/campaigns/{id}/cancel", body: .none(.refused)),
        command: Command(
            ["campaign", "cancel"],
            CommandHelp(
                "cancel a campaign: a scheduled one never starts, a running one ends now",
                examples: [CommandExample("clipctl campaign cancel summer-2027", "Call summer-2027 off")]),
            present: CampaignCommands.presentFlip))
}

/// `POST /v1/campaigns/{id}/revert` and `clipctl campaign revert`: every member back to what the campaign's fields were
/// before its start, changes made since included; a running campaign ends first (docs/schedules.md#campaigns).
public enum CampaignRevertOperation: Operation {
    public static let callers = CallerRule.token
    public typealias Input = CampaignCommands.Reference
    public typealias Output = CampaignRevert

    public static func run(_ input: Input, in session: Session) throws -> Output {
        try session.registry.revertCampaign(try CampaignCommands.writable(input.id, in: session), team: session.caller.team).value
    }

    public static let binding = Binding(
        Self.self, Route("POST", "/v1/campaigns/{id}/revert", body: .none(.refused)),
        command: Command(
            ["campaign", "revert"],
            CommandHelp(
                "set every experience a campaign changed back to what it was before the campaign, changes made since included",
                discussion:
                    "A running campaign ends first. Unlike end, which keeps a field changed since the start, revert sets it back too; one change record per experience.",
                examples: [
                    CommandExample("clipctl campaign revert summer-2027", "Undo summer-2027 wholly, edits made during it included")
                ]),
            present: CampaignCommands.presentRevert))
}

/// What the campaign commands share.
public enum CampaignCommands {
    /// The input of a change of a campaign's state: which campaign.
    public struct Reference: DeclaredInput {
        var id = ""
        public init() {}
        public static let fields: [InputField<Reference>] = [CampaignCommands.reference(\.id)]
    }

    static func reference<Input>(_ key: any WritableKeyPath<Input, String> & Sendable) -> InputField<Input> {
        .text("id", key, in: .path, "ID|NAME", help: "the campaign's id or name", required: true)
    }

    /// The campaign's id once the caller may change it (a team token: its own team's; another team's is not found).
    static func writable(_ reference: String, in session: Session) throws -> String {
        let campaign = try session.registry.campaign(reference, team: session.caller.team)
        try session.checkWritable(team: campaign.team)
        return String(campaign.id)
    }

    /// Its planned window, then when it really started and ended where that was not on time: by hand, or later than a
    /// flip may be without being late (`ScheduledFlip.lateAfterSeconds`; the runner looks every second).
    static func window(_ c: Campaign) -> String {
        func offPlan(_ actual: Instant?, _ planned: Instant?) -> Instant? {
            guard let actual, let planned else { return actual }
            return abs(actual.seconds - planned.seconds) > ScheduledFlip.lateAfterSeconds ? actual : nil
        }
        let actual = [
            offPlan(c.startedAt, c.startsAt).map { "started \($0)" }, offPlan(c.endedAt, c.endsAt).map { "ended \($0)" },
        ].compactMap { $0 }
        return "from \(c.startsAt)" + (c.endsAt.map { " until \($0)" } ?? " until ended by hand")
            + (actual.isEmpty ? "" : " (\(actual.joined(separator: ", ")))")
    }

    static func presentRevert(_ output: CampaignRevert, _ words: CommandWords, _ printer: Printer) {
        if output.end != nil { printer.line("campaign \(output.campaign.name) ended") }
        printer.line(
            "campaign \(output.campaign.name) reverted: experiences set back \(output.reverted.count), already so \(output.unchanged.count), "
                + "left alone \(output.kept.count), removed since \(output.removed.count)")
        for k in output.kept.prefix(Printer.listedAtMost) { printer.line("  \(k.id): \(k.reason)") }
    }

    static func presentFlip(_ output: CampaignFlip, _ words: CommandWords, _ printer: Printer) {
        let c = output.campaign
        guard let flip = output.flip else {
            printer.line("campaign \(c.name) cancelled: it never started")
            return
        }
        let detail = flip.detail
        if flip.kind == .campaignStart {
            let skipped = detail?["skipped"]?.arrayValue ?? []
            printer.line(
                "campaign \(c.name) started: experiences changed \(detail?["changed"].map { JSONWriter.string($0) } ?? "0"), "
                    + "already so \(detail?["unchanged"].map { JSONWriter.string($0) } ?? "0"), left alone \(skipped.count)")
            for s in skipped.prefix(Printer.listedAtMost) {
                printer.line("  \(s["id"].map { JSONWriter.string($0) } ?? "?"): \(s["reason"]?.stringValue ?? "")")
            }
        } else {
            let kept = detail?["kept"]?.arrayValue ?? []
            printer.line(
                "campaign \(c.name) \(c.state == .cancelled ? "cancelled" : "ended"): experiences set back "
                    + "\(detail?["reverted"].map { JSONWriter.string($0) } ?? "0"), kept as changed since the start \(kept.count)")
        }
    }
}
