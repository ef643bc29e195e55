import Glibc
public import SystemCrypto

/// An App Store Connect API key: its key ID, its issuer ID and the private key (the `.p8` file
/// Apple lets one download once), from flags or the environment.
///
/// The private key never appears in a description or an error, and is never written anywhere.
public struct ASCCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let keyID: String
    public let issuerID: String
    public let privateKey: P256PrivateKey

    /// Where each part comes from; a flag wins over its environment variable.
    public struct Sources: Sendable {
        /// `--key-id`, `--issuer-id`, `--private-key` (a path to the .p8).
        public var keyID: String?
        public var issuerID: String?
        public var privateKeyPath: String?
        /// `ASC_KEY_ID`, `ASC_ISSUER_ID`, `ASC_PRIVATE_KEY_PATH`, `ASC_PRIVATE_KEY` (the PEM itself, for CI secrets).
        public var environment: [String: String]

        public init(keyID: String? = nil, issuerID: String? = nil, privateKeyPath: String? = nil, environment: [String: String] = [:]) {
            self.keyID = keyID
            self.issuerID = issuerID
            self.privateKeyPath = privateKeyPath
            self.environment = environment
        }
    }

    /// Credentials and what the user should hear about them (a key file others can read).
    public struct Loaded: Sendable {
        public let credentials: ASCCredentials
        public let warnings: [String]
    }

    public init(keyID: String, issuerID: String, privateKey: P256PrivateKey) throws(ASCCredentialsError) {
        let keyID = keyID.trimmingSpaces, issuerID = issuerID.trimmingSpaces
        // Apple's key IDs look like `2X9R4HXF34`; issuer IDs are UUIDs ("Generating Tokens for API Requests").
        guard !keyID.isEmpty, keyID.utf8.count <= 64, keyID.utf8.allSatisfy(\.isASCIIAlphanumeric) else { throw .invalidKeyID }
        guard Self.isUUID(issuerID) else { throw .invalidIssuerID }
        self.keyID = keyID
        self.issuerID = issuerID
        self.privateKey = privateKey
    }

    /// The credentials `sources` name. Environment variable names and paths appear in errors; the
    /// key's content never does.
    public static func load(from sources: Sources) throws(ASCCredentialsError) -> Loaded {
        let environment = sources.environment.filter { !$0.value.trimmingSpaces.isEmpty }
        guard let keyID = sources.keyID ?? environment["ASC_KEY_ID"] else { throw .missing("the key ID: set ASC_KEY_ID or pass --key-id") }
        guard let issuerID = sources.issuerID ?? environment["ASC_ISSUER_ID"] else {
            throw .missing("the issuer ID: set ASC_ISSUER_ID or pass --issuer-id")
        }
        var warnings: [String] = []
        let key: P256PrivateKey
        if let path = sources.privateKeyPath {
            key = try readKeyFile(path, source: "--private-key", warnings: &warnings)
        } else {
            switch (environment["ASC_PRIVATE_KEY_PATH"], environment["ASC_PRIVATE_KEY"]) {
            case (.some, .some): throw .ambiguousKey
            case (.some(let path), nil): key = try readKeyFile(path, source: "ASC_PRIVATE_KEY_PATH", warnings: &warnings)
            case (nil, .some(let pem)):
                // A secret store may keep the PEM on one line with literal \n for its line breaks.
                let text = pem.contains("\n") ? pem : pem.split(separator: "\\n", omittingEmptySubsequences: false).joined(separator: "\n")
                do {
                    key = try P256PrivateKey(pem: text)
                } catch {
                    throw .invalidKey(origin: "ASC_PRIVATE_KEY", error)
                }
            case (nil, nil): throw .missing("the private key: set ASC_PRIVATE_KEY_PATH (or ASC_PRIVATE_KEY) or pass --private-key")
            }
        }
        return Loaded(credentials: try ASCCredentials(keyID: keyID, issuerID: issuerID, privateKey: key), warnings: warnings)
    }

    /// A .p8 is about 250 bytes; anything past this is not one.
    static let maximumKeyFileSize = 64 * 1024

    private static func readKeyFile(
        _ path: String, source: String, warnings: inout [String]
    ) throws(ASCCredentialsError) -> P256PrivateKey {
        let origin = "\(source) \(path)"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadableKeyFile(origin, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        // The mode of the file read, not of whatever the path names a moment later.
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .unreadableKeyFile(origin, reason: String(cString: strerror(errno))) }
        if status.st_mode & S_IFMT == S_IFREG, status.st_mode & (S_IRGRP | S_IROTH) != 0 {
            let mode = String(status.st_mode & 0o777, radix: 8)
            warnings.append("the private key file \(path) can be read by other users (mode \(mode)); restrict it with: chmod 600 \(path)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableKeyFile(origin, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes += chunk.prefix(count)
            guard bytes.count <= maximumKeyFileSize else {
                throw .unreadableKeyFile(origin, reason: "larger than a private key file can be")
            }
        }
        do {
            return try P256PrivateKey(pem: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .invalidKey(origin: origin, error)
        }
    }

    /// 8-4-4-4-12 hexadecimal digits (RFC 9562 §4).
    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.utf8.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.utf8.allSatisfy(\.isASCIIHexDigit) }
    }

    public var description: String { "App Store Connect key \(keyID) (issuer \(issuerID), \(privateKey))" }
    public var debugDescription: String { description }
}

/// Why no credentials could be made. Texts name variables, flags and paths, never key content.
public enum ASCCredentialsError: Error, Equatable, CustomStringConvertible, Sendable {
    case missing(String)
    case ambiguousKey
    case unreadableKeyFile(String, reason: String)
    case invalidKey(origin: String, P256PrivateKey.LoadError)
    case invalidKeyID
    case invalidIssuerID

    public var description: String {
        switch self {
        case .missing(let what): "App Store Connect credentials are incomplete: no \(what)"
        case .ambiguousKey: "both ASC_PRIVATE_KEY_PATH and ASC_PRIVATE_KEY are set; set only one"
        case .unreadableKeyFile(let path, let reason): "cannot read the private key (\(path)): \(reason)"
        case .invalidKey(let origin, let error): "the private key (\(origin)) is not usable: \(error)"
        case .invalidKeyID: "the key ID is not an App Store Connect key ID (letters and digits, like 2X9R4HXF34)"
        case .invalidIssuerID: "the issuer ID is not an App Store Connect issuer ID (a UUID, like 57246542-96fe-1a63-e053-0824d011072a)"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        let isText: (Character) -> Bool = { !$0.isWhitespace }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return "" }
        return String(self[first...last])
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
    }

    fileprivate var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
    }
}
