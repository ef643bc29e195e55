import ClipCodes
import ClipCore
import DoctorAndPublish
import DoctorAndPublish
import ClipStore
public import ClipWire
import StrictJSON

/// The codes a print bundle makes for one experience: `GET /v1/experiences/{id}/codes` and
/// `clipctl codes ID|URL` — each file's path in the bundle (`CodeFileName`), format, bytes, SHA-256, QR
/// version and level, smallest NTAG; as `codes export` names them, so a sticker can be matched to its
/// experience. A team token reads its own team's experiences only (docs/rules.md#tenancy).
public enum ExperienceCodeFiles: Operation {
    public static let callers = CallerRule.token

    public struct Input: DeclaredInput {
        public var experience = ""
        public init() {}
        public static let fields: [InputField<Input>] = [.experience(\.experience)]
    }

    public typealias Output = ExperienceCodes

    public static func run(_ input: Input, in session: Session) throws -> Output {
        let experience = try session.registry.experience(input.experience)
        try session.checkVisible(team: experience.clip.team, "experience \(input.experience)")
        let (targets, refusals) = try session.registry.codeTargets(.init(clip: experience.clip, host: experience.url.host))
        let url = experience.url.canonical, size = "8"
        guard let target = targets.first(where: { $0.experienceID == experience.id }) else {
            let reason = refusals.first { $0.hasPrefix("no code for \(url):") } ?? "no code for \(url): it is not active"
            return Output(experience: experience.id, url: url, size: size, files: [], reason: reason)
        }
        // The bundle's own index says what it names each file (PrintBundle): read from it, never named twice.
        let bundle = try PrintBundle.files([target], formats: PrintBundle.formats)
        let index = try bundle.first { $0.path == "index.json" }.map { try JSONParser.parse($0.bytes) }
        let files = (index?["files"]?.arrayValue ?? []).compactMap { entry -> ExperienceCodes.File? in
            guard let format = entry["format"]?.stringValue, let path = entry["path"]?.stringValue,
                case .integer(let bytes)? = entry["bytes"], let sha256 = entry["sha256"]?.stringValue
            else { return nil }
            return ExperienceCodes.File(
                path: path, format: format, bytes: bytes, sha256: sha256,
                qrVersion: entry["qrVersion"].flatMap { if case .integer(let n) = $0 { n } else { nil } },
                ecc: entry["ecc"]?.stringValue, ntag: entry["ntag"]?.stringValue)
        }
        return Output(experience: experience.id, url: url, size: size, files: files)
    }

    public static let binding = Binding(
        Self.self, Route("GET", "/v1/experiences/{id}/codes"),
        command: Command(
            ["codes"],
            CommandHelp(
                "list the files a print bundle makes for an experience",
                discussion: "Paths as 'clipctl codes export' names them, with each file's SHA-256, QR version and NFC tag.",
                examples: [CommandExample("clipctl codes https://bikesrental.example/rent", "The code files of one experience")]),
            present: { codes, _, printer in
                printer.line("experience \(codes.experience): \(codes.url)")
                if let reason = codes.reason { printer.line("  \(reason)") }
                for file in codes.files {
                    let detail =
                        file.qrVersion.map { "QR version \($0), level \(file.ecc ?? "?")" } ?? "NFC tag \(file.ntag ?? "none large enough")"
                    printer.line("  \(file.path)  \(file.bytes) bytes  \(detail)  sha256 \(file.sha256)")
                }
            }))
}

extension ExperienceCodes: OperationOutput {}
