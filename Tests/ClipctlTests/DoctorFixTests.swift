import Foundation
import StrictJSON
import Testing

/// doctor's fixes are commands that work when pasted into a shell: quoted, and
/// filled with the text as it is now, so running one unchanged changes nothing.
@Suite(.serialized) struct DoctorFixTests {
    @Test func everyCommandFixRunsAsPastedIntoAShell() throws {
        let clipctl = try Clipctl()
        let register = try clipctl(
            "register", "https://bikes.example/rent", "--clip", "ABCDE12345.com.bikes.app.Clip",
            "--title", "Bob's Bikes & Rentals $HOME", "--subtitle", "Unlock a bike in seconds; no app `needed` at all!",
            "--localization", "FR=L'atelier de vélos de Bob (*)|Louez un vélo",
            "--localization", "DE=Rad|Mieten")
        #expect(register.code == 0, "\(register.err)")
        #expect(
            try clipctl(
                "register", "https://bikes.example/return", "--clip", "ABCDE12345.com.bikes.app.Clip", "--title", "Return", "--subtitle",
                "Here"
            ).code == 0)
        let before = try clipctl.state()
        let report = try JSONParser.parse(Array(try clipctl("doctor", "--json").out.utf8))
        let fixes = (report["findings"]?.arrayValue ?? []).filter {
            ["title-length", "subtitle-length"].contains($0["code"]?.stringValue ?? "")
        }.compactMap { $0["fix"]?.stringValue }
        #expect(fixes.count == 3, "\(fixes)")  // the EN title and subtitle, the FR title
        for fix in fixes {
            #expect(fix.hasPrefix("clipctl update 1 "), "\(fix)")
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", fix]
            shell.environment = clipctl.environment.merging(["PATH": Clipctl.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"]) {
                $1
            }
            shell.currentDirectoryURL = clipctl.directory
            shell.standardOutput = FileHandle.nullDevice
            try shell.run()
            shell.waitUntilExit()
            #expect(shell.terminationStatus == 0, "\(fix)")
        }
        // The text went through the shell unchanged, so nothing changed (no version, no record).
        #expect(try clipctl.state() == before)
        // The localization-set fix names each experience that lacks the language, quoted.
        let lacking = (report["findings"]?.arrayValue ?? []).first { $0["code"] == "localization-set" }?["fix"]?.stringValue ?? ""
        #expect(lacking.contains("clipctl update https://bikes.example/return --localization 'de=TITLE|SUBTITLE'"), "\(lacking)")
    }
}
