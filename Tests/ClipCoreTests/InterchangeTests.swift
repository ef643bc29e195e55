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

    /// An import's reader hands NDJSON lines out unparsed and parses them on another thread: the
    /// lines and errors must be those of the reader that parses as it reads, hostile lines included.
    @Test(arguments: [1, 3, 64, 1 << 20])
    func deferredParsingReadsTheSameAsParsingWhileReading(_ chunk: Int) {
        let hostile = [
            "{\"url\":\"https://a.example/1\",\"title\":\"T\"}",
            "{\"url\":1,\"url\":2}",  // a key given twice
            "{\"a\":\"\\ud800\"}",  // a lone surrogate
            "{\"a\":\"\u{7}\"}",  // an unescaped control character
            "{\"a\":01}", "{\"a\":1e999}", "{\"a\":[1,]}", "[1]", "\"text\"", "null", "{", "}",
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),  // deeper than the limit
            "{\"title\":\"\u{200B}zero\u{202E}width\"}",  // invisible and bidi characters pass the parser
            "{\"headerImageData\":\"not base 64\"}", "{\"headerImageData\":7}",
            "   ", "\t", "{\"url\":\"https://a.example/2\"}\r",
        ]
        // Invalid UTF-8 outside a string and inside one; a valid non-ASCII line between them.
        let text =
            Array(hostile.joined(separator: "\n").utf8) + [0x0A, 0xFF, 0x0A] + Array("{\"b\":\"\u{FF}\"}\n".utf8) + [0x22, 0xC3, 0x22]
        let eager = read(text, .ndjson, chunk: chunk)
        var reader = Interchange.Reader(format: .ndjson, defersParsing: true)
        var batches: [Interchange.Batch] = []
        var i = 0
        while i < text.count {
            batches.append(reader.feed(text[i..<min(text.count, i + chunk)]))
            i += chunk
        }
        batches.append(reader.finish())
        #expect(batches.allSatisfy { $0.lines.isEmpty }, "no line is parsed while reading")
        var lines: [String] = [], errors: [String] = []
        for line in batches.flatMap(\.unparsed) {
            switch line.parse() {
            case .success(let parsed): lines.append("\(parsed.line) \(JSONWriter.string(parsed.object))")
            case .failure(let error): errors.append("\(error.line) \(error.errors.map(\.rule))")
            }
        }
        errors += batches.flatMap(\.errors).map { "\($0.line) \($0.errors.map(\.rule))" }
        #expect(lines == eager.lines)
        #expect(errors.sorted() == eager.errors.sorted())
        #expect(eager.lines.count == 4 && eager.errors.count == 16, "\(eager)")
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

    /// QA: a UTF-16 file gave a line of errors per column with a NUL between each letter, and a semicolon-separated sheet
    /// "is not a known column" for the whole header: each is named for what it is, in one error.
    @Test(arguments: [1, 2, 5, 1 << 20]) func aUTF16FileAndAnotherSeparatorAreNamed(_ chunk: Int) {
        let text = "url,clip,title,subtitle\nhttps://a.example/z,ABCDE12345.com.a.Clip,T,S\n"
        let littleEndian = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        for format in [Interchange.Format.csv, .ndjson] {
            #expect(read([0xFF, 0xFE] + littleEndian, format, chunk: chunk).errors == ["1 [\"encoding\"]"])
            #expect(read(littleEndian, format, chunk: chunk).errors == ["1 [\"encoding\"]"])
        }
        for separator in [";", "\t"] {
            let sheet = text.split(separator: ",", omittingEmptySubsequences: false).joined(separator: separator)
            #expect(read(Array(sheet.utf8), .csv, chunk: chunk) == ([], ["1 [\"delimiter\"]"]))
        }
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
                == #"https://a.example/,ABCDE12345.com.a.Clip,OPEN,en,"'=HYPERLINK(""x"")",'@SUM(1),,,,,,,,,"#)
        #expect(Interchange.csv(e) == #"https://a.example/,ABCDE12345.com.a.Clip,OPEN,en,"=HYPERLINK(""x"")",@SUM(1),,,,,,,,,"#)
    }
}
