import CardPreview
import ClipCore
import ArgParse
import ClipStore
import FileFormats
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

    /// The page at `path`, whole or not at all, never through a symbolic link or over another user's file
    /// (`DurableFiles.replaceWhole`, as `clipctl code -o` writes).
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws(CommandFailure) {
        do throws(DurableFiles.Failure) { try DurableFiles.replaceWhole(path, with: bytes) } catch {
            throw CommandFailure(code: ExitCode.failure, message: error.description)
        }
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
