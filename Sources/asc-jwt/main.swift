// Prints App Store Connect JWTs for the credentials in the environment or the flags, one a line,
// so scripts/asc-jwt-check can verify them with an independent JWT library.
//   asc-jwt [--key-id ID] [--issuer-id UUID] [--private-key PATH] [--count N] [--now SECONDS]
import AppStoreConnect
import Glibc

func printError(_ message: String) {
    let line = Array("asc-jwt: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    printError(message)
    exit(1)
}

var sources = ASCCredentials.Sources()
for name in ["ASC_KEY_ID", "ASC_ISSUER_ID", "ASC_PRIVATE_KEY_PATH", "ASC_PRIVATE_KEY"] {
    if let value = getenv(name) { sources.environment[name] = String(cString: value) }
}
var count = 1
var now = ASCTokenCache.systemClock()
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--key-id": sources.keyID = value
    case "--issuer-id": sources.issuerID = value
    case "--private-key": sources.privateKeyPath = value
    case "--count":
        guard let number = Int(value), number >= 0 else { fail("--count takes a number") }
        count = number
    case "--now":
        guard let seconds = Int64(value) else { fail("--now takes seconds since 1970") }
        now = seconds
    default: fail("unknown option \(flag)")
    }
}
do {
    let loaded = try ASCCredentials.load(from: sources)
    for warning in loaded.warnings { printError("warning: \(warning)") }
    for _ in 0..<count { print(try ASCToken(credentials: loaded.credentials, now: now).compact) }
} catch {
    fail("\(error)")
}
