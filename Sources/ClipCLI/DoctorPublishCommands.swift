import ArgParse
import ClipApp
import ClipCore
import ClipStore
import ClipWire
import FileFormats
import Foundation
import StrictJSON

/// doctor and publish: the registry read in bulk (`BulkRead.records`: `GET /v1/bulk` page after page, on the
/// database or from a server), then examined (Doctor) or written (StaticSite) here, so both ways give the same
/// report and the same files.
extension Context {
    func doctor() throws {
        var snapshot = Doctor.Snapshot()
        try BulkRead.records(host: parsed.value("host"), run: { try self.send($0, $1) }, each: { snapshot.add($0) })
        let findings = Doctor.examine(snapshot) + (remoteServer == nil ? try appStoreConnectFindings() : [])
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        if json {
            printJSON(DoctorJSON.report(findings))
        } else {
            for f in findings {
                print("\(f.severity.rawValue) \(f.code) \(f.subject): \(f.message)")
                if let fix = f.fix { print("    fix: \(fix)") }
            }
            print(findings.isEmpty ? "no problems found" : "\(errors) error(s), \(warnings) warning(s)")
        }
        // Non-zero only on errors: warnings are advice.
        if errors > 0 { throw CommandFailure(code: ExitCode.failure, message: "") }
    }

    /// Drift and pending changes of the clips linked to App Store Connect, read there when a key is given (flags or the
    /// ASC_ environment); without one, or when App Store Connect cannot be read, doctor says so and goes on.
    private func appStoreConnectFindings() throws -> [Doctor.Finding] {
        guard parsed.value("host") == nil, !(try registry().ascLinks()).isEmpty else { return [] }
        let keyGiven =
            parsed.value("key-id") != nil
            || environment.contains { ["ASC_KEY_ID", "ASC_PRIVATE_KEY_PATH", "ASC_PRIVATE_KEY"].contains($0.key) && !$0.value.isEmpty }
        guard keyGiven else {
            return [
                .init(
                    severity: .info, code: "asc.notChecked", subject: "App Store Connect",
                    message: "clips are linked to App Store Connect, but no key was given: drift was not checked",
                    fix: "set ASC_KEY_ID, ASC_ISSUER_ID and ASC_PRIVATE_KEY_PATH (or pass --key-id …) and run doctor again")
            ]
        }
        return appStoreConnectAccess().doctorFindings(registry: try registry())
    }

    /// `publish DIR`: writes every file into a new sibling directory, then swaps it in with one
    /// rename, so a server reading DIR sees the old set or the new one, never a mix. DIR is
    /// replaced as a whole, so it must be absent, empty or exactly an earlier publish
    /// (`StaticSite.changes`), and must not hold the database.
    func publish() throws {
        let listen = parsed.value("nginx-listen") ?? "443 ssl"
        guard !listen.isEmpty, !listen.contains(where: { $0 == ";" || $0 == "{" || $0 == "}" || $0 == "\n" }) else {
            throw CommandFailure.usage("--nginx-listen takes an nginx listen parameter such as \"443 ssl\" or 127.0.0.1:8443")
        }
        // The database first: opening it may create it, in DIR itself (`publish .` in an empty folder).
        if try server() == nil { _ = try registry() }
        let target: String
        do throws(PublishedDirectory.Failure) {
            target = try PublishedDirectory.resolve(parsed.positional(0)!)
            if remoteServer == nil { try PublishedDirectory.checkNotHoldingDatabase(target, database: databasePath) }
        } catch { throw Self.publishFailure(error) }
        // Everything is read before DIR is touched: a server that stops answering leaves DIR as it was.
        var publication = StaticSite.Publication()
        try BulkRead.records(
            host: nil, run: { try self.send($0, $1) },
            each: { record in
                do throws(AASAGenerator.TooLarge) { try publication.add(record) } catch {
                    throw RegistryError.unprocessable(error.description)
                }
            })
        let files = StaticSite.files(aasa: publication.aasa, banners: publication.banners, nginx: .init(listen: listen, root: target))
        let changes: StaticSite.Changes
        do throws(PublishedDirectory.Failure) {
            changes = try PublishedDirectory.write(files, to: target, listedAtMost: Self.listedAtMost)
        } catch { throw Self.publishFailure(error) }
        let index = files.first { $0.path == StaticSite.indexName }!
        if json {
            printJSON(
                CommandJSON.published(
                    directory: target, hosts: publication.aasa.count, banners: publication.banners.count,
                    files: files.count, indexSHA256: SHA256.hexDigest(index.bytes), notes: publication.notes, changes: changes))
        } else {
            print("published \(publication.aasa.count) AASA file(s) and \(publication.banners.count) banner snippet(s) to \(target)")
            print("  index:  \(target)/\(StaticSite.indexName) (sha256 \(SHA256.hexDigest(index.bytes)))")
            print("  nginx:  \(target)/\(StaticSite.nginxName)")
            for path in changes.added { print("  added:   \(path)") }
            for path in changes.changed { print("  changed: \(path)") }
            for path in changes.removed { print("  removed: \(path)") }
            print("  \(changes.unchanged.count) file(s) unchanged")
            for note in publication.notes.prefix(Self.listedAtMost) { io.err("note: \(note)\n") }
            if publication.notes.count > Self.listedAtMost { io.err("note: … and \(publication.notes.count - Self.listedAtMost) more\n") }
        }
    }

    /// `PublishedDirectory`'s failures as clipctl reports them: a directory that cannot be
    /// published to as it is, an input error naming DIR; a failed file-system step, a failure.
    static func publishFailure(_ failure: PublishedDirectory.Failure) -> CommandFailure {
        switch failure {
        case .target(let message): CommandFailure.invalid("DIR", "publish.target", message)
        case .io(let message): CommandFailure(code: ExitCode.failure, message: message)
        }
    }
}
