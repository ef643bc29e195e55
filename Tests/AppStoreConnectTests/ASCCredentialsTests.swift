import Foundation
import SystemCrypto
import Testing
import AppStoreConnect

/// Where the key ID, the issuer ID and the private key come from, what is refused, and that the
/// key never shows.
struct ASCCredentialsTests {
    let folder: TemporaryFolder
    let keyPath: String
    init() throws {
        folder = try TemporaryFolder()
        keyPath = try folder.file("AuthKey_2X9R4HXF34.p8", rfc6979KeyPEM, mode: 0o600)
    }

    var environment: [String: String] {
        ["ASC_KEY_ID": exampleKeyID, "ASC_ISSUER_ID": exampleIssuerID, "ASC_PRIVATE_KEY_PATH": keyPath]
    }

    var expectedPublicKey: P256PublicKey { get throws { try P256PrivateKey(pem: rfc6979KeyPEM).publicKey } }

    @Test func fromTheEnvironment() throws {
        let loaded = try ASCCredentials.load(from: .init(environment: environment))
        #expect(loaded.credentials.keyID == exampleKeyID && loaded.credentials.issuerID == exampleIssuerID)
        #expect(loaded.credentials.privateKey.publicKey == (try expectedPublicKey))
        #expect(loaded.warnings.isEmpty)
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let otherPath = try folder.file("other.p8", "not a key", mode: 0o600)
        var environment = environment
        environment["ASC_PRIVATE_KEY_PATH"] = otherPath
        environment["ASC_PRIVATE_KEY"] = "not a key either"
        let sources = ASCCredentials.Sources(
            keyID: "ABCDEF1234", issuerID: "00000000-0000-0000-0000-000000000001", privateKeyPath: keyPath,
            environment: environment)
        let credentials = try ASCCredentials.load(from: sources).credentials
        #expect(credentials.keyID == "ABCDEF1234" && credentials.issuerID == "00000000-0000-0000-0000-000000000001")
        #expect(credentials.privateKey.publicKey == (try expectedPublicKey))
    }

    @Test func thePEMItselfInASecret() throws {
        var environment = environment
        environment["ASC_PRIVATE_KEY_PATH"] = nil
        for pem in [rfc6979KeyPEM, rfc6979KeyPEM.split(separator: "\n").joined(separator: "\\n")] {
            environment["ASC_PRIVATE_KEY"] = pem
            let credentials = try ASCCredentials.load(from: .init(environment: environment)).credentials
            #expect(credentials.privateKey.publicKey == (try expectedPublicKey))
        }
    }

    @Test func copiedIDsKeepNoSurroundingSpace() throws {
        let sources = ASCCredentials.Sources(keyID: " 2X9R4HXF34\n", issuerID: "\t\(exampleIssuerID)\n", environment: environment)
        let credentials = try ASCCredentials.load(from: sources).credentials
        #expect(credentials.keyID == exampleKeyID && credentials.issuerID == exampleIssuerID)
    }

    @Test func missingParts() {
        for (name, flag) in [("ASC_KEY_ID", "--key-id"), ("ASC_ISSUER_ID", "--issuer-id"), ("ASC_PRIVATE_KEY_PATH", "--private-key")] {
            var environment = environment
            environment[name] = nil
            #expect { try ASCCredentials.load(from: .init(environment: environment)) } throws: { error in
                let text = String(describing: error)
                return text.contains(name) && text.contains(flag)
            }
            // Set but empty is missing too.
            environment[name] = "  "
            #expect(throws: ASCCredentialsError.self) { try ASCCredentials.load(from: .init(environment: environment)) }
        }
    }

    @Test func twoKeySourcesAreRefused() {
        var environment = environment
        environment["ASC_PRIVATE_KEY"] = rfc6979KeyPEM
        #expect(throws: ASCCredentialsError.ambiguousKey) { try ASCCredentials.load(from: .init(environment: environment)) }
    }

    @Test(arguments: ["", "2X9R 4HXF34", "2X9R4HXF34/..", "ключ"])
    func badKeyIDs(_ keyID: String) {
        #expect(throws: ASCCredentialsError.invalidKeyID) { try ASCCredentials.load(from: .init(keyID: keyID, environment: environment)) }
    }

    @Test(arguments: [
        "57246542-96fe-1a63-e053", "57246542-96fe-1a63-e053-0824d011072g", "57246542096fe01a63-e053-0824d011072a", "2X9R4HXF34",
    ])
    func badIssuerIDs(_ issuerID: String) {
        #expect(throws: ASCCredentialsError.invalidIssuerID) {
            try ASCCredentials.load(from: .init(issuerID: issuerID, environment: environment))
        }
    }

    @Test func aKeyFileOthersCanReadGetsAWarning() throws {
        for mode in [0o644, 0o640, 0o604] {
            let path = try folder.file("shared-\(mode).p8", rfc6979KeyPEM, mode: mode)
            let loaded = try ASCCredentials.load(from: .init(privateKeyPath: path, environment: environment))
            #expect(loaded.warnings.count == 1)
            #expect(loaded.warnings.first?.contains("chmod 600 \(path)") == true)
            #expect(loaded.warnings.first?.contains(String(mode, radix: 8)) == true)
        }
        let privatePath = try folder.file("private.p8", rfc6979KeyPEM, mode: 0o400)
        #expect(try ASCCredentials.load(from: .init(privateKeyPath: privatePath, environment: environment)).warnings.isEmpty)
    }

    @Test func unreadableKeyFiles() throws {
        let missing = folder.url.appendingPathComponent("nope.p8").path
        #expect(throws: ASCCredentialsError.unreadableKeyFile("--private-key \(missing)", reason: "No such file or directory")) {
            try ASCCredentials.load(from: .init(privateKeyPath: missing, environment: environment))
        }
        #expect(throws: ASCCredentialsError.unreadableKeyFile("--private-key \(folder.url.path)", reason: "Is a directory")) {
            try ASCCredentials.load(from: .init(privateKeyPath: folder.url.path, environment: environment))
        }
        let huge = try folder.file("huge.p8", String(repeating: "A", count: 100_000), mode: 0o600)
        #expect(throws: ASCCredentialsError.unreadableKeyFile("--private-key \(huge)", reason: "larger than a private key file can be")) {
            try ASCCredentials.load(from: .init(privateKeyPath: huge, environment: environment))
        }
        if getuid() != 0 {  // root reads it anyway
            let locked = try folder.file("locked.p8", rfc6979KeyPEM, mode: 0o000)
            #expect(throws: ASCCredentialsError.unreadableKeyFile("--private-key \(locked)", reason: "Permission denied")) {
                try ASCCredentials.load(from: .init(privateKeyPath: locked, environment: environment))
            }
        }
    }

    @Test func aBadKeySaysWhereItCameFromAndWhatIsWrong() throws {
        let encrypted = try folder.file("encrypted.p8", encryptedKeyPEM, mode: 0o600)
        var fromFile = environment
        fromFile["ASC_PRIVATE_KEY_PATH"] = encrypted
        #expect(throws: ASCCredentialsError.invalidKey(origin: "ASC_PRIVATE_KEY_PATH \(encrypted)", .encrypted)) {
            try ASCCredentials.load(from: .init(environment: fromFile))
        }
        var fromSecret = environment
        fromSecret["ASC_PRIVATE_KEY_PATH"] = nil
        fromSecret["ASC_PRIVATE_KEY"] = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCFX"
        #expect(throws: ASCCredentialsError.invalidKey(origin: "ASC_PRIVATE_KEY", .notPEM("no '-----BEGIN PRIVATE KEY-----' line"))) {
            try ASCCredentials.load(from: .init(environment: fromSecret))
        }
    }

    /// A careless log line (`print(credentials)`, `dump`, an error message) shows no key material.
    @Test func theKeyNeverShows() throws {
        let credentials = try ASCCredentials.load(from: .init(environment: environment)).credentials
        var dumped = ""
        dump(credentials, to: &dumped)
        var texts = [String(describing: credentials), String(reflecting: credentials), "\(credentials)", dumped]
        var environment = environment
        environment["ASC_PRIVATE_KEY_PATH"] = nil
        let broken = [
            rfc6979KeyPEM.replacingOccurrences(of: "-----END PRIVATE KEY-----", with: ""),
            rfc6979KeyPEM.replacingOccurrences(of: "wpTURiKZ", with: "wpTURiK!"),
            rfc6979KeyPEM.replacingOccurrences(of: "BEGIN PRIVATE KEY", with: "BEGIN EC PRIVATE KEY"),
            rfc6979KeyPEM.replacingOccurrences(of: "63TGNW1o", with: "63TGNW1p"),  // the public point moved off the curve
            encryptedKeyPEM,
        ]
        for pem in broken {
            environment["ASC_PRIVATE_KEY"] = pem
            do {
                _ = try ASCCredentials.load(from: .init(environment: environment))
                Issue.record("a broken key loaded")
            } catch {
                texts += [String(describing: error), String(reflecting: error), error.localizedDescription]
            }
        }
        let secrets = secretPieces(of: rfc6979KeyPEM) + secretPieces(of: encryptedKeyPEM) + ["c9afa9d845ba7516", "C9AFA9D845BA7516"]
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
    }
}
