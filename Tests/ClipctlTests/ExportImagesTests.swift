import Foundation
import StrictJSON
import TestSupport
import Testing

/// An export moves the whole registry, header images included (docs/rules.md#import-and-export): export, then import
/// into a fresh database, then export again gives the same bytes, in both formats.
@Suite(.serialized) struct ExportImagesTests {
    @Test func anExportWithHeaderImagesImportsIntoAFreshDatabase() throws {
        let clipctl = try Clipctl()
        try Data(TestImages.png(width: 1800, height: 1200, grey: 1)).write(to: URL(fileURLWithPath: clipctl.file("one.png")))
        try Data(TestImages.png(width: 1800, height: 1200, grey: 2)).write(to: URL(fileURLWithPath: clipctl.file("two.png")))
        for (url, image) in [("https://a.example/b", "one.png"), ("https://a.example/a", "one.png"), ("https://a.example/c", "two.png")] {
            let r = try clipctl("register", url, "--clip", "ABCDE12345.com.a.app.Clip", "--title", "T", "--subtitle", "S", "--image", image)
            #expect(r.code == 0, "\(r.err)")
        }
        #expect(
            try clipctl("register", "https://a.example/d", "--clip", "ABCDE12345.com.a.app.Clip", "--title", "T", "--subtitle", "S").code
                == 0)
        for format in ["ndjson", "csv"] {
            let first = try clipctl("export", "--format", format)
            #expect(first.code == 0)
            // Each image travels once, with the first line (by URL) that names it.
            #expect(first.out.components(separatedBy: "iVBORw0KGgo").count - 1 == 2, "\(format)")
            try clipctl.write("export.\(format)", first.out)
            let imported = try clipctl("--db", "fresh-\(format).db", "import", "export.\(format)")
            #expect(imported.code == 0, "\(format): \(imported.err)")
            let second = try clipctl("--db", "fresh-\(format).db", "export", "--format", format)
            #expect(second.out == first.out, "\(format)")
        }
        // Lines in another order: a line may name an image that a later line carries.
        let lines = try clipctl("export").out.split(separator: "\n").map(String.init)
        try clipctl.write("reversed.ndjson", lines.reversed().joined(separator: "\n") + "\n")
        #expect(try clipctl("--db", "reversed.db", "import", "reversed.ndjson").code == 0)
        // Data that is not the image named, or not an image, is refused by line, nothing written.
        let carrying = try #require(lines.first { $0.contains("headerImageData") })
        let other = try JSONParser.parse(Array(try clipctl("export").out.split(separator: "\n").first { $0.contains("/c\"") }!.utf8))
        let swapped = carrying.replacingOccurrences(
            of: try JSONParser.parse(Array(carrying.utf8))["headerImage"]!.stringValue!, with: other["headerImage"]!.stringValue!)
        try clipctl.write("swapped.ndjson", swapped + "\n")
        let mismatch = try clipctl("--db", "bad.db", "import", "swapped.ndjson")
        #expect(mismatch.code == 65 && mismatch.err.contains("headerImageData.mismatch"), "\(mismatch.err)")
        try clipctl.write(
            "notimage.ndjson",
            #"{"url":"https://a.example/x","clip":"ABCDE12345.com.a.app.Clip","title":"T","subtitle":"S","headerImageData":"aGVsbG8="}"#
                + "\n")
        let notImage = try clipctl("--db", "bad.db", "import", "notimage.ndjson")
        #expect(notImage.code == 65 && notImage.err.contains("image.format"), "\(notImage.err)")
        #expect(try clipctl("--db", "bad.db", "list", "--json").out == "[]\n")
    }
}
