/// A Team ID (App ID prefix): "the 10-character Team ID" (QA1879, docs/apple-formats.md#app-ids-and-bundle-ids). Apple's
/// examples are upper-case letters and digits; that is the rule here.
public struct TeamID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init(_ string: String, field: String = "team") throws(ValidationFailure) {
        let bytes = Array(string.utf8)
        guard bytes.count == 10, bytes.allSatisfy({ isUpperAlnum($0) }) else {
            throw ValidationFailure(
                field: field, rule: "team.format",
                message: "a Team ID is exactly 10 characters A-Z and 0-9 (got \"\(string.truncatedForMessage)\")")
        }
        rawValue = string
    }

    public var description: String { rawValue }
    public static func < (a: TeamID, b: TeamID) -> Bool { a.rawValue < b.rawValue }
}

/// A bundle identifier: dot-separated components of ASCII letters, digits and hyphens
/// (Apple's CFBundleIdentifier rule), no empty component.
public struct BundleID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// App Store Connect's upper bound for a bundle ID.
    public static let maxLength = 155

    public init(_ string: String, field: String = "bundleId") throws(ValidationFailure) {
        guard string.utf8.count <= Self.maxLength, Self.isWellFormed(string.utf8) else {
            throw ValidationFailure(
                field: field, rule: "bundleId.format",
                message:
                    "a bundle ID is dot-separated components of A-Z, a-z, 0-9 and '-', at most \(Self.maxLength) characters (got \"\(string.truncatedForMessage)\")"
            )
        }
        rawValue = string
    }

    public var components: [Substring] { rawValue.split(separator: ".") }

    /// Non-empty components of A-Z, a-z, 0-9 and '-' between single dots, checked byte by byte:
    /// splitting the `String` at "." first (by Characters, grapheme breaking) was 12k
    /// instructions a bundle ID (callgrind, 20k-line import: 8% of the lines' decoding). Every
    /// byte allowed is ASCII, so a byte check decides the same as a Character one.
    static func isWellFormed(_ utf8: String.UTF8View) -> Bool {
        var previous = UInt8(ascii: ".")  // so that an empty first component fails
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                if previous == UInt8(ascii: ".") { return false }
            } else if !(isAlnum(byte) || byte == UInt8(ascii: "-")) {
                return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".")  // an empty string, or an empty last component
    }

    /// The parent app's bundle ID when this is an App Clip's: everything before the last
    /// component (docs/apple-formats.md#app-ids-and-bundle-ids: parent bundle ID + "." + one more component).
    public var parent: BundleID? {
        guard let dot = rawValue.lastIndex(of: ".") else { return nil }
        return try? BundleID(String(rawValue[..<dot]))
    }

    /// True when `self` is `app` + "." + exactly one component.
    public func isClip(of app: BundleID) -> Bool { parent == app }

    public var description: String { rawValue }
    public static func < (a: BundleID, b: BundleID) -> Bool { a.rawValue < b.rawValue }
}

/// An App ID: `<Team ID>.<bundle ID>` (docs/apple-formats.md#app-ids-and-bundle-ids), as used in AASA files and to name a clip.
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let team: TeamID
    public let bundleID: BundleID

    public init(team: TeamID, bundleID: BundleID) {
        self.team = team
        self.bundleID = bundleID
    }

    public init(_ string: String, field: String = "clip") throws(ValidationFailure) {
        let bytes = Array(string.utf8)
        guard bytes.count > 11, bytes[10] == UInt8(ascii: ".") else {
            throw ValidationFailure(
                field: field, rule: "appId.format",
                message: "an App ID is TEAMID.bundle.id with a 10-character Team ID (got \"\(string.truncatedForMessage)\")")
        }
        let dot = string.utf8.index(string.startIndex, offsetBy: 10)
        let team = try TeamID(String(string[..<dot]), field: field)
        let bundle = try BundleID(String(string[string.index(after: dot)...]), field: field)
        self.init(team: team, bundleID: bundle)
    }

    public var rawValue: String { "\(team.rawValue).\(bundleID.rawValue)" }
    public var description: String { rawValue }
    public static func < (a: AppID, b: AppID) -> Bool { a.rawValue < b.rawValue }
}

/// A numeric App Store ID (the Smart App Banner's `app-id`, docs/apple-formats.md#smart-app-banner).
public struct AppStoreID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String, field: String = "appStoreId") throws(ValidationFailure) {
        guard !string.isEmpty, string.utf8.count <= 19, string.utf8.allSatisfy({ isDigit($0) }), string.first != "0" else {
            throw ValidationFailure(
                field: field, rule: "appStoreId.format",
                message: "an App Store ID is the app's numeric Apple ID, such as 1234567890 (got \"\(string.truncatedForMessage)\")")
        }
        rawValue = string
    }
    public var description: String { rawValue }
}

@inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
@inline(__always) func isUpperAlnum(_ b: UInt8) -> Bool { isDigit(b) || (b >= 0x41 && b <= 0x5A) }
@inline(__always) func isUpperAlpha(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
@inline(__always) package func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
@inline(__always) package func isAlnum(_ b: UInt8) -> Bool { isDigit(b) || isAlpha(b) }

extension String {
    /// The string cut to 80 characters for an error message, with control characters made visible.
    package var truncatedForMessage: String {
        let visible = String(String.UnicodeScalarView(unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
        return visible.count > 80 ? String(visible.prefix(80)) + "…" : visible
    }
}

/// What names an experience on a command line or in a route (docs/rules.md#identifiers): its id, written one
/// way only (a positive decimal with no sign, leading zero, point or space), or its URL. Text made of digits,
/// signs, points and spaces is meant as an id: `01`, `+1`, `1.0`, ` 1` and `0` name no experience (not found),
/// rather than being read as 1 or refused as a URL.
public enum ExperienceReference: Sendable, Equatable {
    case id(Int64)
    case url(NormalizedURL)

    /// The id `text` is, written the one way an id is; nil otherwise (a route's `{id}`).
    public static func id(_ text: String) -> Int64? {
        if case .id(let n)? = try? ExperienceReference(text) { return n }
        return nil
    }

    /// Text that names no experience: meant as an id and not one (nothing has it: not found), or neither an id
    /// nor a URL (the field error to answer). ClipStore's `RegistryError.init(_:)` says which error each is.
    public enum Unnamed: Error, Sendable, Equatable {
        case noSuchID(String)
        case malformed(FieldError)
    }

    /// Whether `text` is meant as an id, whether or not it is one: digits, signs, points and spaces only.
    public static func isMeantAsID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x20 }
    }

    public init(_ text: String) throws(Unnamed) {
        if Self.isMeantAsID(text) {
            guard let n = Int64(text), n > 0, String(n) == text else { throw .noSuchID(text) }
            self = .id(n)
            return
        }
        do { self = .url(try NormalizedURL(text)) } catch {
            throw .malformed(
                FieldError(field: "experience", rule: "reference", message: "give an experience id or its URL (\(error.message))"))
        }
    }
}
