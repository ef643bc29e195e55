import AppleFormats
import ClipCore
import ClipStore
public import ClipWire
import StrictJSON

/// Does a host's AASA give a URL to an app (Apple's matching, `AASAEvaluator`)? `GET /v1/aasa/check?url=&app=`
/// answers it for the registry's own AASA of the URL's host (docs/http-api.md), a route alone; `clipctl aasa
/// check` evaluates a file or a host's AASA where it runs (`command`).
public enum AASACheck: Operation {
    public static let callers = CallerRule.open

    /// Both as given: `run` says which is missing in the route's words.
    public struct Input: DeclaredInput {
        var url = ""
        var app = ""
        public init() {}
        static let url = InputField<Input>.text("url", \.url, "URL", help: "the URL an app is to open")
        static let app = InputField<Input>.text("app", \.app, "APPID", help: "the app's App ID")
        public static let fields: [InputField<Input>] = [url, app]
    }

    /// The decision and the rule that made it (`AASAJSON.evaluation`).
    public typealias Output = JSONDocument

    /// Both items are required (400 naming each one missing), the App ID and the URL are field errors (422),
    /// then the evaluation of the registry's AASA for the URL's host.
    public static func run(_ input: Input, in session: Session) throws -> Output {
        let (url, app) = (input.url, input.app)
        let (urlName, appName) = (Input.url.facts.name, Input.app.facts.name)
        var errors: [FieldError] = []
        if url.isEmpty { errors.append(FieldError(field: urlName, rule: "required", message: "is required")) }
        if app.isEmpty { errors.append(FieldError(field: appName, rule: "required", message: "is required")) }
        guard errors.isEmpty else { throw OperationError.malformed("give ?\(urlName)= and ?\(appName)=", errors: errors) }
        do { _ = try AppID(app, field: appName) } catch { throw RegistryError.invalid(error.errors) }
        guard let host = AASAEvaluator.URLParts(url)?.host, !host.isEmpty else {
            throw RegistryError.invalid([
                FieldError(field: urlName, rule: "url.format", message: "give an absolute URL such as https://shop.example/path")
            ])
        }
        let document = try JSONParser.parse(try session.registry.aasa(host: host))
        let result = AASAEvaluator.evaluate(document, appID: app, url: url, domain: host)
        return Output(json: AASAJSON.evaluation(url: url, app: app, host: host, result))
    }

    /// The route reads no body and ignores one, as it always has.
    public static let binding = Binding(Self.self, Route("GET", "/v1/aasa/check", body: .none(.ignored)))
}

extension AASACheck {
    /// `clipctl aasa check URL --app APPID [--file F]`: `file` reads an AASA file, read after the App ID is checked;
    /// without one, the registry's AASA for the URL's host (`hostAASA`, where the command runs). Exit 1 unless the app
    /// gets the URL, as grep does.
    public static func command(
        url: String, app: String, file: (() throws -> [UInt8])?, hostAASA: (String) throws -> [UInt8], json: Bool, printer: Printer
    ) throws {
        do { _ = try AppID(app, field: "app") } catch { throw RegistryError.invalid(error.errors) }
        let document: JSONValue
        var domain = ""
        if let file {
            let bytes = try file()
            do { document = try JSONParser.parse(bytes) } catch {
                throw invalid("file", "json", "malformed JSON: \(error.description)")
            }
        } else {
            guard let host = AASAEvaluator.URLParts(url)?.host, !host.isEmpty else {
                throw invalid("url", "url.format", "give an absolute URL such as https://shop.example/path")
            }
            domain = host
            document = try JSONParser.parse(try hostAASA(host))
        }
        let result = AASAEvaluator.evaluate(document, appID: app, url: url, domain: domain)
        if json {
            printer.line(JSONWriter.string(AASAJSON.evaluation(url: url, app: app, host: nil, result), pretty: true))
        } else {
            printer.line("\(result.decision.rawValue): \(result.rule)")
        }
        if result.decision != .match { throw CommandVerdict.negative() }
    }

    /// `clipctl aasa lint FILE|HOST`: Apple's rules over an AASA file's bytes (`AASALinter`); exit 1 on an error.
    public static func lint(_ bytes: [UInt8], json: Bool, printer: Printer) throws {
        let findings = AASALinter.lint(bytes)
        if json {
            printer.line(JSONWriter.string(AASAJSON.diagnostics(findings), pretty: true))
        } else {
            if findings.isEmpty { printer.line("no problems") }
            for f in findings { printer.line("\(f.severity.rawValue) \(f.code) \(f.path.isEmpty ? "(file)" : f.path): \(f.message)") }
        }
        if findings.contains(where: { $0.severity == .error }) { throw CommandVerdict.negative() }
    }

    /// A command's input error: "invalid input" above the field error.
    static func invalid(_ field: String, _ rule: String, _ message: String) -> OperationError {
        .invalid(message, errors: [FieldError(field: field, rule: rule, message: message)])
    }
}
