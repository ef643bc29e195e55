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

/// A restore killed with SIGKILL leaves `DB.restoring-XXXXXX` and `DB.restoring-backup-XXXXXX` (and their `-wal`,
/// `-shm`, `-journal`) beside the database (QA: three kills left 321 MB beside a 56 MB database). doctor reports them,
/// the next restore and `serve` remove them, and nothing else: not a link, a FIFO, another name, or the files of a
/// restore running now (held with flock(2)).
@Suite(.serialized) struct RestoreLeftoverTests {
    @Test(arguments: [["restore", "backup.db"], ["serve"]]) func theNextRestoreOrServeRemovesWhatAKilledRestoreLeft(_ command: [String])
        throws
    {
        let c = try Clipctl()
        try c.registerExampleBusinesses()
        #expect(try c("backup", "backup.db").code == 0)
        let stale = [
            "clips.db.restoring-a1B2c3", "clips.db.restoring-a1B2c3-wal", "clips.db.restoring-backup-Zz9Yy8",
            "clips.db.restoring-backup-Zz9Yy8-journal",
        ]
        for name in stale { try c.write(name, String(repeating: "x", count: 4096)) }
        let kept = [
            "clips.db.restoring-abc", "clips.db.restoring-abcdefg", "other.db.restoring-abcdef", "clips.db.restoring-ab_def",
            "clips.db.replaced-2026", "clips.db.restoring-held00",
        ]
        for name in kept { try c.write(name, "not a left-over") }
        try FileManager.default.createSymbolicLink(atPath: c.file("clips.db.restoring-link00"), withDestinationPath: c.file("backup.db"))
        #expect(mkfifo(c.file("clips.db.restoring-fifo00"), 0o600) == 0)
        // A restore running now holds its files: a process holding an flock on one.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [c.file("clips.db.restoring-held00"), "sleep", "60"]
        try holder.run()
        defer { holder.terminate() }
        usleep(300_000)

        let doctor = try c("doctor")
        #expect(
            doctor.out.contains("warning db.restoreLeftovers clips.db: 4 file(s) left beside the database by an interrupted restore"),
            "\(doctor.out)")
        #expect(!doctor.out.contains("held00") && !doctor.out.contains("link00") && !doctor.out.contains("fifo00"), "\(doctor.out)")

        if command == ["serve"] {
            let server = try ServeProcess(c, database: "clips.db")
            _ = server.stop()
            let log = try String(contentsOfFile: c.file("serve-stderr.log"), encoding: .utf8)
            #expect(log.contains("removed 4 file(s) of 16384 bytes left by an interrupted restore"), "\(log)")
        } else {
            let r = try c.run(command)
            #expect(r.code == 0, "\(r.err)")
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: c.directory.path))
        for name in stale { #expect(!names.contains(name), "\(name) is left") }
        for name in kept + ["clips.db.restoring-link00", "clips.db.restoring-fifo00", "backup.db"] {
            #expect(names.contains(name), "\(name) was removed")
        }
        #expect(!(try c("doctor")).out.contains("db.restoreLeftovers"))
    }
}
