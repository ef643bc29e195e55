import ArgParse
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// register, list, show, update, activate/deactivate, remove, import, export.
extension Context {
    /// The experience fields given as options, as the JSON form `ExperienceJSON.decode` reads.
    func experienceMembers() throws -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        for (option, key) in [
            ("title", "title"), ("subtitle", "subtitle"), ("action", "action"), ("language", "language"), ("category", "category"),
        ] {
            if let v = parsed.value(option) { members.append((key: key, value: .string(v))) }
        }
        let localizations = parsed.all("localization")
        let removed = parsed.all("remove-localization")
        if !localizations.isEmpty || !removed.isEmpty {
            // A merge patch (ExperienceJSON.decode): the languages named change, the others stay.
            var cards: [(key: String, value: JSONValue)] = removed.map { (key: $0.uppercased(), value: .null) }
            for spec in localizations {
                guard let eq = spec.firstIndex(of: "="), let bar = spec[eq...].firstIndex(of: "|") else {
                    throw CommandFailure.usage("--localization takes LANG=TITLE|SUBTITLE, such as \"FR=Louer un vélo|Dès maintenant\"")
                }
                cards.append(
                    (
                        key: String(spec[..<eq]).uppercased(),
                        value: .object([
                            "title": .string(String(spec[spec.index(after: eq)..<bar])),
                            "subtitle": .string(String(spec[spec.index(after: bar)...])),
                        ])
                    ))
            }
            let named = cards.map(\.key)
            if let twice = named.first(where: { key in named.filter { $0 == key }.count > 1 }) {
                throw CommandFailure.usage("\(twice) is named twice by --localization and --remove-localization; name each language once")
            }
            members.append((key: "localizations", value: .object(cards)))
        }
        if let place = try jsonOption("place") { members.append((key: "place", value: place)) }
        return members
    }

    func image() throws -> [UInt8]? {
        try parsed.value("image").map { try readFile($0, option: "--image") }
    }

    /// Prints the warnings (to stderr) and notes of a write.
    func printWriteExtras<T>(_ outcome: WriteOutcome<T>) {
        warn(outcome.warnings)
        printNotes(outcome.notes)
    }

    func register() throws {
        let url = parsed.positional(0)!
        let clip = try requiredValue("clip")
        var members: [(key: String, value: JSONValue)] = [(key: "url", value: .string(url)), (key: "clip", value: .string(clip))]
        members += try experienceMembers()
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        let outcome = try backend().register(.object(members), image: try image())
        if json { return printWritten(CatalogJSON.written(outcome), notes: outcome.notes) }
        let e = outcome.value
        print("registered experience \(e.id): \(e.url.canonical) → \(e.clip.rawValue)")
        printWriteExtras(outcome)
    }

    func list() throws {
        let experiences = try backend().experiences(clip: parsed.value("clip"), host: parsed.value("host"), status: parsed.value("status"))
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
            let id = String(e.id)
            let status = e.status.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
            let padding = String(repeating: " ", count: idWidth - id.count)
            print("\(id)\(padding)  \(status)  \(e.url.canonical)  \(e.clip.rawValue)  \"\(e.defaultCard.title)\"")
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
        print("  card \(e.defaultLanguage.rawValue):   \(e.defaultCard.title) — \(e.defaultCard.subtitle)")
        for language in e.localizations.keys.filter({ $0 != e.defaultLanguage }).sorted() {
            let card = e.localizations[language]!
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
        printExperience(try backend().experience(parsed.positional(0)!))
    }

    func update() throws {
        var members = try experienceMembers()
        if let url = parsed.value("url") { members.append((key: "url", value: .string(url))) }
        if let clip = parsed.value("clip") { members.append((key: "clip", value: .string(clip))) }
        if parsed.flag("powered-by") && parsed.flag("not-powered-by") {
            throw CommandFailure.usage("--powered-by and --not-powered-by contradict each other")
        }
        if parsed.flag("powered-by") { members.append((key: "poweredBy", value: true)) }
        if parsed.flag("not-powered-by") { members.append((key: "poweredBy", value: false)) }
        if parsed.flag("no-category") { members.append((key: "category", value: .null)) }
        if parsed.flag("no-place") { members.append((key: "place", value: .null)) }
        let image = try image()
        guard !members.isEmpty || image != nil else {
            throw CommandFailure.usage("nothing to update: give at least one field option (see clipctl update --help)")
        }
        // The version before, to say when the update changed nothing (an update that changes nothing makes no version).
        let before = try? backend().experience(parsed.positional(0)!)
        let outcome = try backend().update(parsed.positional(0)!, .object(members), image: image)
        if json { return printWritten(CatalogJSON.written(outcome), notes: outcome.notes) }
        if let before, before.version == outcome.value.version, outcome.notes.isEmpty {
            print("nothing to change")
        } else {
            print("updated experience \(outcome.value.id) (version \(outcome.value.version))")
        }
        printWriteExtras(outcome)
    }

    func setStatus(_ status: ExperienceStatus) throws {
        let e = try backend().setStatus(parsed.positional(0)!, status).value
        if json { printJSON(ExperienceJSON.full(e)) } else { print("experience \(e.id) is \(e.status.rawValue): \(e.url.canonical)") }
    }

    func remove() throws {
        let e = try backend().remove(parsed.positional(0)!)
        if json { printJSON(CommandJSON.removed(e)) } else { print("removed experience \(e.id): \(e.url.canonical)") }
    }

    func format(for path: String?) throws -> Interchange.Format {
        if let name = parsed.value("format") {
            guard let format = Interchange.Format(rawValue: name.lowercased()) else {
                throw CommandFailure.usage("--format is ndjson or csv, not \(name)")
            }
            return format
        }
        return path?.lowercased().hasSuffix(".csv") == true ? .csv : .ndjson
    }

    func importFile() throws {
        let path = parsed.positional(0)!
        let format = try format(for: path)
        // A file is read in chunks as the import goes (memory bounded by a chunk, not the file);
        // standard input is read whole.
        var chunks: () throws -> ArraySlice<UInt8>?
        var total = 0
        let read = Counter()
        if path == "-" {
            var input: [UInt8]? = io.readStandardInput()
            total = input?.count ?? 0
            chunks = {
                defer { input = nil };
                return input.map {
                    read.add($0.count); return $0[...]
                }
            }
        } else {
            let file: RegularFile
            do { file = try RegularFile(path, what: "import file") } catch { throw Self.unreadable(error) }
            total = file.size
            chunks = {
                let data = try file.read(upTo: Registry.importChunkBytes)
                read.add(data.count)
                return data.isEmpty ? nil : data[...]
            }
        }
        let showProgress = io.standardErrorIsTerminal && !json
        let io = self.io
        let report = try backend().importFile(format: format, chunks: chunks) { lines in
            if showProgress { io.err("\rimporting: \(lines) lines, \(total > 0 ? read.value * 100 / total : 100)%") }
        }
        if showProgress { io.err("\n") }
        if json { printJSON(ImportReportJSON.report(report)); return }
        let imported = report.imported
        warn(report.warnings.flatMap(\.fieldErrors))
        if report.warningLinesNotListed > 0 { io.err("warning: … and warnings on \(report.warningLinesNotListed) more lines\n") }
        print("imported \(imported) experience\(imported == 1 ? "" : "s") in one transaction")
        printNotes(report.notes)
    }

    func export() throws {
        let format = try format(for: nil)
        let safe = parsed.flag("spreadsheet-safe")
        if safe && format != .csv { throw CommandFailure.usage("--spreadsheet-safe applies to --format csv") }
        let backend = try backend()
        if let output = parsed.value("output") {
            // Written to a temporary file and renamed, so that a failed export leaves no half file.
            var text = ""
            try backend.export(format: format, spreadsheetSafe: safe) { text += $0 + "\n" }
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw CommandFailure(code: ExitCode.failure, message: "cannot write \(output): \(error.localizedDescription)")
            }
            return
        }
        try backend.export(format: format, spreadsheetSafe: safe) { io.out($0 + "\n") }
    }

    /// Bytes read so far, for the progress line.
    final class Counter {
        private(set) var value = 0
        func add(_ n: Int) { value += n }
    }
}
