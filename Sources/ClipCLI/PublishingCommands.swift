import ArgParse
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import Foundation
import StrictJSON

/// aasa check, aasa lint.
extension Context {
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
            document = try JSONParser.parse(try hostAASA(host))
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
            ? try readFile(target, option: "lint") : try hostAASA(target)
        let findings = AASALinter.lint(bytes)
        if json {
            printJSON(AASAJSON.diagnostics(findings))
        } else {
            if findings.isEmpty { print("no problems") }
            for f in findings { print("\(f.severity.rawValue) \(f.code) \(f.path.isEmpty ? "(file)" : f.path): \(f.message)") }
        }
        if findings.contains(where: { $0.severity == .error }) { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    /// A host's AASA file, from the database or `--server` (`HostAASAFile`).
    func hostAASA(_ host: String) throws -> [UInt8] {
        try send(HostAASAFile.binding, Arguments([("host", host)])).content?.bytes ?? []
    }
}
