public import AppStoreConnect
public import ClipCore
import FileFormats
import StrictJSON

/// The one place that maps the registry's experience fields (`ExperienceField`) to App Store Connect's
/// attributes (docs/asc-sync.md): comparison, fingerprint, pull, create and update requests.
extension SyncPlan {
    /// The fields App Store Connect holds that differ from the registry's, in a fixed order.
    static func fieldChanges(_ experience: AdvancedExperience, _ asc: ASCAdvancedExperience) -> [FieldChange] {
        var changes: [FieldChange] = []
        func compare(_ field: String, _ before: String?, _ after: String?) {
            if before != after { changes.append(FieldChange(field: field, before: before ?? "none", after: after ?? "none")) }
        }
        compare("action", asc.action?.rawValue, experience.action.rawValue)
        compare("businessCategory", asc.businessCategory?.rawValue, experience.businessCategory?.rawValue)
        compare("defaultLanguage", asc.defaultLanguage?.rawValue, experience.defaultLanguage.rawValue)
        compare("isPoweredBy", asc.isPoweredBy.map { "\($0)" } ?? "false", "\(experience.isPoweredBy)")
        let ascPlace = asc.place.flatMap { $0 == .null ? nil : $0 }
        compare("place", ascPlace.map { JSONWriter.string($0) }, experience.place.map { JSONWriter.string($0) })
        let theirs = Dictionary(
            asc.localizations.compactMap { l in l.language.map { ($0.rawValue, l) } }, uniquingKeysWith: { first, _ in first })
        let languages = Set(theirs.keys).union(experience.localizations.keys.map(\.rawValue)).sorted()
        for language in languages {
            let ours = Language(rawValue: language).flatMap { experience.localizations[$0] }
            compare("localizations.\(language).title", theirs[language]?.title, ours?.title)
            compare("localizations.\(language).subtitle", theirs[language]?.subtitle, ours?.subtitle)
        }
        return changes
    }

    /// A digest of what a person can edit of an experience in App Store Connect's web pages: its link, attributes, header
    /// image and cards, the cards in no particular order. A digest other than the one recorded at the last pull or push
    /// means someone changed it there. What Apple sets by itself while it processes (`status`, `placeStatus`, `version`,
    /// the image's delivery state; ../shared/docs/asc-api.md §9) and the order it lists things in are not in it. A push
    /// records the digest of `held(after:headerImageID:localizations:before:)`, a plan that of what it reads: one function.
    public static func fingerprint(_ asc: ASCAdvancedExperience) -> String {
        let localizations = asc.localizations.map { l -> JSONValue in
            ["language": .string(l.language?.rawValue ?? ""), "title": .string(l.title ?? ""), "subtitle": .string(l.subtitle ?? "")]
        }.sorted { JSONWriter.string($0) < JSONWriter.string($1) }
        let content: JSONValue = [
            "link": .string(asc.link), "action": .string(asc.action?.rawValue ?? ""),
            "businessCategory": .string(asc.businessCategory?.rawValue ?? ""),
            "defaultLanguage": .string(asc.defaultLanguage?.rawValue ?? ""),
            "isPoweredBy": .bool(asc.isPoweredBy ?? false), "place": asc.place ?? .null, "headerImage": .string(asc.headerImageID ?? ""),
            "localizations": .array(localizations),
        ]
        return SHA256.hexDigest(Array(JSONWriter.string(content).utf8))
    }

    /// Whether App Store Connect's copy changed since `seen` (the digest recorded at the last pull or push) was taken.
    /// A push recorded before issue 32 took its digest without the header image (App Store Connect's answer to a write
    /// names none, below): that digest is also the copy as pushed.
    public static func changed(_ asc: ASCAdvancedExperience, since seen: String) -> Bool {
        var imageless = asc
        imageless.headerImageID = nil
        return seen != fingerprint(asc) && seen != fingerprint(imageless)
    }

    /// What App Store Connect holds after a write it answered with `answer`. The answer's attributes are as stored, but
    /// it gives no relationship: Apple serializes a relationship's `data` only when the request names it in `include`,
    /// which a write cannot (zelentsov-dev/asc-mcp PR #6), nor the cards' texts. So the header image and the cards are
    /// those sent (`headerImageID`, `localizations`), else those read before the write (`before`).
    public static func held(
        after answer: ASCAdvancedExperience, headerImageID: String?, localizations: [AdvancedExperienceLocalizationDraft]?,
        before: ASCAdvancedExperience?
    ) -> ASCAdvancedExperience {
        var held = answer
        held.headerImageID = answer.headerImageID ?? headerImageID ?? before?.headerImageID
        if answer.localizations.allSatisfy({ $0.title == nil && $0.subtitle == nil }) {
            held.localizations =
                localizations.map { sent in
                    sent.map {
                        ASCAdvancedExperienceLocalization(id: "", language: .known($0.language), title: $0.title, subtitle: $0.subtitle)
                    }
                } ?? before?.localizations ?? []
        }
        return held
    }

    /// An experience made of what App Store Connect holds (a pull): its attributes as our fields.
    public static func experience(
        from theirs: ASCAdvancedExperience, url: NormalizedURL, clip: AppID, language: Language, cards: [Language: CardText]
    ) -> AdvancedExperience {
        AdvancedExperience(
            url: url, clip: clip, action: theirs.action.flatMap { ClipCore.Action(rawValue: $0.rawValue) } ?? .open,
            defaultLanguage: language,
            isPoweredBy: theirs.isPoweredBy ?? false,
            businessCategory: theirs.businessCategory.flatMap { BusinessCategory(rawValue: $0.rawValue) }, localizations: cards,
            place: theirs.place.flatMap { $0 == .null ? nil : $0 })
    }

    /// The create request of an experience in App Store Connect's vocabulary (the registry's enums are its values).
    public static func draft(
        _ experience: AdvancedExperience, language: AppClipLanguage, localizations: [AdvancedExperienceLocalizationDraft]
    ) -> AdvancedExperienceDraft {
        AdvancedExperienceDraft(
            link: experience.url.canonical, isPoweredBy: experience.isPoweredBy, defaultLanguage: language,
            action: AppClipAction(rawValue: experience.action.rawValue),
            businessCategory: experience.businessCategory.flatMap { AppClipBusinessCategory(rawValue: $0.rawValue) },
            place: experience.place, localizations: localizations)
    }

    /// The update request's attributes for the App Store Connect `fields` (`fieldChanges`) that differ, from `draft`.
    public static func change(_ draft: AdvancedExperienceDraft, fields: Set<String>) -> AdvancedExperienceChange {
        var change = AdvancedExperienceChange()
        if fields.contains("action") { change.action = draft.action }
        if fields.contains("isPoweredBy") { change.isPoweredBy = draft.isPoweredBy }
        if fields.contains("businessCategory") {
            if let category = draft.businessCategory {
                change.businessCategory = category
            } else {
                change.cleared.insert("businessCategory")
            }
        }
        if fields.contains("place") {
            if let place = draft.place { change.place = place } else { change.cleared.insert("place") }
        }
        if fields.contains("defaultLanguage") { change.defaultLanguage = draft.defaultLanguage }
        return change
    }
    /// The registry's name (docs/architecture.md#the-http-api) for what an RFC 6901 pointer into an advanced experience
    /// request names; `languages` are the request's inline localizations in order (`included[n]`). nil: no field of ours.
    public static func registryField(pointer: String, languages: [String]) -> String? {
        let parts = pointer.split(separator: "/").map(String.init)
        let attributes = [
            "link": "url", "action": "action", "businessCategory": "category", "defaultLanguage": "language", "isPoweredBy": "poweredBy",
            "place": "place",
        ]
        if parts.count >= 3, parts[0] == "data", parts[1] == "attributes", let name = attributes[parts[2]] {
            return ([name] + parts.dropFirst(3)).joined(separator: ".")
        }
        if parts.count >= 3, parts[0] == "data", parts[1] == "relationships", parts[2] == "headerImage" { return "headerImage" }
        if parts.count >= 4, parts[0] == "included", let index = Int(parts[1]), languages.indices.contains(index), parts[2] == "attributes"
        {
            return "localizations.\(languages[index]).\(parts[3])"
        }
        return nil
    }
}
