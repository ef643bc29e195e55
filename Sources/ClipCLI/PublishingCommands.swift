import ArgParse
import ClipApp
import Foundation

/// aasa check, aasa lint (`AASACheck`).
extension Context {
    /// `aasa check URL --app APPID [--file F]`: the registry's AASA for the URL's host, or a file.
    func aasaCheck() throws {
        let app = try requiredValue("app")
        try AASACheck.command(
            url: parsed.positional(0)!, app: app, file: parsed.value("file").map { file in { try self.readFile(file, option: "--file") } },
            hostAASA: hostAASA, json: json, printer: printer)
    }

    /// `aasa lint FILE|HOST`: a file when the argument names one (or is -), else the registry's host.
    func aasaLint() throws {
        let target = parsed.positional(0)!
        let bytes =
            target == "-" || FileManager.default.fileExists(atPath: target)
            ? try readFile(target, option: "lint") : try hostAASA(target)
        try AASACheck.lint(bytes, json: json, printer: printer)
    }

    /// A host's AASA file, from the database or `--server` (`HostAASAFile`).
    func hostAASA(_ host: String) throws -> [UInt8] {
        try send(HostAASAFile.binding, Arguments([("host", host)])).content?.bytes ?? []
    }
}
