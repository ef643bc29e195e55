import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing

/// A publish or codes export killed with SIGKILL leaves its staging folder `.NAME.publishing-XXXXXX`
/// beside DIR; the next one removes such folders, and nothing else.
@Suite(.serialized) struct StaleStagingTests {
    @Test(arguments: [["publish"], ["codes", "export"]]) func theNextRunRemovesStaleStagingFoldersOnly(_ command: [String]) throws {
        let c = try Clipctl()
        try c.registerExampleBusinesses()
        let fm = FileManager.default
        func folder(_ name: String, file: String? = "partial.html") throws {
            try fm.createDirectory(atPath: c.file(name), withIntermediateDirectories: true)
            if let file { try c.write("\(name)/\(file)", "left by a killed run") }
        }
        // Stale: the killed runs' folders (one with a nested tree, one empty).
        try folder(".site.publishing-a1B2c3")
        try fm.createDirectory(atPath: c.file(".site.publishing-Zz9Yy8/h.example/banners"), withIntermediateDirectories: true)
        try folder(".site.publishing-000000", file: nil)
        // Not ours: other names, other lengths, other characters, a file, a link to someone's folder.
        let kept = [
            ".site.publishing-abc", ".site.publishing-abcdefg", ".site.publishing-ab_def", ".other.publishing-abcdef",
            "site.publishing-abcdef", ".site.publishing-abcde\u{200B}", ".site.Publishing-abcdef",
        ]
        for name in kept { try folder(name) }
        try c.write(".site.publishing-file00", "a file, not a folder")
        try folder("someone")
        try fm.createSymbolicLink(atPath: c.file(".site.publishing-link00"), withDestinationPath: c.file("someone"))
        // Held: a run still working (its flock on the folder).
        try folder(".site.publishing-held00")
        let held = open(c.file(".site.publishing-held00"), O_RDONLY | O_DIRECTORY)
        try #require(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }

        let r = try c.run(command + ["site"])
        #expect(r.code == 0, "\(r.err)")
        let names = Set(try fm.contentsOfDirectory(atPath: c.directory.path))
        for stale in [".site.publishing-a1B2c3", ".site.publishing-Zz9Yy8", ".site.publishing-000000"] {
            #expect(!names.contains(stale), "\(stale) removed")
        }
        for name in kept + [".site.publishing-file00", ".site.publishing-link00", ".site.publishing-held00", "someone"] {
            #expect(names.contains(name), "\(name) kept")
        }
        #expect(try c.read("someone/partial.html") == "left by a killed run", "a link's target is never entered")
        #expect(try c.read(".site.publishing-held00/partial.html") == "left by a killed run")
        #expect(names.filter { $0.hasPrefix(".site.publishing-") }.count == 7, "no staging folder of this run left: \(names.sorted())")
        // Nothing to change: the stale folders still go.
        try folder(".site.publishing-again0")
        #expect(try c.run(command + ["site"]).code == 0)
        #expect(!(try fm.contentsOfDirectory(atPath: c.directory.path)).contains(".site.publishing-again0"))
    }
}
