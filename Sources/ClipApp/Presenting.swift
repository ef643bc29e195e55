public import ClipCore
import ClipWire
public import StrictJSON

extension Printer {
    /// At most this many notes or warnings are printed one per line; the rest are counted.
    public static let listedAtMost = 20

    /// A write's notes, indented under what it printed (`created team …`).
    public func notes(_ notes: [WriteNote]) {
        for note in notes.prefix(Self.listedAtMost) { line("  \(note.text)") }
        if notes.count > Self.listedAtMost { line("  … and \(notes.count - Self.listedAtMost) more") }
    }

    /// A write's warnings, on standard error.
    public func warnings(_ warnings: [FieldError]) {
        for w in warnings.prefix(Self.listedAtMost) { err("warning: \(w.description)\n") }
        if warnings.count > Self.listedAtMost { err("warning: … and \(warnings.count - Self.listedAtMost) more warnings\n") }
    }
}

/// A written object as `--json` prints it: the object with its `notes` member, empty when there are none.
public func writtenJSON(_ object: JSONValue, notes: [WriteNote]) -> JSONValue {
    guard case .object(var members) = object else { return object }
    members.removeAll { $0.key == "notes" }
    members.append((key: "notes", value: CatalogJSON.notes(notes)))
    return .object(members)
}

extension Printer {
    /// A command's failure, on standard error (docs/application-layer.md#clipctl): `clipctl: MESSAGE` and each field
    /// error indented with its rule, or under `--json` one JSON line (`error`, `exitCode`, `errors`); nothing when the
    /// command already said why (an empty message).
    public func failure(_ message: String, exitCode: Int32, errors: [FieldError], json: Bool) {
        guard !message.isEmpty else { return }
        if json {
            err(JSONWriter.string(CommandJSON.failure(message: message, exitCode: exitCode, errors: errors)) + "\n")
            return
        }
        var text = "clipctl: \(message)\n"
        // The same rule broken on many lines of an import is listed on its first lines, then counted.
        let same = Dictionary(errors.map { (Self.sameError($0), 1) }, uniquingKeysWith: +)
        var shown: [String: Int] = [:]
        for e in errors {
            let key = Self.sameError(e), count = same[key] ?? 1
            shown[key, default: 0] += 1
            let n = shown[key] ?? 0
            if n <= Self.repeatedErrorExamples { text += "  \(e.description) [\(e.rule)]\n" }
            if n == Self.repeatedErrorExamples, count > n {
                text += "  … and \(count - n) more line\(count - n == 1 ? "" : "s") with \(e.field) [\(e.rule)] (--json lists them)\n"
            }
        }
        err(text)
    }

    /// How many lines of an import one field's broken rule is listed on before the rest are counted.
    public static let repeatedErrorExamples = 3

    private static func sameError(_ e: FieldError) -> String { "\(e.field)\u{0}\(e.rule)" }
}
