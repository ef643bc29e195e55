import AppleFormats
import ArgParse
import ClipCommands
import ClipCore
import HTTP1
import StrictJSON

/// Properties that must hold for any input bytes. Each target crashes (precondition) when its
/// property is broken, which is what libFuzzer looks for; the test suite replays every corpus
/// file through the same functions.
public enum FuzzTargets {
    public static let names = ["http-request", "url", "applinks", "import", "arguments"]

    public static func run(_ target: String, _ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "http-request": httpRequest(bytes)
        case "url": url(bytes)
        case "applinks": applinks(bytes)
        case "import": importLines(bytes)
        case "arguments": arguments(bytes)
        default: preconditionFailure("unknown fuzz target \(target); known: \(names.joined(separator: ", "))")
        }
    }

    /// The request-head parser never crashes; a complete head lies within the input, and parsing
    /// exactly that head again gives the same request.
    static func httpRequest(_ bytes: UnsafeRawBufferPointer) {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 4096
        limits.maxRequestLineBytes = 1024
        limits.maxHeaderCount = 20
        guard case .complete(let head, let length)? = try? RequestHeadParser.parse(bytes, limits: limits) else { return }
        precondition(length <= bytes.count, "head longer than the input")
        let again = try? RequestHeadParser.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), limits: limits)
        guard case .complete(let second, let secondLength)? = again else { preconditionFailure("a complete head is not complete alone") }
        precondition(
            secondLength == length && second.method == head.method && second.target == head.target
                && second.contentLength == head.contentLength && second.headers.fields.count == head.headers.fields.count,
            "re-parse differs")
        precondition(head.target.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }, "target holds a non-visible byte")
        for (name, value) in head.headers {
            precondition(ResponseWriter.isValidFieldName(name) && ResponseWriter.isValidFieldValue(value), "a header escaped validation")
        }
    }

    /// Normalization is idempotent: the canonical form normalizes to itself, keeps the host
    /// ASCII and lower-case, and path coverage of a URL by itself holds.
    static func url(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let url = try? NormalizedURL(text) else { return }
        let canonical = url.canonical
        guard let again = try? NormalizedURL(canonical) else { preconditionFailure("canonical form \(canonical) does not parse") }
        precondition(again.canonical == canonical, "normalization is not idempotent: \(canonical) → \(again.canonical)")
        precondition(url.host.utf8.allSatisfy { $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }, "host not ASCII lower-case")
        precondition(url.pathCovers(again), "a URL does not cover itself")
        precondition(!url.isCharacterPrefixNearMiss(of: again), "a URL is a near miss of itself")
    }

    /// The JSON parser and the applinks validators never crash, and any parsed document writes
    /// out to text that parses back to the same value.
    static func applinks(_ bytes: UnsafeRawBufferPointer) {
        guard let value = try? JSONParser.parse(Array(bytes)) else { return }
        let written = JSONWriter.string(value)
        precondition((try? JSONParser.parse(written)) == value, "JSON write/parse round trip differs")
        _ = ApplinksValidator.validateComponents(value, variables: ApplinksValidator.variableNames(value["substitutionVariables"]))
        _ = ApplinksValidator.validateDefaults(value)
        _ = ApplinksValidator.validateSubstitutionVariables(value)
        if let components = value["components"] { _ = ApplinksValidator.validateComponents(components) }
    }

    /// Import lines (NDJSON and CSV) never crash the parser or validator, and every valid
    /// experience survives its portable form unchanged.
    static func importLines(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        for format in Interchange.Format.allCases {
            for line in Interchange.lines(text, format: format).lines {
                guard let (experience, _) = try? ExperienceJSON.decode(line.object) else { continue }
                let portable = ExperienceJSON.portable(experience)
                guard let (again, _) = try? ExperienceJSON.decode(portable) else {
                    preconditionFailure("portable form of a valid experience is invalid")
                }
                precondition(again == experience, "portable round trip differs")
                _ = Interchange.csv(experience)
            }
        }
    }

    /// The argument parser never crashes on any argv (NUL-separated), and its errors name a
    /// command path that exists (so help can be printed for it).
    static func arguments(_ bytes: UnsafeRawBufferPointer) {
        let argv = bytes.split(separator: 0).prefix(64).map { String(decoding: $0, as: UTF8.self) }
        do {
            _ = try ArgumentParser.parse(argv, root: Commands.root, globals: Commands.globals)
        } catch {
            _ = HelpFormatter.help(for: error.path, root: Commands.root, globals: Commands.globals)
        }
    }
}
