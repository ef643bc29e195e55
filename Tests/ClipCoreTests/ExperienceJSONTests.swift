import StrictJSON
import TestSupport
import Testing
@testable import ClipCore

struct ExperienceJSONTests {
    func decode(_ text: String, base: AdvancedExperience? = nil) throws -> AdvancedExperience {
        try ExperienceJSON.decode(try JSONParser.parse(text), base: base).experience
    }

    func errors(_ text: String) throws -> [String] {
        let json = try JSONParser.parse(text)
        do {
            _ = try ExperienceJSON.decode(json)
            return []
        } catch {
            return error.errors.map { "\($0.field) \($0.rule)" }
        }
    }

    @Test func decodesTheImportFormatWithDefaults() throws {
        let e = try decode(
            #"{"url":"https://Cafe.example/menu/","clip":"ABCDE12345.com.cafe.app.Clip","title":"Café","subtitle":"Order ahead"}"#)
        #expect(e.url.canonical == "https://cafe.example/menu")
        #expect(e.action == .open && e.defaultLanguage == .EN && e.status == .active && !e.isPoweredBy)
        #expect(e.localizations == [.EN: CardText(title: "Café", subtitle: "Order ahead")])
    }

    @Test func reportsEveryProblemAtOnce() throws {
        let found = try errors(
            #"{"url":"http://x.example","clip":"bad","action":"RUN","language":"xx","category":"CAFE","poweredBy":"yes","status":"GONE","title":"1234567890123456789012345678901","subtitle":"","colour":"red","id":3}"#
        )
        #expect(
            Set(found)
                == Set([
                    "url url.scheme", "clip appId.format", "action action.enum", "language language.enum", "category category.enum",
                    "poweredBy type", "status status.enum", "title title.length", "subtitle subtitle.empty", "colour unknown",
                    "id readOnly",
                ]))
    }

    @Test func titleLimitCountsCharactersNotBytes() throws {
        // 30 characters, many more bytes (and family emoji made of several scalars).
        let title = String(repeating: "é", count: 28) + "👨‍👩‍👧‍👦" + "ß"
        #expect(title.count == 30)
        _ = try decode(#"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"\#(title)","subtitle":"s"}"#)
        #expect(
            try errors(#"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"\#(title)x","subtitle":"s"}"#) == [
                "title title.length"
            ])
    }

    @Test func controlCharactersAreRefusedInCardText() throws {
        #expect(
            try errors(#"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"a\nb","subtitle":"s"}"#) == [
                "title title.control"
            ])
    }

    @Test func warnsAboveOlderGuidance() throws {
        let (_, warnings) = try ExperienceJSON.decode(
            try JSONParser.parse(
                #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"A title of 19 chars","subtitle":"s"}"#))
        #expect(warnings.map(\.rule) == ["title.advised"])
    }

    /// An update warns only about the text it sets (docs/rules.md#text-hygiene-and-limits).
    @Test func anUpdateWarnsOnlyAboutTheTextItSets() throws {
        let (base, created) = try ExperienceJSON.decode(
            try JSONParser.parse(
                #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"A title of 21 chars.","subtitle":"s","localizations":{"FR":{"title":"Un titre de 21 signes","subtitle":"s"}}}"#
            ))
        #expect(created.map(\.field) == ["title", "localizations.fr.title"])
        func warnings(_ patch: String) throws -> [String] {
            try ExperienceJSON.decode(try JSONParser.parse(patch), base: base).warnings.map { "\($0.field) \($0.rule)" }
        }
        #expect(try warnings(#"{"subtitle":"Another"}"#) == [])
        #expect(try warnings(#"{"title":"A title of 21 chars."}"#) == [], "the same text again is no change")
        #expect(try warnings(#"{"localizations":{"FR":{"subtitle":"Autre"}}}"#) == [])
        #expect(try warnings(#"{"status":"DEACTIVATED"}"#) == [])
        let long = String(repeating: "s", count: 44)
        #expect(try warnings(#"{"subtitle":"\#(long)"}"#) == ["subtitle subtitle.advised"])
        #expect(try warnings(#"{"title":"Another long title 12"}"#) == ["title title.advised"])
        #expect(
            try warnings(#"{"localizations":{"FR":{"title":"Un autre titre trop long"}}}"#) == ["localizations.fr.title title.advised"])
    }

    @Test func localizationsAndDefaultLanguage() throws {
        let e = try decode(
            #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","language":"FR","title":"Vélo","subtitle":"Louer","localizations":{"EN":{"title":"Bike","subtitle":"Rent"}}}"#
        )
        #expect(e.defaultLanguage == .FR && e.localizations.count == 2)
        // A card for the default language inside `localizations` is refused, not dropped.
        #expect(
            try errors(
                #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"T","subtitle":"S","localizations":{"EN":{"title":"Bike","subtitle":"Rent"}}}"#
            )
                == ["localizations.EN localizations.defaultLanguage"])
        #expect(
            try errors(
                #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","language":"DE","localizations":{"FR":{"title":"Vélo","subtitle":"Louer"}}}"#
            ) == ["title required"])
        #expect(
            try errors(
                #"{"url":"https://a.example","clip":"ABCDE12345.com.a.Clip","title":"t","subtitle":"s","localizations":{"QQ":{"title":"x","subtitle":"y"},"FR":{"title":"x"}}}"#
            )
            .sorted() == ["localizations.FR.subtitle required", "localizations.QQ language.enum"])
    }

    @Test func partialUpdateKeepsAbsentFieldsAndNullClears() throws {
        let base = try decode(
            #"{"url":"https://a.example/x","clip":"ABCDE12345.com.a.Clip","title":"T","subtitle":"S","category":"BIKES"}"#)
        let updated = try decode(#"{"title":"New","category":null}"#, base: base)
        #expect(
            updated.url == base.url && updated.localizations[.EN] == CardText(title: "New", subtitle: "S")
                && updated.businessCategory == nil)
        #expect(try decode("{}", base: base) == base)
    }

    /// Changing one language changes one language (RFC 7396 merge of `localizations`).
    @Test func localizationsMergePerLanguage() throws {
        let base = try decode(
            #"{"url":"https://a.example/x","clip":"ABCDE12345.com.a.Clip","title":"T","subtitle":"S","localizations":{"FR":{"title":"Vélo","subtitle":"Louer"},"DE":{"title":"Rad","subtitle":"Mieten"}}}"#
        )
        let french = try decode(#"{"localizations":{"FR":{"title":"Nouveau","subtitle":"Louer vite"}}}"#, base: base)
        #expect(
            french.localizations == [
                .EN: CardText(title: "T", subtitle: "S"), .FR: CardText(title: "Nouveau", subtitle: "Louer vite"),
                .DE: CardText(title: "Rad", subtitle: "Mieten"),
            ])
        let titleOnly = try decode(#"{"localizations":{"DE":{"title":"Fahrrad"}}}"#, base: base)
        #expect(titleOnly.localizations[.DE] == CardText(title: "Fahrrad", subtitle: "Mieten") && titleOnly.localizations.count == 3)
        let withoutFrench = try decode(#"{"localizations":{"FR":null}}"#, base: base)
        #expect(withoutFrench.localizations.keys.sorted() == [.DE, .EN])
        #expect(try decode(#"{"localizations":null}"#, base: base).localizations.keys.sorted() == [.EN])
        let italian = try decode(#"{"localizations":{"IT":{"title":"Bici","subtitle":"Noleggio"}}}"#, base: base)
        #expect(italian.localizations.count == 4)
        // A new language needs both halves; a half of an existing card cannot be removed alone.
        #expect(throws: ValidationFailure.self) {
            try ExperienceJSON.decode(try JSONParser.parse(#"{"localizations":{"IT":{"title":"Bici"}}}"#), base: base)
        }
        #expect(throws: ValidationFailure.self) {
            try ExperienceJSON.decode(try JSONParser.parse(#"{"localizations":{"FR":{"title":null}}}"#), base: base)
        }
        #expect(throws: ValidationFailure.self) {
            try ExperienceJSON.decode(try JSONParser.parse(#"{"localizations":{"EN":{"title":"x","subtitle":"y"}}}"#), base: base)
        }
    }

    @Test func placeValidation() throws {
        func placeErrors(_ place: String) throws -> [String] {
            PlaceValidator.validate(try JSONParser.parse(place), field: "place").map { "\($0.field) \($0.rule)" }
        }
        #expect(
            try placeErrors(
                #"{"names":["Bright Egg"],"mainAddress":{"fullAddress":"1 Infinite Loop"},"mapAction":"RESTAURANT_ORDER_FOOD","relationship":"OWNER","phoneNumber":{"number":"+1","type":"LANDLINE","intent":"Help"},"homePage":"https://a.example","categories":["cafe"]}"#
            ) == [])
        #expect(try placeErrors(#"{"displayPoint":{"coordinates":{"latitude":37.3,"longitude":-122.0},"source":"CALCULATED"}}"#) == [])
        #expect(
            try Set(
                placeErrors(
                    #"{"displayPoint":{"coordinates":{"latitude":91,"longitude":-181}},"mapAction":"FLY","relationship":"X","names":[],"extra":1}"#
                ))
                == Set([
                    "place.displayPoint.coordinates.latitude place.latitude", "place.displayPoint.coordinates.longitude place.longitude",
                    "place.mapAction place.mapAction.enum", "place.relationship place.relationship.enum", "place.names place.names",
                    "place.extra unknown",
                ]))
        #expect(try placeErrors(#"{"names":["x"]}"#) == ["place.mainAddress place.location"])
    }

    @Test func portableFormRoundTrips() throws {
        let text =
            #"{"url":"https://a.example/x?b=2&a=1","clip":"ABCDE12345.com.a.Clip","action":"PLAY","language":"FR","title":"T","subtitle":"S","category":"MUSIC","poweredBy":true,"status":"DEACTIVATED","localizations":{"EN":{"title":"E","subtitle":"F"}},"place":{"names":["P"],"mainAddress":{"fullAddress":"A"}}}"#
        let e = try decode(text)
        let again = try decode(JSONWriter.string(ExperienceJSON.portable(e)))
        #expect(again == e)
        #expect(JSONWriter.string(ExperienceJSON.portable(e)).hasPrefix(#"{"url":"https://a.example/x?a=1&b=2","clip""#))
    }
}

struct HeaderImageTests {
    /// A complete `width`×`height` PNG (its IDAT holds every scanline, deflated).
    static func png(width: Int, height: Int, colorType: UInt8, tRNS: Bool = false) -> [UInt8] {
        TestImages.png(width: width, height: height, colorType: colorType, tRNS: tRNS)
    }

    static func jpeg(width: Int, height: Int, components: Int = 1) -> [UInt8] {
        TestImages.jpeg(width: width, height: height, components: components)
    }

    /// A 30×20 PNG whose zlib header is replaced.
    static func png(zlibHeader: [UInt8]) -> [UInt8] {
        let zlib = TestImages.zlibRuns(TestImages.greyRuns(width: 30, height: 20, channels: 3))
        return TestImages.png(width: 30, height: 20, zlib: zlibHeader + zlib.dropFirst(2))
    }

    @Test func acceptsOpaquePNGAndJPEGAt3by2() throws {
        let png = try HeaderImage(bytes: Self.png(width: 1800, height: 1200, colorType: 2))
        #expect(png.mediaType == .png && png.isAppleSize && png.sha256.count == 64)
        let small = try HeaderImage(bytes: TestImages.png(width: 30, height: 20))
        #expect(small.width == 30 && small.height == 20 && !small.isAppleSize)
        #expect(try HeaderImage(bytes: TestImages.png(width: 9_999, height: 6_666)).width == 9_999, "at the cap")
        let jpeg = try HeaderImage(bytes: Self.jpeg(width: 3000, height: 2000))
        #expect(jpeg.mediaType == .jpeg && jpeg.width == 3000 && !jpeg.isAppleSize)
        #expect(try HeaderImage(bytes: Self.jpeg(width: 3000, height: 2000, components: 3)).mediaType == .jpeg, "YCbCr or RGB")
        // Stored (uncompressed) blocks, and a zlib header split over two IDAT chunks, are fine.
        var raw: [UInt8] = []
        for _ in 0..<20 { raw += [0] + [UInt8](repeating: 0x40, count: 90) }
        #expect(try HeaderImage(bytes: TestImages.png(width: 30, height: 20, zlib: TestImages.zlibStored(raw))).width == 30)
        #expect(try HeaderImage(bytes: TestImages.png(width: 30, height: 20, idatChunk: 1)).width == 30)
        #expect(try HeaderImage(bytes: Self.png(zlibHeader: [0x78, 0xDA])).width == 30, "FLEVEL 3, as zlib's best compression writes")
    }

    @Test(arguments: [
        (png(width: 30, height: 20, colorType: 6), "image.alpha"),
        // The image data itself, not only the first bytes.
        (TestImages.png(width: 30, height: 20, idat: false), "image.format"),
        (TestImages.png(width: 30, height: 20, iend: false), "image.format"),
        (TestImages.png(width: 30, height: 20, badCRC: true), "image.format"),
        (TestImages.png(width: 30, height: 20, trailing: [0]), "image.format"),
        // The IHDR lies here, about sizes checked before the data.
        (TestImages.png(width: 3, height: 2, ihdrWidth: 3_000_000_000, ihdrHeight: 2_000_000_000), "image.format"),
        (TestImages.png(width: 3, height: 2, ihdrWidth: 30_000, ihdrHeight: 20_000), "image.dimensions"),
        (TestImages.jpeg(width: 15_000, height: 10_000), "image.dimensions"),
        (TestImages.jpeg(width: 30, height: 20, sos: false), "image.format"),
        (TestImages.jpeg(width: 30, height: 20, eoi: false), "image.format"),
        (TestImages.jpeg(width: 30, height: 0), "image.format"),
        (Array(TestImages.jpeg(width: 30, height: 20).prefix(12)), "image.format"),
        (png(width: 1800, height: 1200, colorType: 2, tRNS: true), "image.alpha"),
        (png(width: 1200, height: 1200, colorType: 2), "image.aspect"),
        (jpeg(width: 1000, height: 1000), "image.aspect"),
        (Array("GIF89a....".utf8), "image.format"),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], "image.format"),
        // Hostile QA, gap 2: an APNG, CMYK/YCCK and other component counts, a frame header whose
        // length disagrees with its component count, and zlib headers that are not deflate's.
        (TestImages.png(width: 30, height: 20, acTL: true), "image.animated"),
        (jpeg(width: 30, height: 20, components: 4), "image.color"),
        (jpeg(width: 30, height: 20, components: 2), "image.color"),
        // Nf 1, Lf 17:
        (Array(jpeg(width: 30, height: 20, components: 3).enumerated().map { $0.offset == 17 ? 1 : $0.element }), "image.format"),
        (png(zlibHeader: [0x78, 0x02]), "image.format"),  // FCHECK wrong: 0x7802 is not a multiple of 31
        (png(zlibHeader: [0x77, 0x85]), "image.format"),  // CM 7 (0x7785 = 31 × 987)
        (png(zlibHeader: [0x88, 0x1C]), "image.format"),  // CINFO 8: a 64 KiB window (0x881C = 31 × 1,124)
        (png(zlibHeader: [0x78, 0x3F]), "image.format"),  // FDICT set (0x783F = 31 × 993)
        (png(zlibHeader: [0x00, 0x00]), "image.format"),  // not zlib at all, though 0 is a multiple of 31
        (TestImages.png(width: 30, height: 20, zlib: [0x78]), "image.format"),  // no room for a header
    ])
    func refuses(_ bytes: [UInt8], _ rule: String) {
        #expect { try HeaderImage(bytes: bytes) } throws: { ($0 as? ValidationFailure)?.errors.first?.rule == rule }
    }

    /// Hostile QA, gap 2: a declared size the compressed data cannot hold. Deflate expands at
    /// most 1,032:1, so 9999×6666 RGB (199,966,668 bytes of scanlines) needs at least 193,767
    /// bytes of deflate data.
    @Test func refusesImageDataTooSmallForTheDeclaredSize() throws {
        let header: [UInt8] = [0x78, 0x01]
        let tiny = TestImages.png(width: 9_999, height: 6_666, zlib: header + [UInt8](repeating: 0, count: 98))
        #expect { try HeaderImage(bytes: tiny) } throws: { error in
            let e = (error as? ValidationFailure)?.errors.first
            return e?.rule == "image.format" && e?.message.contains("199966668 bytes of scanlines") == true
                && e?.message.contains("1032:1") == true
        }
        // What the registry's tests used to build: one 3×2 image's data under an 1800×1200 IHDR.
        #expect(throws: ValidationFailure.self) {
            try HeaderImage(bytes: TestImages.png(width: 3, height: 2, ihdrWidth: 1800, ihdrHeight: 1200))
        }
        // The bound is exact: the real stream minus a few bytes of slack is still accepted, and
        // one byte under the bound is not.
        let raw = 199_966_668, needed = (raw + 1031) / 1032 + 6
        let real = TestImages.zlibRuns(TestImages.greyRuns(width: 9_999, height: 6_666, channels: 3))
        #expect(real.count >= needed)
        let atBound = header + [UInt8](repeating: 0, count: needed - 2)
        #expect(
            try HeaderImage(bytes: TestImages.png(width: 9_999, height: 6_666, zlib: atBound)).width == 9_999,
            "the check counts bytes; it does not decode")
        #expect(throws: ValidationFailure.self) {
            try HeaderImage(bytes: TestImages.png(width: 9_999, height: 6_666, zlib: Array(atBound.dropLast())))
        }
    }

    /// ISO/IEC 15948 §7.2 and §8.2, worked by hand.
    @Test func rawSizeOfScanlines() {
        func raw(_ w: Int, _ h: Int, depth: Int = 8, colorType: UInt8 = 2, interlaced: Bool = false) -> Int {
            HeaderImage.PNGData(bitDepth: depth, colorType: colorType, interlaced: interlaced, idatBytes: 0).rawSize(width: w, height: h)
        }
        #expect(raw(30, 20) == (30 * 3 + 1) * 20)
        #expect(raw(30, 20, colorType: 6) == (30 * 4 + 1) * 20)
        #expect(raw(30, 20, depth: 16, colorType: 6) == (30 * 8 + 1) * 20)
        #expect(raw(10, 1, depth: 1, colorType: 0) == 3, "10 one-bit pixels: 2 bytes and the filter byte")
        #expect(raw(3, 2, depth: 4, colorType: 3) == 3 * 2, "palette, 4 bits: 12 bits round up to 2 bytes")
        #expect(raw(8, 8, interlaced: true) == 4 + 4 + 7 + 14 + 26 + 52 + 100, "Adam7: 1×1, 1×1, 2×1, 2×2, 4×2, 4×4, 8×4")
        #expect(raw(1, 1, interlaced: true) == 4, "only the first pass has a pixel")
    }
}

/// `ExperienceJSON.leavesUnchanged`, a sync's quick test: whenever it says a row leaves an experience as it is,
/// decoding the row over it gives it back; where it cannot tell, it says false.
struct UnchangedRowTests {
    let stored: AdvancedExperience = try! ExperienceJSON.decode(
        try! JSONParser.parse(
            #"{"url":"https://ride.example/s/st1","clip":"ABCDE12345.com.ride.app.Clip","title":"Ride now","subtitle":"Tap","category":"BIKES","localizations":{"fr":{"title":"Roulez","subtitle":"Touchez"}},"labels":{"city":"paris","station":"st1"}}"#
        )
    ).experience

    @Test(arguments: [
        (#"{"url":"https://ride.example/s/st1","subtitle":"Tap","category":"BIKES"}"#, true),
        (#"{"url":"https://ride.example/s/st1","labels":{"city":"paris"}}"#, true),
        (#"{"labels":{"zone":null,"city":"paris"}}"#, true),
        (#"{"subtitle":"Tap to ride"}"#, false),
        (#"{"labels":{"city":"lyon"}}"#, false),
        (#"{"labels":{"city":null}}"#, false),
        (#"{"labels":null}"#, false),
        (#"{"labels":{"City":"paris"}}"#, false),
        (#"{"category":null}"#, false),
        (#"{"category":"bikes"}"#, false),
        (#"{"status":"ACTIVE"}"#, false),
        (#"{"localizations":{"fr":{"title":"Roulez","subtitle":"Touchez"}}}"#, true),
        (#"{"localizations":{}}"#, false),
        (#"{"url":"https://RIDE.example/s/st1"}"#, false),
    ])
    func aRowIsPlainlyUnchangedOnlyWhenDecodingItChangesNothing(_ row: String, _ plainly: Bool) throws {
        let object = try JSONParser.parse(row)
        #expect(ExperienceJSON.leavesUnchanged(stored, with: object) == plainly, "\(row)")
        if plainly { #expect(try ExperienceJSON.decode(object, base: stored).experience == stored, "\(row)") }
    }

    @Test func anExperiencesOwnPortableFormLeavesItUnchanged() throws {
        #expect(ExperienceJSON.leavesUnchanged(stored, with: ExperienceJSON.portable(stored)))
    }
}
