import ClipCore
import ClipStore
import ClipSync
import ClipSyncEngine
public import ClipWire
public import StrictJSON

/// `clipctl asc link CLIP`: finds a clip's app and App Clip in App Store Connect by bundle ID and remembers their ids
/// (docs/app-store-connect.md). On the database only, with the key of the one who runs it: no route.
public enum AscLink: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip = ""
        public init() {}
        public static let fields: [InputField<Input>] = [
            .text("clip", \.clip, "CLIP", help: "the clip's App ID (TEAMID.BUNDLE) or bundle ID", required: true, positional: true)
        ]
    }

    public typealias Output = AppStoreConnectLinked

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let engine = try session.syncEngine()
        let outcome = try synced { () throws(SyncFailure) in try engine.link(input.clip) }
        return Output(link: outcome.value, created: outcome.created)
    }

    /// link and pull read the database itself (`--server` would be a silent local run otherwise).
    static func databaseOnly(_ command: String) -> ServerCall {
        ServerCall(refusal: { _ in
            "asc \(command) works on the database itself; over --server only asc plan, status, apply and testflight plan|apply run"
        })
    }

    public static let binding = Binding(
        Self.self, Route("", "", served: false),
        command: Command(
            ["asc", "link"],
            CommandHelp(
                "find a clip's app and App Clip in App Store Connect by bundle ID and remember their ids",
                examples: [
                    CommandExample(
                        "clipctl asc link ABCDE12345.com.example.bikes.Clip --key-id 2X9R4HXF34 --issuer-id 57246542-96fe-1a63-e053-0824d011072a --private-key AuthKey_2X9R4HXF34.p8",
                        "Find the clip in App Store Connect (the key may come from ASC_ environment variables instead)")
                ]),
            options: AppStoreConnectKey.options, server: databaseOnly("link"),
            present: { output, _, printer in
                let link = output.link
                let locale = link.primaryLocale.map { ", primary locale \($0)" } ?? ""
                printer.line(
                    "\(output.created ? "linked" : "already linked:") \(link.clip.rawValue) → App Store Connect app "
                        + "\(link.ascAppID) (\(link.appBundleID)\(locale)), App Clip \(link.ascAppClipID)")
            }))
}

/// `clipctl asc pull`: adopts what App Store Connect has (experiences, cards, place, header images); where both sides
/// differ nothing is overwritten (exit 2) unless `--prefer` says which side wins. On the database only: no route.
public enum AscPull: Operation {
    public static let callers = CallerRule.admin
    public static let waitsOnOthers = true

    public struct Input: DeclaredInput {
        public var clip: String?
        public var prefer: String?
        public init() {}
        static let prefer = InputField.text(
            "prefer", \Input.prefer, "asc|registry", help: "where both differ: take App Store Connect's or keep ours")
        public static let fields: [InputField<Input>] = [.linkedClip(\.clip), prefer]
    }

    /// `{"pulled": [...]}`, each report as `PullReport.json` writes it.
    public struct Output: OperationOutput {
        public var json: JSONValue
        public init(json: JSONValue) { self.json = json }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        var prefer: PullPreference?
        if let text = input.prefer {
            guard let value = PullPreference(rawValue: text) else { throw CommandUsageError("--prefer takes asc or registry") }
            prefer = value
        }
        let engine = try session.syncEngine()
        let reports = try synced { () throws(SyncFailure) in try engine.pull(clip: input.clip, prefer: prefer) }
        return Output(json: ["pulled": .array(reports.map(\.json))])
    }

    public static let binding = Binding(
        Self.self, Route("", "", served: false),
        command: Command(
            ["asc", "pull"],
            CommandHelp(
                "adopt what App Store Connect has: experiences, cards, place, header images",
                discussion: """
                    Experiences here are matched by the id of their last push, then by URL. Where both sides differ, \
                    nothing is overwritten (exit 2) unless --prefer says which side wins.
                    """,
                examples: [
                    CommandExample(
                        "clipctl asc pull --clip ABCDE12345.com.example.bikes.Clip --prefer registry",
                        "Adopt what App Store Connect has for a clip, keeping ours where both differ")
                ]),
            options: AppStoreConnectKey.options, server: AscLink.databaseOnly("pull"),
            present: { output, words, printer in
                let reports = output.json["pulled"]?.arrayValue ?? []
                for report in reports { printer.pulled(report) }
                let unsettled = reports.map(Printer.unsettled).reduce(0, +)
                if words.value(Input.prefer.facts.name) == nil, unsettled > 0 {
                    throw CommandVerdict.pending(
                        "\(unsettled) experience(s) differ and were left as they are: run asc pull --prefer asc to take App "
                            + "Store Connect's values, or --prefer registry to keep the registry's (asc apply then pushes them)")
                }
            }))
}

extension Printer {
    /// One clip's pull, from `PullReport.json`: what was adopted, what differs and which side was kept.
    func pulled(_ report: JSONValue) {
        line("clip \(report["clip"]?.stringValue ?? "")")
        for adopted in report["adopted"]?.arrayValue ?? [] {
            line("  adopted \(adopted["url"]?.stringValue ?? "") as experience \(Self.integer(adopted["experience"]))")
        }
        let differing = report["differing"]?.arrayValue ?? []
        for difference in differing {
            let what =
                difference["tookAppStoreConnect"]?.boolValue == true
                ? "took App Store Connect's"
                : difference["keptRegistry"]?.boolValue == true ? "kept the registry's (asc apply pushes it)" : "differs"
            line("  \(what): experience \(Self.integer(difference["experience"])) \(difference["url"]?.stringValue ?? "")")
            for change in difference["changes"]?.arrayValue ?? [] { fieldChange(change) }
        }
        if let outcome = report["defaultExperience"]?.stringValue { line("  default experience: \(outcome)") }
        for change in report["defaultExperienceChanges"]?.arrayValue ?? [] { fieldChange(change) }
        for note in report["notes"]?.arrayValue ?? [] { line("  note: \(note.stringValue ?? "")") }
        let took = differing.filter { $0["tookAppStoreConnect"]?.boolValue == true }.count
        let kept = differing.filter { $0["keptRegistry"]?.boolValue == true }.count
        var settled: [String] = []
        if took > 0 { settled.append("\(took) took App Store Connect's") }
        if kept > 0 { settled.append("\(kept) kept the registry's") }
        let unsettled = differing.count - took - kept
        if unsettled > 0 || settled.isEmpty { settled.append("\(unsettled) differ") }
        let adopted = report["adopted"]?.arrayValue?.count ?? 0
        line("\(adopted) adopted, \(Self.integer(report["same"])) in sync, " + settled.joined(separator: ", "))
    }

    private func fieldChange(_ change: JSONValue) {
        line(
            "      \(change["field"]?.stringValue ?? ""): registry \(change["registry"]?.stringValue ?? ""), "
                + "App Store Connect \(change["appStoreConnect"]?.stringValue ?? "")")
    }

    /// Differences left as they are (`PullReport.unsettled`).
    static func unsettled(_ report: JSONValue) -> Int {
        let differing = report["differing"]?.arrayValue ?? []
        let settled = differing.filter { $0["tookAppStoreConnect"]?.boolValue == true || $0["keptRegistry"]?.boolValue == true }
        return differing.count - settled.count + (report["defaultExperience"]?.stringValue == "differs" ? 1 : 0)
    }

    static func integer(_ value: JSONValue?) -> String {
        if case .integer(let n)? = value { return String(n) }
        return ""
    }
}

/// `clipctl asc lead CLIP DURATION`: how long before its `liveFrom` each of a linked clip's experiences is pushed to
/// App Store Connect (docs/schedules.md#app-store-connect; 48 hours when never set). On the database, as `asc link`.
public enum AscLead: Operation {
    public static let callers = CallerRule.admin

    public struct Input: DeclaredInput {
        public var clip = ""
        public var lead = ""
        public init() {}
        static let lead = InputField<Input>.text(
            "lead", \.lead, "DURATION", help: "such as 48h, 90m or 0 (at liveFrom itself); at most 30d", required: true, positional: true)
        public static let fields: [InputField<Input>] = [
            .text("clip", \.clip, "CLIP", help: "the linked clip's App ID (TEAMID.BUNDLE) or bundle ID", required: true, positional: true),
            lead,
        ]
    }

    public typealias Output = AppStoreConnectLinked

    public static func run(_ input: Input, in session: Session) throws -> Output {
        guard let seconds = AppStoreConnectSchedule.leadSeconds(input.lead) else {
            throw RegistryError.invalid([
                FieldError(field: Input.lead.facts.name, rule: "duration", message: "must be a duration such as 48h, 90m, 30s or 2d")
            ])
        }
        return Output(link: try session.registry.setASCLead(clip: input.clip, seconds: seconds).value, created: false)
    }

    public static let binding = Binding(
        Self.self, Route("", "", served: false),
        command: Command(
            ["asc", "lead"],
            CommandHelp(
                "push a linked clip's scheduled experiences this long before they go live",
                discussion: "Apple's data takes hours to reach devices; clipctl serve pushes each experience at liveFrom minus the lead.",
                examples: [CommandExample("clipctl asc lead ABCDE12345.com.example.bikes.Clip 72h", "Push three days ahead")]),
            server: AscLink.databaseOnly("lead"),
            present: { output, _, printer in
                let s = output.link.leadSeconds
                printer.line("\(output.link.clip.rawValue): pushed to App Store Connect \(s / 3600) h \(s % 3600 / 60) min before liveFrom")
            }))
}
