import Foundation
import ArgParse
import ClipCore
import ClipStore
import StrictJSON

/// resolve, aasa, banner, changes.
extension Context {
    func resolve() throws {
        let url = parsed.positional(0)!
        let explain = parsed.flag("explain")
        let resolution = try registry().resolve(url, language: parsed.value("language"))
        if json {
            printJSON(resolution.json(explain: explain))
        } else {
            switch resolution.match {
            case .advanced(let e, let language):
                let card = e.localizations[language] ?? e.defaultCard
                print("advanced experience \(e.id): \(e.url.canonical)")
                print("  clip:   \(e.clip.rawValue)")
                print("  card:   \(card.title) — \(card.subtitle) [\(language.rawValue)]")
                print("  action: \(e.action.rawValue)")
            case .defaultExperience(let fallback, let locale):
                print("default experience of \(fallback.experience.clip.rawValue) (no advanced experience matches)")
                if let locale, let l = fallback.experience.localizations[locale] {
                    print("  card:   \(fallback.appName.isEmpty ? "(the app's name)" : fallback.appName) — \(l.subtitle) [\(locale)]")
                }
                print("  action: \(fallback.experience.action.rawValue)")
            case nil:
                print("no match: \(resolution.reason ?? "")")
            }
            for note in resolution.notes { print("  note: \(note)") }
            if explain {
                print(resolution.candidates.isEmpty ? "candidates: none on this host" : "candidates:")
                for c in resolution.candidates {
                    print("  \(c.id)  \(c.outcome.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))  \(c.url)  (\(c.detail))")
                    if let nearMiss = c.nearMiss { print("      warning: near miss: \(nearMiss)") }
                }
            }
        }
        // Exit 1 on no match, like grep; the answer above already says why.
        if resolution.match == nil { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    func aasa() throws {
        let bytes = try registry().aasa(host: parsed.positional(0)!)
        // Exactly the bytes a server would send; a newline only for a person at a terminal.
        io.out(String(decoding: bytes, as: UTF8.self) + (io.standardOutputIsTerminal ? "\n" : ""))
    }

    func banner() throws {
        let result = try registry().banner(pageURL: parsed.positional(0)!, appArgument: parsed.value("app-argument"), clip: parsed.value("clip"))
        if json {
            printJSON(.object([
                "url": .string(result.pageURL),
                "clip": .string(result.clip.rawValue),
                "experience": result.experienceID.map(JSONValue.integer),
                "content": .string(result.banner.content),
                "metaTag": .string(result.banner.metaTag),
                "notes": .array(result.notes.map(JSONValue.string)),
            ]))
        } else {
            print(result.banner.metaTag)
            for note in result.notes { io.err("note: \(note)\n") }
        }
    }

    func changes() throws {
        let since = try parsed.value("since").map { v -> Int64 in
            guard let n = Int64(v), n >= 0 else { throw CommandFailure.usage("--since takes a change id (a whole number)") }
            return n
        } ?? 0
        let limit = try parsed.value("limit").map { v -> Int in
            guard let n = Int(v), (1...10_000).contains(n) else { throw CommandFailure.usage("--limit takes a number from 1 to 10000") }
            return n
        } ?? 100
        let records = try registry().changes(since: since, limit: limit)
        if json {
            printJSON(.array(records))
            return
        }
        for r in records {
            print("\(r["id"].map { JSONWriter.string($0) } ?? "")  \(r["at"]?.stringValue ?? "")  \(r["actor"]?.stringValue ?? "")  \(r["action"]?.stringValue ?? "") \(r["entity"]?.stringValue ?? "") \(r["entityId"]?.stringValue ?? "")")
        }
    }
}
