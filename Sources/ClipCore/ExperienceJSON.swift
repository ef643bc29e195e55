public import StrictJSON

/// The JSON form of an advanced experience, shared by import/export, `clipctl --json` and the
/// HTTP API: the members of `ExperienceField.portableMembers`; read-only `id`, `version`,
/// `createdAt`, `updatedAt` on output (the full form, ClipWire's `ExperienceJSON.full`).
public enum ExperienceJSON {
    public static let readOnlyFields: Set<String> = ["id", "version", "createdAt", "updatedAt", "state"]

    /// The portable form (what export writes and import reads): no id, version or timestamps.
    public static func portable(_ e: AdvancedExperience) -> JSONValue {
        let card = e.defaultCard
        let others = e.localizations.keys.filter { $0 != e.defaultLanguage }.sorted()
        let localizations: JSONValue? =
            others.isEmpty
            ? nil
            : .object(
                others.map { lang in
                    let c = e.localizations[lang]!
                    return (key: lang.tag, value: .object(["title": .string(c.title), "subtitle": .string(c.subtitle)]))
                })
        var members: [(key: String, value: JSONValue)] = []
        for member in portableLayout {
            switch member {
            case .member("url"): members.append((key: "url", value: .string(e.url.canonical)))
            case .member("clip"): members.append((key: "clip", value: .string(e.clip.rawValue)))
            case .member("title"): members.append((key: "title", value: .string(card.title)))
            case .member("subtitle"): members.append((key: "subtitle", value: .string(card.subtitle)))
            case .member(let name): if let localizations { members.append((key: name, value: localizations)) }
            case .field(let field):
                let value = field.value(of: e)
                guard !(field.portableOmitsDefault && value == field.defaultValue), let json = value.json(field) else { continue }
                members.append((key: field.name, value: json))
            }
        }
        // docs/sheets.md#labels: left out while there are none, as `localizations` is.
        if !e.labels.isEmpty { members.append((key: "labels", value: Labels.json(e.labels))) }
        return .object(members)
    }

    /// Whether `object`, a partial experience as an update or a sheet's row gives it, plainly leaves `e` as it is: each
    /// member is `e`'s own, as `portable` writes it, and `labels` sets only labels `e` has (a key with `null`, only one it
    /// lacks). A quick test a sync makes before decoding a row: false says nothing (`decode` then decides), true means
    /// `decode(object, base: e)` gives `e` back.
    public static func leavesUnchanged(_ e: AdvancedExperience, with object: JSONValue) -> Bool {
        guard case .object(let members) = object, case .object(let own) = portable(e) else { return false }
        for (key, value) in members {
            if key == "labels" {
                guard case .object(let labels) = value else { return false }
                for (label, given) in labels {
                    guard Labels.key(label) == label else { return false }
                    switch given {
                    case .null: if e.labels[label] != nil { return false }
                    case .string(let text): if e.labels[label] != text { return false }
                    default: return false
                    }
                }
                continue
            }
            guard let stored = own.first(where: { $0.key == key })?.value, stored == value else { return false }
        }
        return true
    }

    /// `ExperienceField.portableMembers`: the identity and the cards by name, the fields declared.
    enum PortableMember { case member(String), field(ExperienceField) }
    static let portableLayout: [PortableMember] = ExperienceField.portableMembers.map { name in
        ExperienceField.named[name].map(PortableMember.field) ?? .member(name)
    }

    /// Decodes and validates an experience. With `base`, the input is a partial update: absent
    /// fields keep `base`'s values, `null` clears an optional field. Every problem is reported
    /// at once; warnings (older text guidance) are returned beside a valid experience.
    /// A time's zone name (`Instant.parse`) is looked up with `zones`.
    public static func decode(_ json: JSONValue, base: AdvancedExperience? = nil, zones: ZoneLookup = ZoneNames.none)
        throws(ValidationFailure) -> (
            experience: AdvancedExperience, warnings: [FieldError]
        )
    {
        let reader = FieldReader(json)
        for field in readOnlyFields where reader.has(field) {
            _ = reader.raw(field)
            reader.fail(field, "readOnly", "is read-only")
        }
        var url = base?.url
        if let s = reader.string("url", required: base == nil) {
            do { url = try NormalizedURL(s, allowFragment: false) } catch { reader.add([error.fieldError()]) }
        }
        var clip = base?.clip
        if let s = reader.string("clip", required: base == nil) {
            do { clip = try AppID(s) } catch { reader.add(error.errors) }
        }
        let (values, refused) = decodeFields(reader, base: base, zones: zones)
        guard case .code(let languageCode) = values[ExperienceField.languagePosition] else { preconditionFailure("language is required") }
        let language = Language.allCases[languageCode]
        let languageIsValid = !reader.has("language") || reader.errors.allSatisfy { $0.field != "language" }
        var localizations = mergeLocalizations(reader, into: base?.localizations ?? [:], language: language)
        let titleGiven = mergeDefaultCard(reader, into: &localizations, language: language)
        var labels = base?.labels ?? [:]
        if let patch = reader.raw("labels") {
            let merged = Labels.merge(patch, into: labels, field: reader.fieldPath("labels"))
            reader.add(merged.errors)
            labels = merged.labels
        }
        if languageIsValid && localizations[language] == nil && (base == nil || reader.has("language") || reader.has("localizations")) {
            if reader.errors.allSatisfy({ $0.field != "title" && $0.field != "subtitle" }) {
                reader.fail(
                    "title", "required", "is required: the card needs a title and subtitle in the default language \(language.tag)")
            }
        }
        for (lang, card) in localizations.sorted(by: { $0.key < $1.key }) {
            let prefix = lang == language && titleGiven ? "" : "localizations.\(lang.tag)."
            reader.add(TextLimits.check(card.title, field: "\(prefix)title", max: TextLimits.titleMax))
            reader.add(TextLimits.check(card.subtitle, field: "\(prefix)subtitle", max: TextLimits.subtitleMax))
        }

        let errors = reader.finish()
        guard errors.isEmpty, let url, let clip, !refused else {
            throw ValidationFailure(errors.isEmpty ? [FieldError(field: "(body)", rule: "invalid", message: "invalid experience")] : errors)
        }
        var experience = base ?? AdvancedExperience(url: url, clip: clip, localizations: [:])
        experience.url = url
        experience.clip = clip
        for (field, value) in zip(ExperienceField.all, values) { field.set(value, in: &experience) }
        experience.localizations = localizations
        experience.labels = labels
        return (experience, advice(localizations, before: base?.localizations, language: language))
    }

    /// The declared fields' values (`ExperienceField.all`, in order): the input's over `base`'s or the
    /// defaults; `refused` when a field that cannot be cleared was given `null`.
    static func decodeFields(_ reader: FieldReader, base: AdvancedExperience?, zones: ZoneLookup) -> (
        values: [FieldValue], refused: Bool
    ) {
        var values = base.map(ExperienceField.values) ?? ExperienceField.all.map(\.defaultValue)
        var refused = false
        for (position, field) in ExperienceField.all.enumerated() {
            switch field.decode(reader, zones: zones) {
            case nil: break
            case .value(let value): values[position] = value
            case .null where field.onNull == .clears: values[position] = .none
            case .null where field.onNull == .refused: refused = true
            case .null, .invalid: break
            }
        }
        checkWindow(reader, values)
        return (values, refused)
    }

    /// docs/rules.md#experiences-in-time: a window ends after it starts.
    static func checkWindow(_ reader: FieldReader, _ values: [FieldValue]) {
        let from = ExperienceField.all.firstIndex { $0.name == ExperienceField.liveFrom.name }!
        let until = ExperienceField.all.firstIndex { $0.name == ExperienceField.liveUntil.name }!
        guard case .text(let start) = values[from], case .text(let end) = values[until], end <= start else { return }
        let field = reader.has(ExperienceField.liveUntil.name) || !reader.has(ExperienceField.liveFrom.name) ? "liveUntil" : "liveFrom"
        reader.fail(field, "window.order", "must leave the window open for a while: liveUntil \(end) is not after liveFrom \(start)")
    }

    /// Localizations merge per language, as a JSON Merge Patch (RFC 7396) of `base`'s: a member
    /// sets or patches that language's card, `null` removes it, and `"localizations": null`
    /// removes every language but the default one, whose card is `title` and `subtitle`.
    static func mergeLocalizations(_ reader: FieldReader, into base: [Language: CardText], language: Language) -> [Language: CardText] {
        var localizations = base
        guard reader.has("localizations") else { return localizations }
        let patch = reader.object("localizations")
        if patch == nil && reader.raw("localizations")?.isNull == true {
            localizations = localizations.filter { $0.key == language }
        }
        var spelled: [Language: String] = [:]
        for (key, value) in patch?.objectMembers ?? [] {
            let field = "localizations.\(key)"
            let lang: Language
            do { lang = try Language.parse(key, field: field) } catch {
                reader.add(error.errors)
                continue
            }
            // Two spellings of one language (`fr` and `FR-ca`) in one patch would leave which one wins to the order.
            if let first = spelled[lang] {
                reader.fail(field, "language.duplicate", "is the same language as \(first) (give each language once)")
                continue
            }
            spelled[lang] = key
            guard lang != language else {
                reader.add([
                    FieldError(
                        field: field, rule: "localizations.defaultLanguage",
                        message: "\(lang.tag) is the default language: give its card as title and subtitle, or change language first")
                ])
                continue
            }
            if value.isNull {
                localizations[lang] = nil
                continue
            }
            let existing = localizations[lang]
            let card = FieldReader(value, path: field)
            for part in ["title", "subtitle"] where existing != nil && card.raw(part)?.isNull == true {
                card.fail(part, "required", "cannot be removed: remove the whole \(key) card with \"\(key)\": null")
            }
            let title = card.string("title", required: existing == nil)
            let subtitle = card.string("subtitle", required: existing == nil)
            reader.add(card.finish())
            if let t = title ?? existing?.title, let s = subtitle ?? existing?.subtitle {
                localizations[lang] = CardText(title: t, subtitle: s)
            }
        }
        return localizations
    }

    /// The default language's card from `title` and `subtitle` (one of them alone patches an existing
    /// card); true when `title` was given.
    static func mergeDefaultCard(_ reader: FieldReader, into localizations: inout [Language: CardText], language: Language) -> Bool {
        let title = reader.string("title")
        let subtitle = reader.string("subtitle")
        guard title != nil || subtitle != nil else { return false }
        let existing = localizations[language]
        if let t = title ?? existing?.title, let s = subtitle ?? existing?.subtitle {
            localizations[language] = CardText(title: t, subtitle: s)
        } else {
            reader.fail(title == nil ? "title" : "subtitle", "required", "is required with \(title == nil ? "subtitle" : "title")")
            // Still check the half that was given, so that every problem is reported at once.
            if let title { reader.add(TextLimits.check(title, field: "title", max: TextLimits.titleMax)) }
            if let subtitle { reader.add(TextLimits.check(subtitle, field: "subtitle", max: TextLimits.subtitleMax)) }
        }
        return title != nil
    }

    /// Advice only on the text this write sets: an update warns about nothing it left as it was
    /// (docs/rules.md#text-hygiene-and-limits).
    static func advice(_ localizations: [Language: CardText], before: [Language: CardText]?, language: Language) -> [FieldError] {
        localizations.sorted(by: { $0.key < $1.key }).flatMap { lang, card in
            let previous = before?[lang]
            return TextLimits.advice(card, field: lang == language ? "" : "localizations.\(lang.tag)")
                .filter { advice in
                    guard let previous else { return true }
                    return advice.rule == TextLimits.titleAdvisedRule ? previous.title != card.title : previous.subtitle != card.subtitle
                }
                .map {
                    FieldError(field: $0.field.hasPrefix(".") ? String($0.field.dropFirst()) : $0.field, rule: $0.rule, message: $0.message)
                }
        }
    }
}

extension ExperienceField {
    /// A field as an input gave it: nil when left out.
    enum Input { case value(FieldValue), null, invalid }

    /// Reads the field from an input object, recording its errors in `reader`.
    func decode(_ reader: FieldReader, zones: ZoneLookup) -> Input? {
        guard let raw = reader.raw(name) else { return nil }
        if raw.isNull { return .null }
        let value: FieldValue
        switch kind {
        case .enumeration:
            guard let text = reader.string(name) else { return .invalid }
            do { value = try code(text, field: reader.fieldPath(name)) } catch {
                reader.add(error.errors)
                return .invalid
            }
        case .flag:
            guard let flag = reader.bool(name) else { return .invalid }
            value = .code(flag ? 1 : 0)
        case .text:
            guard let text = reader.string(name) else { return .invalid }
            value = .text(text)
        case .json: value = .json(raw)
        case .instant:
            guard let text = reader.string(name) else { return .invalid }
            do { value = .text(try Instant.parse(text, field: reader.fieldPath(name), zone: zones).description) } catch {
                reader.add(error.errors)
                return .invalid
            }
        }
        let problems = errors(value, field: reader.fieldPath(name))
        reader.add(problems)
        return problems.isEmpty ? .value(value) : .invalid
    }
}

/// `place` (docs/apple-formats.md#place): known keys only, `mainAddress` or `displayPoint.coordinates`
/// required, coordinates in range, enumerations verbatim.
public enum PlaceValidator {
    public static func validate(_ place: JSONValue, field: String) -> [FieldError] {
        let r = FieldReader(place, path: field)
        guard place.objectMembers != nil else { return r.errors }
        func text(_ reader: FieldReader, _ key: String, _ value: String?) {
            if let value {
                reader.add(TextLimits.check(value, field: reader.fieldPath(key), max: TextLimits.placeTextMax, allowEmpty: true))
            }
        }
        text(r, "placeId", r.string("placeId"))
        if let names = r.stringArray("names") {
            if names.isEmpty || names.contains(where: { $0.isEmpty }) {
                r.fail("names", "place.names", "must hold at least one non-empty name")
            }
            for (i, n) in names.enumerated() { text(r, "names[\(i)]", n) }
        }
        var hasAddress = false
        if let address = r.object("mainAddress") {
            let a = FieldReader(address, path: r.fieldPath("mainAddress"))
            let full = a.string("fullAddress")
            text(a, "fullAddress", full)
            if let structured = a.object("structuredAddress") {
                let s = FieldReader(structured, path: a.fieldPath("structuredAddress"))
                for (i, line) in (s.stringArray("streetAddress") ?? []).enumerated() { text(s, "streetAddress[\(i)]", line) }
                for key in ["floor", "neighborhood", "locality", "stateProvince", "postalCode", "countryCode"] {
                    text(s, key, s.string(key))
                }
                a.add(s.finish())
                hasAddress = true
            }
            hasAddress = hasAddress || !(full ?? "").isEmpty
            r.add(a.finish())
        }
        var hasCoordinates = false
        if let point = r.object("displayPoint") {
            let d = FieldReader(point, path: r.fieldPath("displayPoint"))
            if let coordinates = d.object("coordinates") {
                let c = FieldReader(coordinates, path: d.fieldPath("coordinates"))
                if let lat = c.number("latitude", required: true), !(-90...90).contains(lat) {
                    c.fail("latitude", "place.latitude", "must be between -90 and 90")
                }
                if let lon = c.number("longitude", required: true), !(-180...180).contains(lon) {
                    c.fail("longitude", "place.longitude", "must be between -180 and 180")
                }
                d.add(c.finish())
                hasCoordinates = true
            }
            _ = d.enumeration("source", DisplayPointSource.self)
            r.add(d.finish())
        }
        _ = r.enumeration("mapAction", MapAction.self)
        _ = r.enumeration("relationship", PlaceRelationship.self)
        if let phone = r.object("phoneNumber") {
            let p = FieldReader(phone, path: r.fieldPath("phoneNumber"))
            text(p, "number", p.string("number"))
            _ = p.enumeration("type", PhoneNumberType.self)
            text(p, "intent", p.string("intent"))
            r.add(p.finish())
        }
        let homePage = r.string("homePage")
        text(r, "homePage", homePage)
        if let home = homePage, (try? NormalizedURL(home)) == nil, !home.hasPrefix("http://") {
            r.fail("homePage", "place.homePage", "must be an absolute http(s) URL")
        }
        for (i, c) in (r.stringArray("categories") ?? []).enumerated() { text(r, "categories[\(i)]", c) }
        if !hasAddress && !hasCoordinates {
            r.fail("mainAddress", "place.location", "is required when displayPoint.coordinates is not given")
        }
        return r.finish()
    }
}
