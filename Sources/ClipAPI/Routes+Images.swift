import ClipCore
import ClipStore
import ClipWire
import Foundation
import HTTP1

/// Header images: uploaded by a team's token; served to anyone by their SHA-256 (`HeaderImageFile`).
extension ClipAPI {
    func registerImageRoutes() {
        add("POST", "/v1/images", .token) { api, c in try api.uploadImage(c) }
    }

    /// `POST /v1/images`: the raw bytes of a PNG or JPEG, checked as `--image` is (`HeaderImage`), stored
    /// for the caller's team (an admin names it with `?team=`): 201 when the team did not have it, 200
    /// when it did; the team may then name it by hash in its experiences.
    func uploadImage(_ c: Context) throws -> HTTPResponse {
        let type = c.request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard let declared = HeaderImage.MediaType(rawValue: type) else {
            throw Problem(status: 415, detail: "send the image as image/png or image/jpeg (got \(type.isEmpty ? "no Content-Type" : type))")
        }
        // Tenancy before the bytes: a team acting for another is 403 whatever it sends.
        var team = try c.caller.team
        if let named = c.query("team") {
            let id: TeamID
            do { id = try TeamID(named, field: "team") } catch { throw Problem(RegistryError.invalid(error.errors)) }
            try c.checkWritable(team: id)
            team = id
        }
        guard let team else {
            throw Problem(
                RegistryError.invalid([FieldError(field: "team", rule: "required", message: "is required with an admin token (?team=)")]))
        }
        // The bytes' kind before their content: a JPEG sent as image/png is 415 whatever else is wrong with it.
        let other: HeaderImage.MediaType = declared == .png ? .jpeg : .png
        if HeaderImage.looksLike(other, c.request.body) {
            throw Problem(status: 415, detail: "the bytes are \(other.rawValue), not the \(declared.rawValue) Content-Type says")
        }
        let image: HeaderImage
        do { image = try HeaderImage(bytes: c.request.body) } catch { throw Problem(RegistryError.invalid(error.errors)) }
        let saved = try c.registry.uploadImage(image, team: team)
        return json(
            HeaderImageJSON.uploaded(saved.value, warnings: saved.warnings), status: saved.created ? 201 : 200,
            headers: [("Location", "/v1/images/\(saved.value.sha256)")])
    }
}
