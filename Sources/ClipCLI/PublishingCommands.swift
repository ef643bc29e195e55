import ArgParse
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// resolve, aasa, banner, changes.
extension Context {
    func resolve() throws {
        let url = parsed.positional(0)!
        let explain = parsed.flag("explain")
        let answer = try backend().resolve(url, language: parsed.value("language"), explain: explain)
        if json {
            printJSON(ResolutionJSON.json(answer))
        } else {
            switch answer.match {
            case .advanced(let e)?:
                print("advanced experience \(e.id): \(e.url)")
                print("  clip:   \(e.clip.rawValue)")
                print("  card:   \(e.title) — \(e.subtitle) [\(e.language.rawValue)]")
                print("  action: \(e.action.rawValue)")
            case .defaultExperience(let d)?:
                print("default experience of \(d.clip.rawValue) (no advanced experience matches)")
                if let locale = d.locale {
                    print("  card:   \(d.title ?? "(the app's name)") — \(d.subtitle ?? "") [\(locale)]")
                }
                print("  action: \(d.action.rawValue)")
            case nil:
                print("no match: \(answer.reason ?? "")")
            }
            for note in answer.notes { print("  note: \(note)") }
            if let candidates = answer.explanation {
                print(candidates.isEmpty ? "candidates: none on this host" : "candidates:")
                for c in candidates {
                    print("  \(c.id)  \(c.outcome.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))  \(c.url)  (\(c.detail))")
                    if let nearMiss = c.nearMiss { print("      warning: near miss: \(nearMiss)") }
                }
            }
        }
        // Exit 1 on no match, like grep; the answer above already says why.
        if answer.match == nil { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    func aasa() throws {
        let bytes = try backend().aasa(host: parsed.positional(0)!)
        // Exactly the bytes a server would send; a newline only for a person at a terminal.
        io.out(String(decoding: bytes, as: UTF8.self) + (io.standardOutputIsTerminal ? "\n" : ""))
    }

    /// `aasa check URL --app APPID [--file F]`: the registry's AASA for the URL's host, or a file.
    func aasaCheck() throws {
        let url = parsed.positional(0)!
        let app = try requiredValue("app")
        _ = try parse { () throws(ValidationFailure) in try AppID(app, field: "app") }
        let document: JSONValue
        var domain = ""
        if let file = parsed.value("file") {
            do { document = try JSONParser.parse(try readFile(file, option: "--file")) } catch let error as JSONParser.ParseError {
                throw CommandFailure.invalid("file", "json", "malformed JSON: \(error.description)")
            }
        } else {
            guard let host = AASAEvaluator.URLParts(url)?.host, !host.isEmpty else {
                throw CommandFailure.invalid("url", "url.format", "give an absolute URL such as https://shop.example/path")
            }
            domain = host
            document = try JSONParser.parse(try backend().aasa(host: host))
        }
        let result = AASAEvaluator.evaluate(document, appID: app, url: url, domain: domain)
        if json {
            printJSON(AASAJSON.evaluation(url: url, app: app, host: nil, result))
        } else {
            print("\(result.decision.rawValue): \(result.rule)")
        }
        // Like grep: 0 when the app gets the URL, 1 otherwise.
        if result.decision != .match { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    /// `aasa lint FILE|HOST`: a file when the argument names one (or is -), else the registry's host.
    func aasaLint() throws {
        let target = parsed.positional(0)!
        let bytes =
            target == "-" || FileManager.default.fileExists(atPath: target)
            ? try readFile(target, option: "lint") : try backend().aasa(host: target)
        let findings = AASALinter.lint(bytes)
        if json {
            printJSON(AASAJSON.diagnostics(findings))
        } else {
            if findings.isEmpty { print("no problems") }
            for f in findings { print("\(f.severity.rawValue) \(f.code) \(f.path.isEmpty ? "(file)" : f.path): \(f.message)") }
        }
        if findings.contains(where: { $0.severity == .error }) { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    func banner() throws {
        let answer = try backend().banner(url: parsed.positional(0)!, appArgument: parsed.value("app-argument"), clip: parsed.value("clip"))
        if json { printJSON(CatalogJSON.banner(answer)); return }
        print(answer.banner.metaTag)
        for note in answer.notes { io.err("note: \(note)\n") }
    }
}
