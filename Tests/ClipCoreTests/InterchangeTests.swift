import StrictJSON
import Testing
@testable import ClipCore

/// Reading imports (byte-order marks, empty files, any chunking) and the spreadsheet-safe export.
struct InterchangeTests {
    static let csvText =
        "url,clip,title,subtitle,localizations\r\nhttps://a.example/1,ABCDE12345.com.a.Clip,\"One, \"\"quoted\"\"\",S,\r\n\r\nhttps://a.example/2,ABCDE12345.com.a.Clip,\"Two\nlines\",S,\"{\"\"FR\"\":{\"\"title\"\":\"\"D\"\",\"\"subtitle\"\":\"\"S\"\"}}\"\nbad,row\n"
    static let ndjsonText = "{\"url\":\"https://a.example/1\"}\r\n\n[1]\n{\"url\":\"https://a.example/2\"}"

    func read(_ bytes: [UInt8], _ format: Interchange.Format, chunk: Int) -> (lines: [String], errors: [String]) {
        var reader = Interchange.Reader(format: format)
        var batches: [Interchange.Batch] = []
        var i = 0
        while i < bytes.count {
            batches.append(reader.feed(bytes[i..<min(bytes.count, i + chunk)]))
            i += chunk
        }
        batches.append(reader.finish())
        return (
            batches.flatMap(\.lines).map { "\($0.line) \(JSONWriter.string($0.object))" },
            batches.flatMap(\.errors).map { "\($0.line) \($0.errors.map(\.rule))" }
        )
    }

    @Test(arguments: [1, 2, 3, 7, 64, 1 << 20])
    func anyChunkingReadsTheSameAsTheWholeText(_ chunk: Int) {
        for (text, format) in [(Self.csvText, Interchange.Format.csv), (Self.ndjsonText, .ndjson)] {
            let whole = Interchange.lines(text, format: format)
            let expected = (
                whole.lines.map { "\($0.line) \(JSONWriter.string($0.object))" }, whole.errors.map { "\($0.line) \($0.errors.map(\.rule))" }
            )
            let chunked = read(Array(text.utf8), format, chunk: chunk)
            #expect(chunked.lines == expected.0 && chunked.errors == expected.1, "\(format) in chunks of \(chunk)")
        }
        #expect(read(Array(Self.csvText.utf8), .csv, chunk: chunk).lines.count == 2)
        #expect(read(Array(Self.csvText.utf8), .csv, chunk: chunk).errors == ["6 [\"csv\"]"])
        #expect(read(Array(Self.ndjsonText.utf8), .ndjson, chunk: chunk).errors == ["3 [\"type\"]"])
    }

    @Test(arguments: [1, 2, 3, 4, 1 << 20])
    func aLeadingByteOrderMarkIsSkipped(_ chunk: Int) {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        for (text, format) in [(Self.csvText, Interchange.Format.csv), (Self.ndjsonText, .ndjson)] {
            let plain = read(Array(text.utf8), format, chunk: chunk)
            let marked = read(bom + Array(text.utf8), format, chunk: chunk)
            #expect(marked.lines == plain.lines && marked.errors == plain.errors, "\(format) in chunks of \(chunk)")
        }
        // Only at the start: elsewhere U+FEFF is text (and refused by TextLimits in a title).
        #expect(read(Array("\u{FEFF}\u{FEFF}url\n".utf8), .csv, chunk: chunk).errors == ["1 [\"unknown\"]"])
    }

    @Test func emptyFiles() {
        let header = "url,clip,action,language,title,subtitle,category,poweredBy,status,localizations,place,headerImage\n"
        // The export of an empty registry imports as nothing: a CSV header alone, an empty NDJSON file.
        #expect(read(Array(header.utf8), .csv, chunk: 5) == ([], []))
        #expect(read([0xEF, 0xBB, 0xBF] + Array(header.utf8), .csv, chunk: 5) == ([], []))
        #expect(read([], .ndjson, chunk: 5) == ([], []))
        #expect(read(Array("\n\n".utf8), .ndjson, chunk: 5) == ([], []))
        // A CSV file without a header is not an export of anything: refused.
        #expect(read([], .csv, chunk: 5).errors == ["1 [\"empty\"]"])
        #expect(read([0xEF, 0xBB, 0xBF], .csv, chunk: 5).errors == ["1 [\"empty\"]"])
    }

    @Test func invalidUTF8InACSVRowIsThatLinesError() {
        let bytes = Array("url,clip,title,subtitle\nhttps://a.example,ABCDE12345.com.a.Clip,".utf8) + [0xC3, 0x28] + Array(",S\n".utf8)
        #expect(read(bytes, .csv, chunk: 3).errors == ["2 [\"encoding\"]"])
    }

    @Test func spreadsheetSafeCellsStartWithAQuote() throws {
        for cell in ["=1+2", "+33 1 23", "-2", "@SUM(A1)", "\tx", "\rx"] { #expect(Interchange.spreadsheetSafeCell(cell) == "'" + cell) }
        for cell in ["", "Rent", "'quoted", " =x", "1-2"] { #expect(Interchange.spreadsheetSafeCell(cell) == cell) }
        let e = try ExperienceJSON.decode(
            try JSONParser.parse(
                #"{"url":"https://a.example/","clip":"ABCDE12345.com.a.Clip","title":"=HYPERLINK(\"x\")","subtitle":"@SUM(1)"}"#)
        ).experience
        #expect(
            Interchange.csv(e, spreadsheetSafe: true)
                == #"https://a.example/,ABCDE12345.com.a.Clip,OPEN,EN,"'=HYPERLINK(""x"")",'@SUM(1),,,,,,,"#)
        #expect(Interchange.csv(e) == #"https://a.example/,ABCDE12345.com.a.Clip,OPEN,EN,"=HYPERLINK(""x"")",@SUM(1),,,,,,,"#)
    }
}
