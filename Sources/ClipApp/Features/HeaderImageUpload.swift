import ClipCore
import ClipStore
import ClipWire
import Foundation
public import StrictJSON

/// `POST /v1/images`: the raw bytes of a PNG or JPEG, checked as `--image` is (`HeaderImage`), stored for
/// the caller's team (an admin names it with `?team=`): 201 when the team did not have it, 200 when it
/// did; the team may then name it by hash in its experiences. `clipctl` sends it before a write that
/// names an image (`CommandLine.storeImage`).
public enum HeaderImageUpload: Operation {
    public static let callers = CallerRule.token

    /// The team named (`?team=`), the body's bytes and their `Content-Type`.
    public struct Input: DeclaredInput {
        var team: String?
        var bytes: [UInt8] = []
        var contentType: String?
        public init() {}
        static let team = InputField<Input>.text("team", \.team, "TEAMID", help: "the team the image is for (an admin token's)")
        public static let fields: [InputField<Input>] = [team]
        public mutating func check(_ reader: inout ArgumentReader) {
            (bytes, contentType) = (reader.arguments.attachment ?? [], reader.arguments.contentType)
        }
    }

    /// The image stored (`HeaderImageJSON.uploaded`), and where it is served.
    public struct Output: OperationOutput {
        public var json: JSONValue
        public var status: Int?
        public var headers: [(name: String, value: String)]
        public init(json: JSONValue) { self.init(json: json, status: 200) }
        public init(json: JSONValue, status: Int) {
            self.json = json
            self.status = status
            headers = json["sha256"]?.stringValue.map { [("Location", "/v1/images/\($0)")] } ?? []
        }
    }

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let bytes = input.bytes
        let type =
            input.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard let declared = HeaderImage.MediaType(rawValue: type) else {
            throw OperationError.unsupportedMediaType(
                "send the image as image/png or image/jpeg (got \(type.isEmpty ? "no Content-Type" : type))")
        }
        // Tenancy before the bytes: a team acting for another is 403 whatever it sends.
        var team = session.caller.team
        if let named = input.team {
            let id: TeamID
            do { id = try TeamID(named, field: Input.team.facts.name) } catch { throw RegistryError.invalid(error.errors) }
            try session.checkWritable(team: id)
            team = id
        }
        guard let team else {
            let name = Input.team.facts.name
            throw RegistryError.invalid([FieldError(field: name, rule: "required", message: "is required with an admin token (?\(name)=)")])
        }
        // The bytes' kind before their content: a JPEG sent as image/png is 415 whatever else is wrong with it.
        let other: HeaderImage.MediaType = declared == .png ? .jpeg : .png
        if HeaderImage.looksLike(other, bytes) {
            throw OperationError.unsupportedMediaType("the bytes are \(other.rawValue), not the \(declared.rawValue) Content-Type says")
        }
        let image: HeaderImage
        do { image = try HeaderImage(bytes: bytes) } catch { throw RegistryError.invalid(error.errors) }
        let saved = try session.registry.uploadImage(image, team: team)
        return Output(json: HeaderImageJSON.uploaded(saved.value, warnings: saved.warnings), status: saved.created ? 201 : 200)
    }

    public static let binding = Binding(Self.self, Route("POST", "/v1/images", body: .bytes))
}
