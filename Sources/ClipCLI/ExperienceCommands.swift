import ArgParse
import ClipCore
import ClipStore
import Foundation
import StrictJSON

/// register, list, show, update, activate/deactivate, remove, import, export.
extension Context {
    /// The experience fields given as options, as the JSON form `ExperienceJSON.decode` reads.
    func experienceMembers() throws -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        for (option, key) in [("title", "title"), ("subtitle", "subtitle"), ("action", "action"), ("language", "language"), ("category", "category")] {
            if let v = parsed.value(option) { members.append((key: key, value: .string(v))) }
        }
        let localizations = parsed.all("localization")
        if !localizations.isEmpty {
            var cards: [(key: String, value: JSONValue)] = []
            for spec in localizations {
                guard let eq = spec.firstIndex(of: "="), let bar = spec[eq...].firstIndex(of: "|") else {
                    throw CommandFailure.usage("--localization takes LANG=TITLE|SUBTITLE, such as \"FR=Louer un vélo|Dès maintenant\"")
                }
                cards.append((key: String(spec[..<eq]).uppercased(), value: .object([
                    "title": .string(String(spec[spec.index(after: eq)..<bar])), "subtitle": .string(String(spec[spec.index(after: bar)...])),
                ])))
            }
            members.append((key: "localizations", value: .object(cards)))
        }
        if let place = try jsonOption("place") { members.append((key: "place", value: place)) }
        return members
    }

    func image() throws -> [UInt8]? {
        try parsed.value("image").map { try readFile($0, option: "--image") }
    }

    func register() throws {
        let url = parsed.positional(0)!
        let clip = try requiredValue("clip")
        var members: [(key: String, value: JSONValue)] = [(key: "url", value: .string(url)), (key: "clip", value: .string(clip))]
        members += try experienceMembers()
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        let written = try registry().register(.object(members), image: try image())
        warn(written.warnings)
        if json {
            printJSON(.object(["experience": ExperienceJSON.full(written.experience), "notes": .array(written.notes.map(JSONValue.string))]))
        } else {
            print("registered experience \(written.experience.id): \(written.experience.url.canonical) → \(written.experience.clip.rawValue)")
            printNotes(written.notes)
        }
    }

    func listFilter() throws -> Registry.ListFilter {
        var filter = Registry.ListFilter()
        if let clip = parsed.value("clip") { filter.clip = try registry().clipID(clip) }
        if let host = parsed.value("host") { filter.host = try Registry.normalizeHost(host) }
        if let status = parsed.value("status") {
            do { filter.status = try ExperienceStatus.parse(status.uppercased(), field: "status") } catch { throw RegistryError.invalid(error.errors) }
        }
        return filter
    }

    func list() throws {
        let experiences = try registry().experiences(try listFilter())
        if json {
            printJSON(.array(experiences.map(ExperienceJSON.full)))
            return
        }
        guard !experiences.isEmpty else {
            io.err("no experiences\n")
            return
        }
        let idWidth = experiences.map { String($0.id).count }.max() ?? 2
        for e in experiences {
            let card = e.defaultCard
            print("\(String(e.id).padding(toLength: idWidth, withPad: " ", startingAt: 0))  \(e.status == .active ? "ACTIVE     " : "DEACTIVATED")  \(e.url.canonical)  \(e.clip.rawValue)  \"\(card.title)\"")
        }
    }

    func printExperience(_ e: AdvancedExperience) {
        if json {
            printJSON(ExperienceJSON.full(e))
            return
        }
        print("experience \(e.id) (version \(e.version))")
        print("  url:       \(e.url.canonical)")
        print("  clip:      \(e.clip.rawValue)")
        print("  status:    \(e.status.rawValue)")
        print("  action:    \(e.action.rawValue)")
        print("  language:  \(e.defaultLanguage.rawValue)")
        for (language, card) in e.localizations.sorted(by: { $0.key < $1.key }) {
            print("  card \(language.rawValue):   \(card.title) — \(card.subtitle)")
        }
        if let category = e.businessCategory { print("  category:  \(category.rawValue)") }
        if e.isPoweredBy { print("  powered by: yes") }
        if let image = e.headerImage { print("  image:     \(image)") }
        if let place = e.place { print("  place:     \(JSONWriter.string(place))") }
        print("  created:   \(e.createdAt)")
        print("  updated:   \(e.updatedAt)")
    }

    func show() throws {
        printExperience(try registry().experience(parsed.positional(0)!))
    }

    func update() throws {
        var members = try experienceMembers()
        if let url = parsed.value("url") { members.append((key: "url", value: .string(url))) }
        if let clip = parsed.value("clip") { members.append((key: "clip", value: .string(clip))) }
        if parsed.flag("powered-by") && parsed.flag("not-powered-by") { throw CommandFailure.usage("--powered-by and --not-powered-by contradict each other") }
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        if parsed.flag("not-powered-by") { members.append((key: "poweredBy", value: false)) }
        if parsed.flag("no-category") { members.append((key: "category", value: .null)) }
        if parsed.flag("no-place") { members.append((key: "place", value: .null)) }
        let image = try image()
        guard !members.isEmpty || image != nil else { throw CommandFailure.usage("nothing to update: give at least one field option (see clipctl update --help)") }
        let written = try registry().update(parsed.positional(0)!, with: .object(members), image: image)
        warn(written.warnings)
        if json {
            printJSON(.object(["experience": ExperienceJSON.full(written.experience), "notes": .array(written.notes.map(JSONValue.string))]))
        } else {
            print("updated experience \(written.experience.id) (version \(written.experience.version))")
            printNotes(written.notes)
        }
    }

    func setStatus(_ status: ExperienceStatus) throws {
        let e = try registry().setStatus(parsed.positional(0)!, status)
        if json { printJSON(ExperienceJSON.full(e)) } else { print("experience \(e.id) is \(e.status.rawValue): \(e.url.canonical)") }
    }

    func remove() throws {
        let e = try registry().remove(parsed.positional(0)!)
        if json { printJSON(.object(["removed": .integer(e.id), "url": .string(e.url.canonical)])) } else { print("removed experience \(e.id): \(e.url.canonical)") }
    }

    func format(for path: String?) throws -> Interchange.Format {
        if let name = parsed.value("format") {
            guard let format = Interchange.Format(rawValue: name.lowercased()) else { throw CommandFailure.usage("--format is ndjson or csv, not \(name)") }
            return format
        }
        return path?.lowercased().hasSuffix(".csv") == true ? .csv : .ndjson
    }

    func importFile() throws {
        let path = parsed.positional(0)!
        let format = try format(for: path)
        let content = try text(try readFile(path, option: "import"), what: path == "-" ? "standard input" : path)
        let showProgress = io.standardErrorIsTerminal && !json
        let report = try registry().importExperiences(content, format: format) { done, total in
            if showProgress { self.io.err("\rimporting: \(done)/\(total)") }
        }
        if showProgress { io.err("\n") }
        warn(report.warnings.flatMap { w in w.errors.map { FieldError(field: "line \(w.line): \($0.field)", rule: $0.rule, message: $0.message) } })
        if json {
            printJSON(.object(["imported": .integer(Int64(report.imported)), "notes": .array(report.notes.map(JSONValue.string))]))
        } else {
            print("imported \(report.imported) experience\(report.imported == 1 ? "" : "s") in one transaction")
            printNotes(report.notes)
        }
    }

    func export() throws {
        let format = try format(for: nil)
        let registry = try registry()
        if let output = parsed.value("output") {
            // Written to a temporary file and renamed, so that a failed export leaves no half file.
            var text = ""
            try registry.export(format: format) { text += $0 + "\n" }
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw CommandFailure(code: ExitCode.failure, message: "cannot write \(output): \(error.localizedDescription)")
            }
            return
        }
        try registry.export(format: format) { io.out($0 + "\n") }
    }
}
