import ArgParse
import ClipCore
import ClipStore
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
            printJSON(.object(["errors": .integer(Int64(errors)), "warnings": .integer(Int64(warnings)), "findings": .array(findings.map(\.json))]))
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
    /// rename, so a server reading DIR sees the old set or the new one, never a mix.
    func publish() throws {
        if remoteServer != nil { throw CommandFailure.usage("publish reads the database itself; run it where the database is (--server does not apply)") }
        let target = URL(fileURLWithPath: parsed.positional(0)!).standardizedFileURL.path
        let listen = parsed.value("nginx-listen") ?? "443 ssl"
        guard !listen.isEmpty, !listen.contains(where: { $0 == ";" || $0 == "{" || $0 == "}" || $0 == "\n" }) else {
            throw CommandFailure.usage("--nginx-listen takes an nginx listen parameter such as \"443 ssl\" or 127.0.0.1:8443")
        }
        try PublishedDirectory.checkReplaceable(target)
        let publication = try registry().publication()
        let files = StaticSite.files(aasa: publication.aasa, banners: publication.banners, nginx: .init(listen: listen, root: target))
        try PublishedDirectory.write(files, to: target)
        let index = files.first { $0.path == StaticSite.indexName }!
        if json {
            printJSON(.object(["directory": .string(target), "hosts": .integer(Int64(publication.aasa.count)),
                               "banners": .integer(Int64(publication.banners.count)), "files": .integer(Int64(files.count)),
                               "indexSHA256": .string(SHA256.hexDigest(index.bytes)), "notes": .array(publication.notes.map(JSONValue.string))]))
        } else {
            print("published \(publication.aasa.count) AASA file(s) and \(publication.banners.count) banner snippet(s) to \(target)")
            print("  index:  \(target)/\(StaticSite.indexName) (sha256 \(SHA256.hexDigest(index.bytes)))")
            print("  nginx:  \(target)/\(StaticSite.nginxName)")
            for note in publication.notes.prefix(Self.listedAtMost) { io.err("note: \(note)\n") }
            if publication.notes.count > Self.listedAtMost { io.err("note: … and \(publication.notes.count - Self.listedAtMost) more\n") }
        }
    }
}

/// A directory replaced as a whole (publish).
enum PublishedDirectory {
    /// DIR may be absent, empty, or a directory an earlier publish wrote (it has index.json):
    /// anything else is somebody's data and is left alone.
    static func checkReplaceable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw CommandFailure.invalid("DIR", "publish.target", "\(path) exists and is not a directory")
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard entries.isEmpty || entries.contains(StaticSite.indexName) else {
            throw CommandFailure.invalid("DIR", "publish.target", "\(path) is not empty and was not written by clipctl publish (it has no \(StaticSite.indexName)); choose a new or empty directory")
        }
    }

    static func write(_ files: [StaticSite.File], to target: String) throws {
        let parent = (target as NSString).deletingLastPathComponent
        let staging = "\(parent)/.\((target as NSString).lastPathComponent).publishing-\(getpid())"
        try? FileManager.default.removeItem(atPath: staging)
        do {
            for file in files {
                let path = "\(staging)/\(file.path)"
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o755])
                try writeDurably(file.bytes, to: path)
            }
            if FileManager.default.fileExists(atPath: target) {
                try exchange(staging, target)
                try FileManager.default.removeItem(atPath: staging)  // now the previous set
            } else {
                guard rename(staging, target) == 0 else { throw posixFailure("rename \(staging) to \(target)") }
            }
            syncDirectory(parent)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            if let failure = error as? CommandFailure { throw failure }
            throw CommandFailure(code: ExitCode.failure, message: "cannot publish to \(target): \(error.localizedDescription)")
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

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
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
        CommandFailure(code: ExitCode.failure, message: "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
