import ClipCore
import StrictJSON

/// The forms in which change records keep an object before and after a change (docs/rules.md#change-records):
/// the store's own, apart from the API's (`ClipWire`), so that a change to what the API answers can
/// never rewrite history, nor the webhook payloads made from these forms (`WebhookPayload.experience`).
///
/// Every record names its form in `change_record.form` (Migrations/0010_change_record_form.sql; the
/// records written before that column are form 1, which is what they hold). Form 1 is the API's form
/// of each object as it was when the form was frozen, member for member and in the same order, and
/// must stay so: a new member, a renamed one or another order is a new form, written from then on, while
/// `read` keeps giving every older record as it was stored.
///
/// Form 2 is form 1 with an experience's `labels` (docs/sheets.md#labels) as its last portable member,
/// present only when the experience has labels: a record of an unlabelled object is the same in both.
///
/// Form 3 is form 2 with an experience's `liveFrom` and `liveUntil` (docs/rules.md#experiences-in-time) after
/// `headerImage`, each present only when set: a record of an experience without a window is the same in all three.
enum AuditForm {
    /// The form new change records are written in.
    static let version: Int64 = 3

    /// A stored `before` or `after` of form `form`, as the change feed gives it (`GET /v1/changes`,
    /// `clipctl changes`): form 1 as stored. A form this version does not know (written by a newer
    /// one) is refused rather than guessed at.
    static func read(_ text: String, form: Int64) throws -> JSONValue {
        guard (1...3).contains(form) else {
            throw RegistryError.storage(
                "a change record is in audit form \(form), which this version does not know (a newer version wrote it)")
        }
        return try JSONParser.parse(text)
    }

    /// An advanced experience: `id`, the portable members (`ExperienceJSON.portable`, the fields as
    /// declared once in ClipCore), `status` when the portable form leaves it out, then `version`,
    /// `createdAt` and `updatedAt`.
    static func experience(_ e: AdvancedExperience) -> JSONValue {
        guard case .object(let members) = ExperienceJSON.portable(e) else { return .null }
        var all: [(key: String, value: JSONValue)] = [(key: "id", value: .integer(e.id))]
        all += members
        if !members.contains(where: { $0.key == "status" }) { all.append((key: "status", value: .string(e.status.rawValue))) }
        all += [
            (key: "version", value: .integer(Int64(e.version))),
            (key: "createdAt", value: .string(e.createdAt)),
            (key: "updatedAt", value: .string(e.updatedAt)),
        ]
        return .object(all)
    }

    /// An app (no `appStoreId` member while it has none, as recorded since the first version).
    static func app(_ app: App) -> JSONValue {
        .object([
            "bundleId": .string(app.bundleID.rawValue),
            "team": .string(app.team.rawValue),
            "appId": .string(app.appID.rawValue),
            "appStoreId": app.appStoreID.map { .string($0.rawValue) },
            "name": .string(app.name),
            "version": .integer(Int64(app.version)),
        ])
    }

    /// A clip's default experience: its localizations by locale, in locale order.
    static func defaultExperience(_ d: DefaultExperience) -> JSONValue {
        .object([
            "clip": .string(d.clip.rawValue),
            "action": .string(d.action.rawValue),
            "localizations": .object(
                d.localizations.keys.sorted().map { locale in
                    let l = d.localizations[locale]!
                    return (
                        key: locale, value: .object(["subtitle": .string(l.subtitle), "headerImage": l.headerImage.map(JSONValue.string)])
                    )
                }),
            "version": .integer(Int64(d.version)),
        ])
    }

    /// An API token (never its secret: only its SHA-256 is stored at all).
    static func token(_ t: APIToken) -> JSONValue {
        .object([
            "id": .integer(t.id), "name": .string(t.name), "scope": .string(t.team.map { "team:\($0.rawValue)" } ?? "admin"),
            "team": t.team.map { .string($0.rawValue) }, "createdAt": .string(t.createdAt),
            "lastUsedAt": t.lastUsedAt.map(JSONValue.string), "revokedAt": t.revokedAt.map(JSONValue.string),
        ])
    }

    /// A webhook endpoint (never its secret), absent values as `null`.
    static func webhook(_ e: WebhookEndpoint) -> JSONValue {
        .object([
            ("id", .integer(e.id)), ("url", .string(e.url)), ("events", .array(e.events.patterns.map(JSONValue.string))),
            ("team", e.team.map { .string($0.rawValue) } ?? .null), ("state", .string(e.state.rawValue)),
            ("createdAt", .string(e.createdAt)), ("failingSince", e.failingSince.map(JSONValue.string) ?? .null),
            ("failure", e.failure.map(JSONValue.string) ?? .null),
        ])
    }

    static func acknowledgement(_ a: DoctorAcknowledgement) -> JSONValue {
        .object([
            ("id", .integer(a.id)), ("rule", .string(a.rule)), ("scope", .string(a.scope.text)),
            ("team", a.team.map { .string($0.rawValue) } ?? .null), ("note", a.note.map(JSONValue.string) ?? .null),
            ("createdAt", .string(a.createdAt)),
        ])
    }
}

extension AuditForm {
    /// A campaign as its change records keep it: what it changes, over which experiences, when, and its state.
    static func campaign(_ c: Campaign) -> JSONValue {
        .object([
            ("id", .integer(c.id)), ("team", .string(c.team.rawValue)), ("name", .string(c.name)),
            ("where", c.selector.map { .string($0.text) } ?? .null), ("experiences", .array(c.experiences.map(JSONValue.integer))),
            ("changes", c.changes), ("restore", c.restore ?? .null), ("startsAt", .string(c.startsAt.description)),
            ("endsAt", c.endsAt.map { .string($0.description) } ?? .null), ("pushAhead", .bool(c.pushAhead)),
            ("state", .string(c.state.rawValue)),
        ])
    }
}
