import CardPreview
import ClipCore
import ArgParse
import ClipStore
import Foundation
import Glibc

/// The card preview page as `clipctl preview` writes it: self-contained, and whether it shows a card.
struct CardPreviewFile {
    let html: String
    let showsCard: Bool
    /// Why no card shows, when the backend knows it.
    let reason: String?
}

extension Context {
    func preview() throws {
        let url = parsed.positional(0)!
        let file = try backend().cardPreview(url: url, language: parsed.value("language"))
        if let output = parsed.value("output") {
            try Self.replaceFile(output, with: Array(file.html.utf8))
        } else {
            io.out(file.html)
        }
        guard file.showsCard else {
            throw CommandFailure(code: ExitCode.failure, message: "no App Clip card for \(url): \(file.reason ?? "the page says why")")
        }
    }

    /// Writes `bytes` to a new file beside `path` (mkstemp(3): O_EXCL, so it never opens an existing
    /// file or a symbolic link), syncs it and renames it over `path` (rename(2) replaces the entry
    /// `path` itself: a symbolic link there is replaced, its target untouched), then syncs the
    /// directory. A failure at any step removes the new file: `path` is the old file or the whole new one.
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws(CommandFailure) {
        do throws(DurableFiles.Failure) { try replaceFileOrFail(path, with: bytes) } catch {
            throw CommandFailure(code: ExitCode.failure, message: error.description)
        }
    }

    private static func replaceFileOrFail(_ path: String, with bytes: [UInt8]) throws(DurableFiles.Failure) {
        if DurableFiles.missingDirectory(for: path) != nil {
            errno = ENOENT
            throw DurableFiles.failure("write \(path)")
        }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            errno = EISDIR
            throw DurableFiles.failure("write \(path)")
        }
        let directory = DurableFiles.directory(of: path)
        let name = (path as NSString).lastPathComponent
        // mkstemp's own descriptor is written: the name is never opened again, so nothing put in its place meanwhile is.
        var template = Array(((directory as NSString).appendingPathComponent(".\(name).tmp-XXXXXX")).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw DurableFiles.failure("create a file in \(directory)") }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var done = false
        defer { if !done { unlink(temporary) } }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw DurableFiles.failure("write \(path)") }
            written += n
        }
        // mkstemp makes the file 0600; a page to share is readable as a new file would be (umask applies).
        let mask = umask(0)
        umask(mask)
        guard fchmod(fd, 0o666 & ~mask) == 0, fsync(fd) == 0 else { throw DurableFiles.failure("write \(path)") }
        guard rename(temporary, path) == 0 else { throw DurableFiles.failure("write \(path)") }
        done = true
        try DurableFiles.syncDirectory(directory)
    }
}

extension RemoteBackend {
    /// The server's page (`GET /preview`), each header image it loads fetched and inlined, and its
    /// code links made absolute on the server, so the file opens anywhere.
    func cardPreview(url: String, language: String?) throws -> CardPreviewFile {
        let answer = try send("GET", "/preview", query: [("url", url), ("language", language)], accept: "text/html")
        guard [200, 404, 422].contains(answer.status), answer.headers["content-type"]?.hasPrefix("text/html") == true else {
            _ = try checked(answer)
            throw CommandFailure(code: ExitCode.failure, message: "the server answered \(answer.status) without a preview page")
        }
        let html = String(decoding: answer.body, as: UTF8.self)
        var sources: [String: String] = [:]
        for sha in StandalonePage.servedImages(html) {
            let image = try send("GET", CardPreviewPage.imagePath + sha, accept: "image/png, image/jpeg")
            let type = image.headers["content-type"] ?? ""
            guard image.status == 200, type == "image/png" || type == "image/jpeg" else { continue }
            sources[sha] = "data:\(type);base64,\(Base64.encode([UInt8](image.body)))"
        }
        let file = StandalonePage.make(html, sources: sources, origin: base)
        return CardPreviewFile(
            html: file, showsCard: answer.status == 200, reason: answer.status == 200 ? nil : "the server answered \(answer.status)")
    }
}
