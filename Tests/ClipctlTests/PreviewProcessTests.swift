import Foundation
import TestSupport
import Testing

/// `clipctl preview` as a process: one self-contained page, from the database or from a server,
/// written whole and never through a symbolic link.
@Suite(.serialized) struct PreviewProcessTests {
    static let image = TestImages.png(width: 1800, height: 1200)
    /// The image as a data: URI, encoded by Foundation (not by our Base64).
    static var dataURI: String { "data:image/png;base64,\(Data(image).base64EncodedString())" }

    static func registered() throws -> Clipctl {
        let clipctl = try Clipctl()
        try Data(image).write(to: URL(fileURLWithPath: clipctl.file("header.png")))
        let r = try clipctl(
            "register", "https://bikesrental.example/rent", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title",
            "<b>Rent</b> & \"go\"", "--subtitle", "Unlock <script>x</script>", "--image", "header.png", "--localization",
            "HE=השכרה|אופניים")
        guard r.code == 0 else { throw Clipctl.CLIError(message: r.err) }
        return clipctl
    }

    /// The card's section of a page.
    static func card(_ html: String) -> String? {
        guard let start = html.range(of: "<section class=\"sheet\""),
            let end = html.range(of: "</section>", range: start.upperBound..<html.endIndex)
        else { return nil }
        return String(html[start.lowerBound..<end.upperBound])
    }

    @Test func localPreviewIsOneSelfContainedFile() throws {
        let clipctl = try Self.registered()
        let r = try clipctl("preview", "https://bikesrental.example/rent?id=7", "-o", "card.html")
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out.isEmpty)
        let html = try clipctl.read("card.html")
        #expect(html.contains("src=\"\(Self.dataURI)\""))
        #expect(!html.contains("/v1/images/"))
        #expect(html.contains("<h2 class=\"title\">&lt;b&gt;Rent&lt;/b&gt; &amp; &quot;go&quot;</h2>"))
        #expect(html.contains("<p class=\"subtitle\">Unlock &lt;script&gt;x&lt;/script&gt;</p>"))
        #expect(!html.contains("<script"))
        let attributes = try FileManager.default.attributesOfItem(atPath: clipctl.file("card.html"))
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o044 != 0 } == true, "readable by others, as a new file")
        // Without -o, the page goes to standard output; --language picks the card.
        let hebrew = try clipctl("preview", "https://bikesrental.example/rent", "--language", "he")
        #expect(hebrew.code == 0 && hebrew.out.contains("lang=\"he\" dir=\"rtl\"") && hebrew.out.contains(">השכרה</h2>"))
        #expect(try clipctl("preview", "https://bikesrental.example/rent", "--language", "xx").code == 65)
        #expect(try clipctl("preview").code == 64)
    }

    @Test func aURLWithoutACardGetsItsPageAndExitsOne() throws {
        let clipctl = try Self.registered()
        let r = try clipctl("preview", "https://nobody.example/", "-o", "none.html")
        #expect(r.code == 1 && r.err.contains("no App Clip card for https://nobody.example/"))
        let html = try clipctl.read("none.html")
        #expect(html.contains("No App Clip card") && Self.card(html) == nil && !html.contains("<svg"))
    }

    @Test func aSymbolicLinkIsNeitherWrittenThroughNorReplacedAndNoPartialFileIsLeft() throws {
        let clipctl = try Self.registered()
        try clipctl.write("victim.txt", "someone else's file\n")
        try FileManager.default.createSymbolicLink(atPath: clipctl.file("card.html"), withDestinationPath: clipctl.file("victim.txt"))
        // As `clipctl code -o` (DurableFiles.replaceWhole): refused, the link and its target as they were.
        let r = try clipctl("preview", "https://bikesrental.example/rent", "-o", "card.html")
        #expect(r.code == 1)
        #expect(r.err.contains("is a symbolic link"))
        #expect(try clipctl.read("victim.txt") == "someone else's file\n")
        let type = try FileManager.default.attributesOfItem(atPath: clipctl.file("card.html"))[.type] as? FileAttributeType
        #expect(type == .typeSymbolicLink)
        #expect(try clipctl("preview", "https://bikesrental.example/rent", "-o", "fresh.html").code == 0)
        #expect(try clipctl.read("fresh.html").contains("App Clip card preview"))
        // A one-character name in the current folder (once a crash in the path's directory).
        #expect(try clipctl("preview", "https://bikesrental.example/rent", "-o", "k").code == 0)
        #expect(try clipctl("code", "https://bikesrental.example/rent", "-o", "q").code == 0)
        // A directory in the way, or a missing folder: refused, and nothing left behind.
        try FileManager.default.createDirectory(atPath: clipctl.file("folder"), withIntermediateDirectories: false)
        let onDirectory = try clipctl("preview", "https://bikesrental.example/rent", "-o", "folder")
        #expect(onDirectory.code == 1 && onDirectory.err.contains("folder"))
        #expect(try clipctl("preview", "https://bikesrental.example/rent", "-o", "missing/card.html").code == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: clipctl.directory.path).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func remotePreviewInlinesTheServersImagesAndLinksItsCodes() throws {
        let clipctl = try Self.registered()
        let local = try clipctl("preview", "https://bikesrental.example/rent", "-o", "local.html")
        #expect(local.code == 0)
        let server = try ServeProcess(clipctl, database: clipctl.file("clips.db"))
        defer { _ = server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let r = try clipctl("--server", origin, "preview", "https://bikesrental.example/rent", "-o", "remote.html")
        #expect(r.code == 0, "\(r.err)")
        let remote = try clipctl.read("remote.html"), localHTML = try clipctl.read("local.html")
        #expect(remote.contains("src=\"\(Self.dataURI)\""))
        #expect(!remote.contains("/v1/images/"))
        #expect(remote.contains("href=\"\(origin)/v1/codes?url=https%3A%2F%2Fbikesrental.example%2Frent&amp;format=svg\""))
        #expect(Self.card(remote) != nil && Self.card(remote) == Self.card(localHTML), "the same card either way")
        let none = try clipctl("--server", origin, "preview", "https://nobody.example/", "-o", "none.html")
        let nonePage = try clipctl.read("none.html")
        #expect(none.code == 1 && nonePage.contains("No App Clip card"))
        #expect(try clipctl("--server", origin, "preview", "https://bikesrental.example/rent", "--language", "xx").code == 65)
    }
}
