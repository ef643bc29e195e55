import FileFormats
import Foundation
public import ClipCore
import SQLiteDB
import StrictJSON

/// API tokens (docs/rules.md#tenancy): admin tokens manage everything; team tokens only their team's
/// objects. A token is `clip_<id>_<secret>`; only the SHA-256 of the whole token is stored, and
/// the presented token's hash is compared in constant time with the stored one.
extension Registry {
    public typealias APIToken = ClipCore.APIToken

    func readToken(_ row: Row) throws -> APIToken {
        APIToken(
            id: Int64(try row.int("id")), name: try row.string("name"), team: try row.optionalString("team_id").map { try TeamID($0) },
            createdAt: try row.string("created_at"), lastUsedAt: try row.optionalString("last_used_at"),
            revokedAt: try row.optionalString("revoked_at"))
    }

    /// Creates a token and returns it with its secret, which is shown this once and never stored.
    public func createToken(name: String, team: TeamID?) throws(RegistryError) -> WriteOutcome<(token: APIToken, secret: String)> {
        let problems = TextLimits.checkTokenName(name)
        guard problems.isEmpty else { throw RegistryError.invalid(problems) }
        var generator = SystemRandomNumberGenerator()  // getrandom(2): a CSPRNG on Linux
        let random = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let secretPart = random.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return try writeOutcome {
            let notes = try team.map(ensureTeam) ?? []
            // The row is inserted with a placeholder hash, then given the hash of the token that names its id.
            try db.execute(
                "INSERT INTO api_token(name, team_id, secret_sha256, created_at) VALUES (?, ?, ?, ?)",
                [.text(name), .text(team?.rawValue), .text(SHA256.hexDigest(Array(secretPart.utf8))), .text(timestamp())])
            let id = db.lastInsertRowID
            let secret = "clip_\(id)_\(secretPart)"
            try db.execute(
                "UPDATE api_token SET secret_sha256 = ? WHERE id = ?", [.text(SHA256.hexDigest(Array(secret.utf8))), .integer(id)])
            let token = try readToken(try db.query("SELECT * FROM api_token WHERE id = ?", [.integer(id)]).first!)
            try recordChange(entity: .token, id: String(id), action: .create, before: nil, after: AuditForm.token(token))
            return WriteOutcome((token, secret), created: true, notes: notes)
        }
    }

    /// The token a presented secret belongs to, or nil (unknown, malformed, or revoked).
    /// Marks it used at most once a minute, so that reads do not each become a write.
    public func authenticate(_ presented: String) throws(RegistryError) -> APIToken? {
        let parts = presented.split(separator: "_")
        guard parts.count == 3, parts[0] == "clip", let id = Int64(parts[1]), parts[2].utf8.count == 64 else { return nil }
        return try guarded {
            guard let row = try db.query("SELECT * FROM api_token WHERE id = ? AND revoked_at IS NULL", [.integer(id)]).first else {
                return nil
            }
            let stored = Array(try row.string("secret_sha256").utf8)
            let computed = Array(SHA256.hexDigest(Array(presented.utf8)).utf8)
            guard Self.constantTimeEquals(stored, computed) else { return nil }
            let token = try readToken(row)
            let now = timestamp()
            if token.lastUsedAt.map({ now.prefix(16) != $0.prefix(16) }) ?? true {  // minute resolution
                _ = try? db.execute("UPDATE api_token SET last_used_at = ? WHERE id = ?", [.text(now), .integer(id)])
            }
            return token
        }
    }

    /// Compares every byte whatever the first difference, so timing reveals nothing of the hash.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    public func tokens(team: TeamID? = nil) throws(RegistryError) -> [APIToken] {
        try guarded {
            try db.query("SELECT * FROM api_token WHERE ?1 IS NULL OR team_id = ?1 ORDER BY id", [.text(team?.rawValue)]).map(readToken)
        }
    }

    public func token(id: Int64) throws(RegistryError) -> APIToken {
        try guarded {
            guard let row = try db.query("SELECT * FROM api_token WHERE id = ?", [.integer(id)]).first else {
                throw RegistryError.notFound("token \(id)")
            }
            return try readToken(row)
        }
    }

    public func revokeToken(id: Int64) throws(RegistryError) -> WriteOutcome<APIToken> {
        try writeOutcome {
            guard
                try db.execute(
                    "UPDATE api_token SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.text(timestamp()), .integer(id)]) > 0
            else {
                let exists = try !db.query("SELECT 1 FROM api_token WHERE id = ?", [.integer(id)]).isEmpty
                throw RegistryError.notFound(exists ? "active token \(id)" : "token \(id)")
            }
            let token = try readToken(try db.query("SELECT * FROM api_token WHERE id = ?", [.integer(id)]).first!)
            try recordChange(entity: .token, id: String(id), action: .revoke, before: nil, after: AuditForm.token(token))
            return WriteOutcome(token)
        }
    }
}
