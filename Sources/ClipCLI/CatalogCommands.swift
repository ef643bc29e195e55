import Foundation
import ArgParse
import ClipCore
import ClipStore
import ClipWire
import StrictJSON

/// app, clip, domain, default, applinks, token.
extension Context {
    /// `--image FILE`'s bytes (a regular file, or `-` for standard input).
    func image() throws -> [UInt8]? {
        try parsed.value("image").map { try readFile($0, option: "--image") }
    }

    func parse<T>(_ body: () throws(ValidationFailure) -> T) throws -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }

    func defaultSet() throws {
        let reference = parsed.positional(0)!
        let clip = try parse { () throws(ValidationFailure) in try AppID(reference) }
        let action = try parse { () throws(ValidationFailure) in
            try Action.parse((parsed.value("action") ?? "OPEN").uppercased(), field: "action")
        }
        var localizations: [String: String] = [:]
        for spec in parsed.all("subtitle") {
            guard let eq = spec.firstIndex(of: "=") else {
                throw CommandFailure.usage("--subtitle takes LOCALE=TEXT, such as \"en-US=Rent a bike\"")
            }
            localizations[String(spec[..<eq])] = String(spec[spec.index(after: eq)...])
        }
        let saved = try backend().setDefault(clip: clip, action: action, localizations: localizations, image: try image())
        if json {
            printJSON(["defaultExperience": CatalogJSON.defaultExperience(saved.value), "notes": CatalogJSON.notes(saved.notes)])
            return
        }
        print("default experience of \(clip.rawValue): \(saved.value.action.rawValue), \(saved.value.localizations.count) locale(s)")
        printNotes(saved.notes)
    }
}
