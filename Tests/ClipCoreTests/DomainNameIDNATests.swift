import Foundation
import StrictJSON
import Testing
@testable import ClipCore

/// Hosts map to ASCII as UTS #46 does for the common cases.
struct DomainNameIDNATests {
    @Test(arguments: [
        ("ｓｈｏｐ.example", "shop.example"),
        ("ＳＨＯＰ.ＥＸＡＭＰＬＥ", "shop.example"),
        ("shop。example", "shop.example"),
        ("shop．example", "shop.example"),
        ("shop｡example", "shop.example"),
        ("ﬁsh.example", "fish.example"),
        ("Bücher.example", "xn--bcher-kva.example"),
        ("ｂüｃｈｅｒ.example", "xn--bcher-kva.example"),
        ("faß.example", "xn--fa-hia.example"),
        ("shop\u{00AD}.example", "shop.example"),
    ])
    func mapsToASCII(_ input: String, _ expected: String) throws {
        #expect(try DomainName.normalize(input) == expected)
    }

    @Test func fullWidthURLsNormalizeToTheRegisteredOne() throws {
        #expect(try NormalizedURL("https://ｓｈｏｐ．ｅｘａｍｐｌｅ/rent").canonical == "https://shop.example/rent")
    }

    @Test(arguments: [
        "shop\u{202E}.example", "sh op.example", "shop☃.example", "\u{0301}x.example", "a\u{200D}b.example", "xn--ls8h.example",
        "ab--c\u{00E9}.example", "shop.１２３",
    ])
    func refusesWhatUTS46Disallows(_ input: String) {
        #expect(throws: DomainName.Problem.self) { try DomainName.normalize(input) }
    }

    /// The vendored WPT cases (Fixtures/idna), scored: our answer is the WPT output passed through
    /// our stricter host rules, or a refusal when either refuses.
    @Test func agreementWithTheVendoredUTS46Cases() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/idna/hosts.json")
        let cases = try JSONParser.parse(Array(try Data(contentsOf: url))).arrayValue ?? []
        var agree = 0, mismatches: [String] = []
        for c in cases {
            guard let input = c["input"]?.stringValue else { continue }
            let expected = c["output"]?.stringValue.flatMap { try? DomainName.normalize($0) }
            let ours = try? DomainName.normalize(input)
            if ours == expected {
                agree += 1
            } else {
                mismatches.append(
                    "\(input.unicodeScalars.map { String($0.value, radix: 16) }) → \(ours ?? "refused"), expected \(expected ?? "refused")")
            }
        }
        print("UTS #46 host cases: \(agree)/\(cases.count) agree")
        for m in mismatches.prefix(15) { print("  \(m)") }
        #expect(cases.count == 1_731)
        #expect(
            agree >= DomainNameIDNATests.measuredAgreement, "agreement fell below the measured \(DomainNameIDNATests.measuredAgreement)")
    }

    static let measuredAgreement = 1_731
}
