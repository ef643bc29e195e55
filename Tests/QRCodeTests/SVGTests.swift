import Foundation
import QRCode
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG drawing: well-formed XML, the title as given, the path exactly the dark modules, sizes.
@Suite struct SVGTests {
    let code = try! QRCode.encode("https://bikesrental.example/rent?id=1&lang=\"fr\"&x=<y>&it's", ecc: .medium)

    /// Reads the document with Foundation's XML parser: the root's attributes, the title text, the path's d.
    final class Reader: NSObject, XMLParserDelegate {
        var attributes: [String: [String: String]] = [:]
        var title = ""
        var inTitle = false
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            self.attributes[name] = attributes
            inTitle = name == "title"
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if inTitle { title += string } }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { inTitle = false }
    }

    func parse(_ svg: String) throws -> Reader {
        let parser = XMLParser(data: Data(svg.utf8))
        let reader = Reader()
        parser.delegate = reader
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        return reader
    }

    /// The modules the path covers, read back from its "M x y h w v1 h-w z" runs.
    func modules(of path: String, size: Int) -> Set<[Int]> {
        var covered = Set<[Int]>()
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).map { Int($0)! }
            #expect(numbers.count == 5 && numbers[3] == 1 && numbers[4] == -numbers[2])
            for x in numbers[0]..<numbers[0] + numbers[2] { covered.insert([x, numbers[1]]) }
        }
        return covered
    }

    @Test func pathCoversExactlyTheDarkModules() throws {
        let reader = try parse(try code.svg())
        let path = try #require(reader.attributes["path"]?["d"])
        var dark = Set<[Int]>()
        for y in 0..<code.size { for x in 0..<code.size where code[x, y] { dark.insert([x + 4, y + 4]) } }
        #expect(modules(of: path, size: code.size) == dark)
        #expect(reader.attributes["path"]?["fill"] == "#000")
    }

    @Test func titleIsTheTextEscaped() throws {
        let svg = try code.svg()
        #expect(svg.contains("<title>https://bikesrental.example/rent?id=1&amp;lang=&quot;fr&quot;&amp;x=&lt;y&gt;&amp;it&apos;s</title>"))
        #expect(try parse(svg).title == code.text)
    }

    @Test func documentAttributes() throws {
        let modules = code.size + 8
        let root = try #require(try parse(try code.svg(size: .pixelsPerModule(5))).attributes["svg"])
        #expect(root["viewBox"] == "0 0 \(modules) \(modules)")
        #expect(root["width"] == "\(5 * modules)px" && root["height"] == "\(5 * modules)px")
        #expect(root["shape-rendering"] == "crispEdges")
        let rect = try #require(try parse(try code.svg()).attributes["rect"])
        #expect(rect["width"] == "\(modules)" && rect["height"] == "\(modules)" && rect["fill"] == "#fff")
    }

    @Test func printSizesInMillimetres() throws {
        for (millimetres, written) in [
            (40.0, "40mm"), (12.5, "12.5mm"), (12.345, "12.35mm"), (0.01, "0.01mm"), (7.05, "7.05mm"), (10_000, "10000mm"),
        ] {
            let root = try #require(try parse(try code.svg(size: .millimetres(millimetres))).attributes["svg"])
            #expect(root["width"] == written && root["height"] == written)
        }
    }

    @Test func sameSymbolSameBytes() throws {
        let again = try QRCode.encode(code.text, ecc: .medium)
        #expect(try code.svg() == again.svg())
        #expect(try code.svg().hasSuffix("</svg>\n"))
    }

    @Test func outOfRangeSizesAreRefused() {
        for size in [SVGSize.pixelsPerModule(0), .pixelsPerModule(-3), .pixelsPerModule(1001), .millimetres(0), .millimetres(-1)]
            + [.millimetres(.nan), .millimetres(.infinity), .millimetres(0.004), .millimetres(10_001)]
        {
            #expect(throws: QRCodeError.self) { try code.svg(size: size) }
        }
        #expect(
            QRCodeError.invalidSVGSize("0 pixels a module (1 to 1000)").description == "invalid SVG size: 0 pixels a module (1 to 1000)")
    }
}
