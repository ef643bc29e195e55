public import ClipCore
public import StrictJSON

/// What one host's apple-app-site-association file is made of.
public struct AASAContent: Sendable, Equatable {
    public var host: String
    /// App IDs of the clips associated with the host.
    public var clips: [AppID]
    /// `applinks.details`, in the order they are evaluated (first match wins).
    public var details: [ApplinksDetails]
    public var settings: ApplinksHostSettings
    /// `webcredentials.apps`; the key is left out when empty.
    public var webcredentials: [AppID]
    /// Experience URLs per full app, when the host opted in to applinks generated from them.
    public var generated: [ExperienceApplinks.AppLinks]

    public init(
        host: String, clips: [AppID], details: [ApplinksDetails] = [], settings: ApplinksHostSettings = .init(),
        webcredentials: [AppID] = [],
        generated: [ExperienceApplinks.AppLinks] = []
    ) {
        self.host = host
        self.clips = clips
        self.details = details
        self.settings = settings
        self.webcredentials = webcredentials
        self.generated = generated
    }

    /// The details entries as written: the stored ones, then the generated components.
    public var effectiveDetails: [ApplinksDetails] {
        generated.isEmpty ? details : ExperienceApplinks.merge(generated, into: details, hostDefaults: settings.defaults)
    }
}

/// Generates AASA bytes (docs/rules.md#aasa-generation): compact, deterministic JSON (same data → same bytes).
public enum AASAGenerator {
    /// Apple (App Search Programming Guide, archived): "the uncompressed size … must be no greater than 128 KB"
    /// (docs/apple-formats.md#size).
    public static let maxBytes = 128 * 1024

    public struct TooLarge: Error, Equatable, CustomStringConvertible, Sendable {
        public let host: String
        public let size: Int
        public init(host: String, size: Int) {
            self.host = host
            self.size = size
        }
        public var description: String {
            "the AASA file for \(host) would be \(size) bytes, over Apple's limit of \(AASAGenerator.maxBytes) bytes (128 KB)"
        }
    }

    public static func document(_ content: AASAContent) -> JSONValue {
        var applinks: [(key: String, value: JSONValue)] = [
            // Legacy validators require "apps": [] (docs/apple-formats.md#legacy-format).
            (key: "apps", value: .array([]))
        ]
        if let defaults = content.settings.defaults { applinks.append((key: "defaults", value: defaults)) }
        applinks.append(
            (
                key: "details",
                value: .array(
                    content.effectiveDetails.map { d in
                        .object([
                            "appIDs": .array([.string(d.app.rawValue)]),
                            "components": d.components,
                            "defaults": d.defaults,
                        ])
                    })
            ))
        if let variables = content.settings.substitutionVariables {
            applinks.append((key: "substitutionVariables", value: variables))
        }
        let clipIDs = Array(Set(content.clips.map(\.rawValue))).sorted()
        let webIDs = Array(Set(content.webcredentials.map(\.rawValue))).sorted()
        return .object([
            "appclips": .object(["apps": .array(clipIDs.map(JSONValue.string))]),
            "applinks": .object(applinks),
            "webcredentials": webIDs.isEmpty ? nil : .object(["apps": .array(webIDs.map(JSONValue.string))]),
        ])
    }

    /// The file's bytes, or `TooLarge` naming the size.
    public static func bytes(_ content: AASAContent) throws(TooLarge) -> [UInt8] {
        let bytes = JSONWriter.bytes(document(content))
        guard bytes.count <= maxBytes else { throw TooLarge(host: content.host, size: bytes.count) }
        return bytes
    }
}
