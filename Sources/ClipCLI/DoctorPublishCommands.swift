import ArgParse
import ClipCore
import ClipStore
import ClipWire
import Foundation
import Glibc
import StrictJSON

/// doctor and publish: local database only (they read everything at once).
extension Context {
    func doctor() throws {
        if remoteServer != nil { throw CommandFailure.usage("doctor reads the database itself; run it where the database is (--server does not apply)") }
        let findings = Doctor.examine(try registry().doctorSnapshot(host: parsed.value("host")))
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

    /// `publish DIR`: writes every file into a new sibling directory, then swaps it in with one
    /// rename, so a server reading DIR sees the old set or the new one, never a mix. DIR is
    /// replaced as a whole, so it must be absent, empty or exactly an earlier publish
    /// (`StaticSite.changes`), and must not hold the database.
    func publish() throws {
        if remoteServer != nil { throw CommandFailure.usage("publish reads the database itself; run it where the database is (--server does not apply)") }
        let listen = parsed.value("nginx-listen") ?? "443 ssl"
        guard !listen.isEmpty, !listen.contains(where: { $0 == ";" || $0 == "{" || $0 == "}" || $0 == "\n" }) else {
            throw CommandFailure.usage("--nginx-listen takes an nginx listen parameter such as \"443 ssl\" or 127.0.0.1:8443")
        }
        // The database first: opening it may create it, in DIR itself (`publish .` in an empty folder).
        let registry = try registry()
        let target = try PublishedDirectory.resolve(parsed.positional(0)!)
        try PublishedDirectory.checkNotHoldingDatabase(target, database: databasePath)
        let publication = try registry.publication()
        let files = StaticSite.files(aasa: publication.aasa, banners: publication.banners, nginx: .init(listen: listen, root: target))
        let changes = try PublishedDirectory.write(files, to: target)
        let index = files.first { $0.path == StaticSite.indexName }!
        if json {
            printJSON(CommandJSON.published(directory: target, hosts: publication.aasa.count, banners: publication.banners.count,
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
}

/// A directory replaced as a whole (publish).
enum PublishedDirectory {
    /// DIR as an absolute path with symbolic links resolved (a link to a folder publishes into
    /// that folder; the link stays), its missing parents created.
    static func resolve(_ argument: String) throws -> String {
        let path = URL(fileURLWithPath: argument).standardizedFileURL.path
        if DurableFiles.exists(path), let real = DurableFiles.realPath(path) { return real }
        let parent = (path as NSString).deletingLastPathComponent
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw CommandFailure(code: ExitCode.failure, message: "cannot publish to \(path): cannot create \(parent)")
        }
        guard let real = DurableFiles.realPath(parent) else { throw CommandFailure(code: ExitCode.failure, message: "cannot publish to \(path): cannot resolve \(parent)") }
        return real == "/" ? "/\((path as NSString).lastPathComponent)" : "\(real)/\((path as NSString).lastPathComponent)"
    }

    /// Publish replaces DIR and everything in it: DIR must not be the database's folder or one
    /// above it (where the file, its -wal and -shm live; SQLite keeps them beside the file a
    /// symbolic link points to, so both folders count).
    static func checkNotHoldingDatabase(_ target: String, database: String) throws {
        let given = URL(fileURLWithPath: database).standardizedFileURL.path
        let folders = [given, DurableFiles.realPath(given) ?? given].map { ($0 as NSString).deletingLastPathComponent }
        for folder in Set(folders + folders.compactMap(DurableFiles.realPath)) where folder == target || folder.hasPrefix(target == "/" ? "/" : target + "/") {
            throw CommandFailure.invalid("DIR", "publish.target", "\(target) holds the database \(database) (publish replaces the whole directory); choose a directory of its own")
        }
    }

    /// Everything under `root` by relative path, without following symbolic links; nil when
    /// `root` does not exist.
    static func list(_ root: String) throws -> [String: StaticSite.Entry]? {
        var info = stat()
        guard lstat(root, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure.invalid("DIR", "publish.target", "\(root) exists and is not a directory")
        }
        var entries: [String: StaticSite.Entry] = [:]
        func walk(_ relative: String) throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? root : "\(root)/\(relative)")
            for name in names {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                guard lstat("\(root)/\(path)", &info) == 0 else { throw posixFailure("read \(root)/\(path)") }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    entries[path] = .directory
                    try walk(path)
                case S_IFREG:
                    guard let data = FileManager.default.contents(atPath: "\(root)/\(path)") else { throw posixFailure("read \(root)/\(path)") }
                    entries[path] = .file(sha256: SHA256.hexDigest([UInt8](data)))
                default:
                    entries[path] = .other
                }
            }
        }
        try walk("")
        return entries
    }

    /// The changes of replacing `target` by `files`, or the refusal, with the foreign entries listed.
    static func changes(_ target: String, _ files: [StaticSite.File]) throws -> StaticSite.Changes {
        let existing = try list(target)
        let result = StaticSite.changes(replacing: existing, with: files) {
            FileManager.default.contents(atPath: "\(target)/\(StaticSite.indexName)").map { [UInt8]($0) }
        }
        switch result {
        case .success(let changes): return changes
        case .failure(let refusal):
            let shown = refusal.foreign.prefix(Context.listedAtMost).map { "\($0.path) (\($0.why))" }
            let more = refusal.foreign.count > Context.listedAtMost ? ", and \(refusal.foreign.count - Context.listedAtMost) more" : ""
            throw CommandFailure.invalid("DIR", "publish.target", "\(target) is left untouched: \(refusal.reason): \(shown.joined(separator: ", "))\(more); move them away or choose another directory")
        }
    }

    static func write(_ files: [StaticSite.File], to target: String) throws -> StaticSite.Changes {
        let changes = try Self.changes(target, files)
        let parent = (target as NSString).deletingLastPathComponent
        var template = Array("\(parent)/.\((target as NSString).lastPathComponent).publishing-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw posixFailure("create a directory in \(parent)") }
        let staging = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        chmod(staging, 0o755)
        do {
            var folders: Set<String> = []
            for file in files {
                let path = "\(staging)/\(file.path)"
                let folder = (path as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
                var f = folder
                while f.count > staging.count { folders.insert(f); f = (f as NSString).deletingLastPathComponent }
                try writeDurably(file.bytes, to: path)
            }
            // Deepest first, so each folder's entry is durable in its parent before the swap.
            for folder in folders.sorted(by: { $0.count > $1.count }) + [staging] { try sync(folder) }
            if DurableFiles.exists(target) {
                try exchange(staging, target)
                // Checked again now that it is out of the way: a file added meanwhile is put back.
                do { _ = try Self.changes(staging, files) } catch {
                    try? exchange(staging, target)
                    try? sync(parent)
                    throw error
                }
                try sync(parent)
                try FileManager.default.removeItem(atPath: staging)  // the previous set, all of it ours
            } else {
                guard rename(staging, target) == 0 else { throw posixFailure("rename \(staging) to \(target)") }
            }
            try sync(parent)
        } catch {
            if DurableFiles.exists(staging) && !DurableFiles.sameFile(staging, target) { try? FileManager.default.removeItem(atPath: staging) }
            if let failure = error as? CommandFailure { throw failure }
            throw CommandFailure(code: ExitCode.failure, message: "cannot publish to \(target): \(error.localizedDescription)")
        }
        return changes
    }

    static func sync(_ directory: String) throws {
        do { try DurableFiles.syncDirectory(directory) } catch {
            throw CommandFailure(code: ExitCode.failure, message: "\(error)")
        }
    }

    /// Writes and fsyncs a file (mode 0644), so the swap never exposes an empty one.
    static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixFailure("create \(path)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw posixFailure("write \(path)") }
            offset += n
        }
        guard fsync(fd) == 0 else { throw posixFailure("fsync \(path)") }
    }

    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// renameat2(2) with RENAME_EXCHANGE (Linux 3.15, glibc 2.28) swaps two paths atomically. The
    /// Glibc module does not export it, so it is looked up; without it (or on a file system that
    /// refuses it) the old directory is moved aside first, which leaves a moment with no DIR.
    static func exchange(_ a: String, _ b: String) throws {
        let RENAME_EXCHANGE: UInt32 = 1 << 1
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") {
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS else { throw posixFailure("exchange \(a) and \(b)") }
        }
        let aside = b + ".previous-\(getpid())"
        guard rename(b, aside) == 0 else { throw posixFailure("rename \(b)") }
        guard rename(a, b) == 0 else {
            _ = rename(aside, b)
            throw posixFailure("rename \(a) to \(b)")
        }
        guard rename(aside, a) == 0 else { throw posixFailure("rename \(aside)") }
    }

    static func posixFailure(_ what: String) -> CommandFailure {
        CommandFailure(code: ExitCode.failure, message: DurableFiles.failure(what).description)
    }
}
