import Foundation
import StrictJSON
import Testing

/// `clipctl code` and `clipctl codes export`, run as a user would: every refusal writes nothing.
@Suite(.serialized) struct CodeProcessTests {
    static let clip = "ABCDE12345.com.shop.app.Clip"

    func registerShop(_ clipctl: Clipctl) throws {
        for url in [
            "https://shop.example/order", "https://shop.example/store/12", "https://shop.example/rent?id=4", "https://shop.example/off",
        ] {
            let r = try clipctl("register", url, "--clip", Self.clip, "--title", "Shop", "--subtitle", "Tap to start")
            try #require(r.code == 0, "\(r.err)")
        }
        try #require(try clipctl("deactivate", "4").code == 0)
    }

    func entries(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func oneCodeToStandardOutputOrAFile() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let svg = try clipctl("code", "1")
        #expect(svg.code == 0, "\(svg.err)")
        #expect(svg.out.hasPrefix("<?xml") && svg.out.contains("<title>https://shop.example/order</title>"))
        #expect(svg.err == "QR code version 2, error correction M, 25×25 modules\n")
        // An id written another way names no experience, as for every command (QA: `code 01` was "not an invocation URL").
        for reference in ["01", "+1", "1.0", "0"] {
            let r = try clipctl("code", reference, "--format", "svg")
            #expect(r.code == 1 && r.err.contains("not found: experience \(reference)"), "\(reference): \(r.err)")
        }
        let hex = try clipctl("code", "https://shop.example/order/7?table=2", "--format", "ndef-hex")
        #expect(hex.code == 0)
        // NDEF record header (MB ME SR, TNF 1), type length 1, payload length, "U", 0x04 for "https://" (RTD-URI), the rest.
        let rest = Data("shop.example/order/7?table=2".utf8)
        #expect(
            hex.out == "D101" + String(format: "%02X", rest.count + 1) + "5504" + rest.map { String(format: "%02X", $0) }.joined() + "\n")
        #expect(hex.err.contains("NTAG213"))
        // --json: one object with the text in it, not the text alone.
        let hexJSON = try clipctl("--json", "code", "https://shop.example/order/7?table=2", "--format", "ndef-hex")
        #expect(hexJSON.code == 0 && hexJSON.err.isEmpty, "\(hexJSON.err)")
        let hexAnswer = try JSONParser.parse(Array(hexJSON.out.utf8))
        #expect(hexAnswer["text"]?.stringValue == hex.out)
        #expect(hexAnswer["ntag"]?.stringValue == "NTAG213")
        #expect(hexAnswer["format"]?.stringValue == "ndef-hex")
        let png = try clipctl("code", "1", "--format", "png", "--size", "30mm", "-o", "order.png")
        #expect(png.code == 0 && png.out.isEmpty, "\(png.err)")
        let bytes = try Data(contentsOf: clipctl.directory.appendingPathComponent("order.png"))
        #expect(bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // Replaced whole: no temporary file stays behind.
        #expect(try clipctl("code", "1", "--format", "png", "-o", "order.png").code == 0)
        #expect(entries(clipctl.directory).filter { $0.contains("partial") } == [])
        let json = try clipctl("--json", "code", "1", "--format", "ndef", "-o", "order.ndef")
        let answer = try JSONParser.parse(Array(json.out.utf8))
        #expect(answer["ntag"] == "NTAG213" && answer["format"] == "ndef")
    }

    @Test func everyRefusalSaysWhyAndWritesNothing() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let before = entries(clipctl.directory)
        let cases: [([String], Int32, String)] = [
            (["code", "https://unknown.example/x", "-o", "x.svg"], 1, "opens no App Clip card"),
            (["code", "https://shop.example/nothing-here", "-o", "x.svg"], 1, "no active experience on shop.example"),
            (["code", "https://shop.example/off", "-o", "x.svg"], 65, "deactivated experience 4"),
            (["code", "4", "-o", "x.svg"], 65, "deactivated"),
            (["code", "99", "-o", "x.svg"], 1, "not found"),
            (["code", "http://shop.example/order", "-o", "x.svg"], 65, "https"),
            (["code", "https://shop.example/order\u{200B}", "-o", "x.svg"], 65, "U+200B"),
            (["code", "https://shop.example/order\u{202E}", "-o", "x.svg"], 65, "U+202E"),
            (["code", "https://shop.example/order/" + String(repeating: "x", count: 1300), "--ecc", "H", "-o", "x.svg"], 65, "version 40"),
            (["code", "1", "--ecc", "Z", "-o", "x.svg"], 64, "--ecc"),
            (["code", "1", "--size", "0", "-o", "x.svg"], 64, "--size"),
            (["code", "1", "--size", "101", "-o", "x.svg"], 64, "--size"),
            (["code", "1", "--size", "9mm", "-o", "x.svg"], 64, "--size"),
            (["code", "1", "--format", "gif", "-o", "x.svg"], 64, "--format"),
            (["code", "1", "--format", "png"], 64, "-o FILE"),
            (["code", "1", "--format", "ndef"], 64, "-o FILE"),
            (["code", "1", "--format", "ndef-hex", "--ecc", "H"], 64, "apply to QR codes"),
            (["code", "1", "-o", "no/such/folder/x.svg"], 1, "does not exist"),
        ]
        for (arguments, code, message) in cases {
            let r = try clipctl.run(arguments)
            #expect(r.code == code, "\(arguments): \(r.err)")
            #expect(r.err.contains(message), "\(arguments): \(r.err)")
            #expect(r.out.isEmpty)
        }
        #expect(entries(clipctl.directory) == before)
    }

    @Test func aSymbolicLinkIsNeverWrittenThrough() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let victim = clipctl.directory.appendingPathComponent("victim.txt")
        try Data("someone's file\n".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(
            atPath: clipctl.directory.appendingPathComponent("code.svg").path, withDestinationPath: victim.path)
        let r = try clipctl("code", "1", "-o", "code.svg")
        #expect(r.code == 1 && r.err.contains("symbolic link"), "\(r.err)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "someone's file\n")
        let dangling = clipctl.directory.appendingPathComponent("dangling.svg")
        try FileManager.default.createSymbolicLink(
            atPath: dangling.path, withDestinationPath: clipctl.directory.appendingPathComponent("made").path)
        #expect(try clipctl("code", "1", "-o", "dangling.svg").code == 1)
        #expect(!FileManager.default.fileExists(atPath: clipctl.directory.appendingPathComponent("made").path))
    }

    /// `clipctl codes ID|URL` names the same files `codes export` writes, with their digests: a sticker is matched
    /// to its experience from either.
    @Test func anExperiencesCodeFilesAreTheExportsOwn() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let listed = try clipctl("codes", "https://shop.example/store/12", "--json")
        #expect(listed.code == 0, "\(listed.err)")
        let files = try JSONParser.parse(Array(listed.out.utf8))["files"]?.arrayValue ?? []
        #expect(try clipctl("codes", "export", "print").code == 0)
        let exported = try DoctorPublishTests.tree(clipctl.directory.appendingPathComponent("print").path)
        #expect(files.count == 3)
        for file in files {
            let path = file["path"]?.stringValue ?? ""
            #expect(exported[path].map { JSONValue.integer(Int64($0.count)) } == file["bytes"], "\(path)")
        }
        let text = try clipctl("codes", "1")
        #expect(text.code == 0 && text.out.contains("  svg/shop.example_order.svg  "), "\(text.out)")
        let missing = try clipctl("codes", "99")
        #expect(missing.code == 1 && missing.err == "clipctl: not found: experience 99\n", "\(missing.err)")
        #expect(try clipctl("codes").code == 64, "an experience is required")
    }

    @Test func anExportIsDeterministicAndReplacesOnlyItsOwnDirectory() throws {
        let clipctl = try Clipctl()
        try registerShop(clipctl)
        let first = try clipctl("codes", "export", "print")
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out.hasPrefix("exported 3 code(s) in svg, png, ndef to "))
        let print = clipctl.directory.appendingPathComponent("print")
        let files = try DoctorPublishTests.tree(print.path)
        #expect(
            files.keys.sorted() == [
                "codes.csv", "index.json", "manifest.csv", "ndef/shop.example_order.ndef",
                "ndef/shop.example_rent-id-4~\(Self.digest("https://shop.example/rent?id=4")).ndef",
                "ndef/shop.example_store_12.ndef", "png/shop.example_order.png",
                "png/shop.example_rent-id-4~\(Self.digest("https://shop.example/rent?id=4")).png", "png/shop.example_store_12.png",
                "svg/shop.example_order.svg", "svg/shop.example_rent-id-4~\(Self.digest("https://shop.example/rent?id=4")).svg",
                "svg/shop.example_store_12.svg",
            ])
        let index = try JSONParser.parse(Array(files["index.json"]!))
        #expect(index["format"] == "clip-registry-codes" && index["codes"] == 3)
        // The same export twice: the second changes nothing, not even the directory.
        let inode = try FileManager.default.attributesOfItem(atPath: print.path)[.systemFileNumber] as? Int
        let second = try clipctl("codes", "export", "print")
        #expect(second.code == 0 && second.out.contains("12 file(s) unchanged") && !second.out.contains("added"), "\(second.out)")
        #expect(try FileManager.default.attributesOfItem(atPath: print.path)[.systemFileNumber] as? Int == inode)
        #expect(try DoctorPublishTests.tree(print.path) == files)
        // A change re-exports: a deactivated experience's files go.
        #expect(try clipctl("deactivate", "1").code == 0)
        let third = try clipctl("codes", "export", "print", "--formats", "svg")
        #expect(third.code == 0 && third.out.contains("removed: png/shop.example_order.png"), "\(third.out)")
        #expect(
            try DoctorPublishTests.tree(print.path).keys.sorted() == [
                "codes.csv", "index.json", "manifest.csv",
                "svg/shop.example_rent-id-4~\(Self.digest("https://shop.example/rent?id=4")).svg",
                "svg/shop.example_store_12.svg",
            ])

        // Someone else's file in DIR: refused, listed, untouched.
        try Data("mine".utf8).write(to: print.appendingPathComponent("notes.txt"))
        let before = try DoctorPublishTests.tree(print.path)
        let refused = try clipctl("codes", "export", "print")
        #expect(refused.code == 65 && refused.err.contains("notes.txt (not listed in index.json)"), "\(refused.err)")
        #expect(try DoctorPublishTests.tree(print.path) == before)
        // A publish directory is not an export, and an export is not a publish directory.
        #expect(try clipctl("publish", "site").code == 0)
        let notOurs = try clipctl("codes", "export", "site")
        #expect(notOurs.code == 65 && notOurs.err.contains("clipctl codes export"), "\(notOurs.err)")
        // DIR holding the database.
        let holding = try clipctl("codes", "export", ".")
        #expect(holding.code == 65 && holding.err.contains("holds the database"), "\(holding.err)")
        #expect(try clipctl("codes", "export", "x", "--formats", "svg,gif").code == 64)
        #expect(try clipctl("codes", "export", "x", "--formats", "ndef-hex").code == 64)
        #expect(try clipctl("--server", "http://127.0.0.1:1", "codes", "export", "x").code == 64)
        #expect(!FileManager.default.fileExists(atPath: clipctl.directory.appendingPathComponent("x").path))
        #expect(entries(clipctl.directory).filter { $0.contains("publishing") } == [])
    }

    @Test func doctorWarnsAboutADenseCodeAndTheCodeSaysItsVersion() throws {
        let clipctl = try Clipctl()
        let long = "https://shop.example/" + String(repeating: "menu/", count: 40) + "today"
        try #require(try clipctl("register", long, "--clip", Self.clip, "--title", "Menu", "--subtitle", "Today").code == 0)
        try #require(try clipctl("default", "set", Self.clip, "--subtitle", "en-US=Shop").code == 0)
        let doctor = try clipctl("doctor")
        #expect(doctor.out.contains("warning qr-version \(long): its QR code needs version 11"), "\(doctor.out)")
        #expect(doctor.out.contains("fix: register a shorter URL"))
        let code = try clipctl("code", "1", "-o", "menu.svg")
        #expect(code.code == 0 && code.err.contains("version 11"), "\(code.err)")
    }

    static func digest(_ url: String) -> String {
        // SHA-256 by /usr/bin/sha256sum: an implementation other than ours.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let pipe = Pipe(), input = Pipe()
        process.standardOutput = pipe
        process.standardInput = input
        try? process.run()
        input.fileHandleForWriting.write(Data(url.utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return String(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(12))
    }
}
