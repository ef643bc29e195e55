import Foundation
import StrictJSON
import Testing

/// Findings of the hostile-input review, through the built `clipctl`.
struct TrustInputTests {
    static let header =
        "url,clip,action,language,title,subtitle,category,poweredBy,status,localizations,place,headerImage,liveFrom,liveUntil,headerImageData\n"

    @Test func spreadsheetFilesWithAByteOrderMarkImport() throws {
        let clipctl = try Clipctl()
        let bom = Data([0xEF, 0xBB, 0xBF])
        try (bom + Data("url,clip,title,subtitle\nhttps://a.example/1,ABCDE12345.com.a.Clip,One,S\n".utf8)).write(
            to: URL(fileURLWithPath: clipctl.file("excel.csv")))
        try (bom + Data(#"{"url":"https://a.example/2","clip":"ABCDE12345.com.a.Clip","title":"Two","subtitle":"S"}"#.utf8)).write(
            to: URL(fileURLWithPath: clipctl.file("sheet.ndjson")))
        let csv = try clipctl("import", "excel.csv")
        #expect(csv.code == 0 && csv.out.hasPrefix("imported 1 experience in one transaction"), "\(csv.err)")
        let ndjson = try clipctl("import", "sheet.ndjson")
        #expect(ndjson.code == 0 && ndjson.out.hasPrefix("imported 1 experience"), "\(ndjson.err)")
        #expect(try clipctl("list").out.contains("https://a.example/2"))
    }

    @Test func anEmptyExportImportsAsNothing() throws {
        let clipctl = try Clipctl()
        // The exports of an empty registry.
        let csv = try clipctl("export", "--format", "csv")
        let ndjson = try clipctl("export")
        #expect(csv.out == Self.header && ndjson.out == "")
        try clipctl.write("empty.csv", csv.out)
        try clipctl.write("empty.ndjson", ndjson.out)
        for file in ["empty.csv", "empty.ndjson"] {
            let r = try clipctl("import", file)
            #expect(r.code == 0 && r.out == "imported 0 experiences in one transaction\n", "\(file): \(r.err)")
        }
        // A zero-byte CSV has not even the header of an export: probably the wrong file.
        try clipctl.write("zero.csv", "")
        let zero = try clipctl("import", "zero.csv")
        #expect(zero.code == 65 && zero.err.contains("line 1: (file): has no header line"))
    }

    @Test func importErrorsInJSONHaveTheirLineAsAKey() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let before = try clipctl.state()
        let input = """
            {"url":"https://new.example/a","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"B"}
            {"url":"https://new.example/b","clip":"ABCDE12345.com.example.bikes.Clip","title":"A","subtitle":"B","colour":"red"}
            {"url": oops}
            """
        let r = try clipctl("import", "-", "--json", stdin: input)
        #expect(r.code == 65)
        let errors = try JSONParser.parse(r.err)["errors"]?.arrayValue ?? []
        #expect(
            errors.map { JSONWriter.string($0) } == [
                #"{"line":2,"field":"colour","rule":"unknown","message":"is not a known field"}"#,
                #"{"line":3,"field":"(line)","rule":"json","message":"malformed JSON: unexpected character 'o' at column 9"}"#,
            ])
        #expect(try clipctl.state() == before)
    }

    @Test func anUpdateWarnsOnlyAboutTheFieldsItChanges() throws {
        let clipctl = try Clipctl()
        let created = try clipctl(
            "register", "https://a.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "A title over eighteen", "--subtitle", "S")
        #expect(created.code == 0 && created.err.contains("warning: title: is 21 characters"), "\(created.err)")
        let subtitle = try clipctl("update", "1", "--subtitle", "Another subtitle")
        #expect(subtitle.code == 0 && subtitle.err.isEmpty, "the title was not touched: \(subtitle.err)")
        let title = try clipctl("update", "1", "--title", "Another long title 12")
        #expect(title.code == 0 && title.err.contains("warning: title: is 21 characters"), "\(title.err)")
    }

    @Test func resolveRefusesTextThatIsNotAURLAndFindsNoMatchForOtherURLs() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        let state = try clipctl.state()
        let text = try clipctl("resolve", "notaurl")
        #expect(text.code == 65 && text.err.contains("url: not an absolute URL") && text.out.isEmpty, "\(text.code) \(text.err)")
        #expect(try clipctl("resolve", "https://", "--explain").code == 65)
        let json = try clipctl("resolve", "notaurl", "--json")
        let field = try JSONParser.parse(json.err)["errors"]?.arrayValue?.first?["field"]
        #expect(json.code == 65 && field == "url", "\(json.err)")
        for url in ["https://nowhere.example/x", "http://bikesrental.example/rent", "https://localhost/rent"] {
            let r = try clipctl("resolve", url)
            #expect(r.code == 1 && r.out.hasPrefix("no match: "), "\(url): \(r.code) \(r.out) \(r.err)")
        }
        #expect(try clipctl.state() == state)
    }

    @Test func spreadsheetSafeExport() throws {
        let clipctl = try Clipctl()
        #expect(
            try clipctl(
                "register", "https://a.example/", "--clip", "ABCDE12345.com.a.Clip", "--title", "=HYPERLINK(\"http://e.example\")",
                "--subtitle", "@SUM(1+2)"
            ).code == 0)
        let plain = try clipctl("export", "--format", "csv").out
        #expect(plain.contains(#","=HYPERLINK(""http://e.example"")",@SUM(1+2),"#))
        let safe = try clipctl("export", "--format", "csv", "--spreadsheet-safe")
        #expect(safe.code == 0 && safe.out.contains(#","'=HYPERLINK(""http://e.example"")",'@SUM(1+2),"#))
        #expect(try clipctl("export", "--spreadsheet-safe").code == 64, "CSV only")
    }
}
