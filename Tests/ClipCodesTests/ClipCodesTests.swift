import ClipCodes
import ClipCore
import DoctorAndPublish
import FileFormats
import QRCode
import StrictJSON
import Testing

struct CodeFileNameTests {
    @Test func aPlainURLKeepsItsReadableName() {
        #expect(CodeFileName.stem(for: "https://bikesrental.example/rent") == "bikesrental.example_rent")
        #expect(CodeFileName.stem(for: "https://bikesrental.example/") == "bikesrental.example_")
        #expect(CodeFileName.stem(for: "https://a-b.example/x-y/z") == "a-b.example_x-y_z")
    }

    @Test func lossyNamesCarryTheURLsDigest() {
        let name = CodeFileName.stem(for: "https://shop.example/Store?id=7")
        #expect(name.hasPrefix("shop.example_-tore-id-7~"))
        let digest = SHA256.hexDigest(Array("https://shop.example/Store?id=7".utf8))
        #expect(name.hasSuffix("~" + digest.prefix(12)))
    }

    @Test func namesAreUniqueWhereTheURLsDiffer() {
        // Pairs a naive slug would merge: case, "_" against "/", "?" against "-", escapes, trailing slash.
        let urls = [
            "https://shop.example/a", "https://shop.example/A", "https://shop.example/a/", "https://shop.example/a_b",
            "https://shop.example/a/b", "https://shop.example/a-b", "https://shop.example/a?b", "https://shop.example/a%20b",
            "https://shop.example/a%2Fb", "https://shop.example/x-0123456789ab", "https://shop.example/x?0123456789ab",
        ]
        let names = urls.map(CodeFileName.stem(for:))
        #expect(Set(names).count == urls.count, "\(names)")
        #expect(Set(names.map { $0.lowercased() }).count == urls.count, "apart on a case-insensitive file system too")
    }

    @Test func namesAreSafeAndShortWhateverTheURL() {
        let hostile = [
            "https://shop.example/" + String(repeating: "é", count: 500),
            "https://shop.example/" + String(repeating: "x", count: 4000),
            "https://shop.example/\u{200B}\u{202E}gnp.exe", "https://shop.example/../../etc/passwd", "https://shop.example/%00",
            "", "https://", ".hidden", "-rf", "https://" + String(repeating: "\u{1F600}", count: 100),
        ]
        for url in hostile {
            let name = CodeFileName.stem(for: url)
            #expect(!name.isEmpty)
            #expect(name.count + ".ndef".count <= CodeFileName.maxLength, "\(name.count)")
            #expect(
                name.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._-~".unicodeScalars.contains($0)
                })
            #expect(!name.hasPrefix(".") && !name.hasPrefix("-"))
            #expect(!name.contains("/") && name != "." && name != "..", "\(name)")
        }
    }
}

struct VendorCSVTests {
    @Test func rfc4180Quoting() throws {
        let bytes = try VendorCSV.bytes([
            ("a.svg", "https://shop.example/a"), ("b.svg", "https://shop.example/b?x=1,2"), ("c.svg", "https://shop.example/\"q\""),
        ])
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "SVG File Name,URL\r\na.svg,https://shop.example/a\r\nb.svg,\"https://shop.example/b?x=1,2\"\r\n"
                + "c.svg,\"https://shop.example/\"\"q\"\"\"\r\n")
        #expect(VendorCSV.field("line\nbreak") == "\"line\nbreak\"")
        #expect(VendorCSV.field("") == "")
    }

    @Test func tenThousandRowsAtMost() throws {
        let rows = (0..<10_000).map { ("\($0).svg", "https://shop.example/\($0)") }
        #expect(try VendorCSV.bytes(rows).count > 0)
        #expect(throws: VendorCSV.TooManyRows(rows: 10_001)) { try VendorCSV.bytes(rows + [("x.svg", "https://shop.example/x")]) }
    }
}

struct CodeRenderingTests {
    @Test func optionsParse() {
        #expect(CodeSize.parse("8") == .pixelsPerModule(8))
        #expect(CodeSize.parse("30mm") == .millimetres(30))
        #expect(CodeSize.parse("12.5mm") == .millimetres(12.5))
        for bad in [
            "0", "101", "-1", "08", "", "mm", "9mm", "1001mm", "nanmm", "infmm", "1e3", "1e3mm", "1E2mm", "0x1p5mm", "+30mm", "30.mm",
            ".5e2mm", "3..0mm", "30,5mm", " 8", "8 ", "８",
        ] {
            #expect(CodeSize.parse(bad) == nil, "\(bad)")
        }
        #expect(ErrorCorrectionLevel.parse("q") == .quartile)
        #expect(ErrorCorrectionLevel.parse("X") == nil)
        #expect(ErrorCorrectionLevel.parse("") == nil)
    }

    @Test func aPrintSizePNGSaysThreeHundredDPIAndFitsTheWidth() throws {
        let code = try CodeRenderer.render("https://shop.example/order", format: .png, size: .millimetres(30))
        let symbol = try QRCode.encode("https://shop.example/order")
        let modules = symbol.size + 8
        // IHDR width at offset 16, big-endian.
        let width = code.bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let fullWidth = Int(30 / 25.4 * 300)
        #expect(width % modules == 0)
        #expect(width <= fullWidth && width > fullWidth - modules)
        // pHYs: 11811 pixels a metre (300 dpi), unit 1.
        let phys = Array("pHYs".utf8)
        let at = try #require((0..<(code.bytes.count - 4)).first { Array(code.bytes[$0..<($0 + 4)]) == phys })
        #expect(Array(code.bytes[(at + 4)..<(at + 13)]) == [0, 0, 0x2E, 0x23, 0, 0, 0x2E, 0x23, 1])
        #expect(code.qrVersion == symbol.version)
    }

    @Test func refusalsOfRendering() {
        // ISO/IEC 18004:2015 Table 7: version 40 holds 2,953 bytes at level L and 1,273 at level H.
        let huge = "https://shop.example/" + String(repeating: "x", count: 2500)
        #expect(throws: CodeRenderingError.self) { try CodeRenderer.render(huge, format: .svg, ecc: .high) }
        #expect((try? CodeRenderer.render(huge, format: .svg, ecc: .low)) != nil)
        #expect(throws: CodeRenderingError.self) { try CodeRenderer.render("https://shop.example/\u{202E}", format: .ndef) }
        // 10 mm at 300 dpi is 118 pixels: less than a pixel a module for version 40.
        #expect(throws: CodeRenderingError.self) { try CodeRenderer.render(huge, format: .png, ecc: .low, size: .millimetres(10)) }
    }

    @Test func ndefHexIsTheNDEFBytes() throws {
        let raw = try CodeRenderer.render("https://shop.example/order", format: .ndef)
        let hex = try CodeRenderer.render("https://shop.example/order", format: .ndefHex)
        #expect(String(decoding: hex.bytes, as: UTF8.self) == Hexadecimal.string(raw.bytes) + "\n")
        #expect(raw.ntag == .ntag213)
    }
}

struct CodeTargetTests {
    let clip = try! AppID("ABCDE12345.com.shop.app.Clip")

    func experience(_ url: String, id: Int64 = 1, status: ExperienceStatus = .active) throws -> AdvancedExperience {
        AdvancedExperience(
            id: id, url: try NormalizedURL(url), clip: clip, action: .open, defaultLanguage: .EN, isPoweredBy: false,
            businessCategory: nil, localizations: [.EN: CardText(title: "Shop", subtitle: "Order")], headerImage: nil, place: nil,
            status: status, version: 1, createdAt: "", updatedAt: "")
    }

    func resolve(_ url: String, _ candidates: [AdvancedExperience], fallbacks: [DefaultFallback] = []) throws -> Resolution {
        Resolver.resolve(url, url: try NormalizedURL(url), candidates: candidates, fallbacks: fallbacks, preferences: [], at: .earliest)
    }

    @Test func anActiveMatchOnAnAssociatedHostGetsACodeOfTheURLAsGiven() throws {
        let order = try experience("https://shop.example/order")
        let decision = CodeTarget.decide(try resolve("https://shop.example/order/7?table=2", [order])) { _, _ in true }
        #expect(decision == .success(CodeTarget(url: "https://shop.example/order/7?table=2", experienceID: 1, clip: clip)))
    }

    @Test func eachRefusalSaysWhy() throws {
        let order = try experience("https://shop.example/order")
        let off = try experience("https://shop.example/order", status: .deactivated)
        #expect(CodeTarget.decide(try resolve("https://shop.example/order", [off])) { _, _ in true } == .failure(.deactivated(ids: [1])))
        guard
            case .failure(.noMatch(let why)) = CodeTarget.decide(
                try resolve("https://shop.example/pay", [order]), associated: { _, _ in true })
        else {
            Issue.record("expected no match")
            return
        }
        #expect(why.contains("shop.example"))
        let unassociated = CodeTarget.decide(try resolve("https://shop.example/order", [order])) { _, _ in false }
        #expect(unassociated == .failure(.hostNotAssociated(host: "shop.example", clip: clip)))
        #expect("\(CodeTarget.Refusal.hostNotAssociated(host: "shop.example", clip: clip))".contains("clipctl domain add"))
        #expect(CodeTarget.decide(off) { _, _ in true } == .failure(.deactivated(ids: [1])))
        #expect(CodeTarget.Refusal.noMatch("x").isNotFound && !CodeTarget.Refusal.deactivated(ids: [1]).isNotFound)
    }

    @Test func theDefaultExperienceOfAnAssociatedClipGetsACode() throws {
        let fallback = DefaultFallback(
            experience: DefaultExperience(clip: clip, action: .open, localizations: ["en-US": .init(subtitle: "Hi")]), appName: "Shop")
        let decision = CodeTarget.decide(try resolve("https://shop.example/anything", [], fallbacks: [fallback])) { _, _ in false }
        #expect(decision == .success(CodeTarget(url: "https://shop.example/anything", experienceID: nil, clip: clip)))
    }

    @Test func invisibleCharactersAreNamed() {
        #expect(CodeTarget.invisibleCharacterProblem("https://shop.example/a") == nil)
        #expect(CodeTarget.invisibleCharacterProblem("https://shop.example/café") == nil)
        for (text, name) in [("\u{200B}", "U+200B"), ("\u{202E}", "U+202E"), (" ", "U+0020"), ("\u{00A0}", "U+00A0"), ("\u{7}", "U+0007")] {
            #expect(CodeTarget.invisibleCharacterProblem("https://shop.example/a" + text)?.contains(name) == true, "\(name)")
        }
    }
}

struct PrintBundleTests {
    let clip = try! AppID("ABCDE12345.com.shop.app.Clip")

    @Test func filesIndexAndCSVAgree() throws {
        let targets = ["https://shop.example/b", "https://shop.example/a?x=1"].enumerated().map {
            CodeTarget(url: $0.element, experienceID: Int64($0.offset + 1), clip: clip)
        }
        let files = try PrintBundle.files(targets, formats: [.ndef, .svg])
        #expect(files.map(\.path) == files.map(\.path).sorted())
        let index = try JSONParser.parse(try #require(files.first { $0.path == "index.json" }).bytes)
        #expect(index["format"]?.stringValue == "clip-registry-codes")
        let listed = try #require(index["files"]?.arrayValue)
        #expect(listed.count == files.count - 1)
        for entry in listed {
            let file = try #require(files.first { $0.path == entry["path"]?.stringValue })
            #expect(entry["sha256"]?.stringValue == SHA256.hexDigest(file.bytes))
            #expect(entry["bytes"] == .integer(Int64(file.bytes.count)))
        }
        let svg = try #require(listed.first { $0["path"]?.stringValue == "svg/shop.example_b.svg" })
        #expect(svg["qrVersion"] == .integer(2) && svg["ecc"]?.stringValue == "M" && svg["url"]?.stringValue == "https://shop.example/b")
        let ndef = try #require(listed.first { $0["path"]?.stringValue == "ndef/shop.example_b.ndef" })
        #expect(ndef["ntag"]?.stringValue == "NTAG213")
        let csv = String(decoding: try #require(files.first { $0.path == "codes.csv" }).bytes, as: UTF8.self)
        #expect(csv.hasPrefix("SVG File Name,URL\r\nshop.example_a-x-1~"))
        #expect(!files.contains { $0.path.hasPrefix("png/") })
        #expect(try PrintBundle.files(targets.reversed(), formats: [.svg, .ndef]) == files, "order-independent, deterministic")
        #expect(try PrintBundle.files([], formats: [.png]).map(\.path) == ["index.json", "manifest.csv"])
    }

    @Test func theManifestNamesEachCodesPlaceAndFilesMayBeNamedFromLabels() throws {
        let targets = [
            CodeTarget(
                url: "https://ride.example/s/1", experienceID: 1, clip: clip, title: "Ride",
                labels: ["city": "Paris", "station": "PAR 007"]),
            CodeTarget(
                url: "https://ride.example/s/2", experienceID: 2, clip: clip, title: "=cmd|' /C calc'!A0",
                labels: ["city": "Lyon", "station": "LYO001"]),
            CodeTarget(
                url: "https://ride.example/s/3", experienceID: 3, clip: clip, title: "Ride", labels: ["city": "Lyon", "station": "lyo001"]),
        ]
        let files = try PrintBundle.files(targets, formats: [.svg, .ndef], naming: try CodeNameTemplate("{city}/{station}"))
        let manifest = String(decoding: try #require(files.first { $0.path == "manifest.csv" }).bytes, as: UTF8.self)
        let lines = manifest.split(separator: "\r\n").map(String.init)
        #expect(lines[0] == "svg file,ndef file,URL,Experience,Title,label.city,label.station")
        #expect(lines[1] == "svg/paris_par-007.svg,ndef/paris_par-007.ndef,https://ride.example/s/1,1,Ride,Paris,PAR 007")
        // A title a spreadsheet would run is defused; two codes that would share a name each get their URL's digest.
        #expect(lines[2].contains(",'=cmd|' /C calc'!A0,Lyon,LYO001"))
        #expect(lines[2].hasPrefix("svg/lyon_lyo001~") && lines[3].hasPrefix("svg/lyon_lyo001~") && lines[2] != lines[3])
        #expect(files.contains { $0.path == "svg/paris_par-007.svg" })
        // Every code's files are where the manifest says.
        for line in lines.dropFirst() {
            for path in line.split(separator: ",").prefix(2) { #expect(files.contains { $0.path == path }, "\(path)") }
        }
        // A label a code lacks refuses the bundle, naming the URL.
        #expect(throws: PrintBundle.Failure.name(.init(url: "https://ride.example/s/1", field: "zone"))) {
            try PrintBundle.files(targets, formats: [.svg], naming: try CodeNameTemplate("{zone}"))
        }
        for bad in ["plain", "{", "{-x}"] { #expect(throws: ValidationFailure.self, "\(bad)") { try CodeNameTemplate(bad) } }
    }

    @Test func oneCodeTooLongRefusesTheBundle() {
        let long = CodeTarget(url: "https://shop.example/" + String(repeating: "x", count: 3000), experienceID: 1, clip: clip)
        #expect(throws: PrintBundle.Failure.self) { try PrintBundle.files([long], formats: [.svg], ecc: .high) }
    }
}
