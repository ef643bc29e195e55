import Foundation
import Glibc
import Testing

/// Files a user names as input (issue 24): only regular files are read, and a restore that runs
/// out of space says whose disk is full.
struct InputFileTests {
    /// Long enough for any of these commands on a loaded machine; a command that waits for a FIFO's
    /// writer never ends, and is killed at this bound (the test fails with `TimedOut`).
    static let seconds = 60.0

    /// The live database's files, byte for byte.
    static func databaseBytes(_ clipctl: Clipctl) -> [Data?] {
        ["", "-wal"].map { FileManager.default.contents(atPath: clipctl.file("clips.db" + $0)) }
    }

    @Test func aFIFOADeviceOrADirectoryIsRefusedWithoutWaiting() throws {
        let clipctl = try Clipctl()
        try clipctl.registerExampleBusinesses()
        #expect(try clipctl("backup", "good.db").code == 0)
        #expect(mkfifo(clipctl.file("pipe"), 0o600) == 0)
        try FileManager.default.createDirectory(atPath: clipctl.file("folder"), withIntermediateDirectories: false)
        let state = try clipctl.state()
        let bytes = Self.databaseBytes(clipctl)
        let register = ["register", "https://bikesrental.example/new", "--clip", "ABCDE12345.com.example.bikes.Clip", "--title", "T"]
        let cases: [(arguments: [String], says: String)] = [
            (["restore", "pipe"], "backup file pipe is a FIFO (named pipe), not a regular file"),
            (["restore", "/dev/zero"], "backup file /dev/zero is a character device, not a regular file"),
            (["restore", "folder"], "backup file folder is a directory, not a regular file"),
            (["import", "pipe"], "import file pipe is a FIFO (named pipe), not a regular file"),
            (["import", "folder"], "import file folder is a directory, not a regular file"),
            (register + ["--subtitle", "S", "--image", "pipe"], "--image file pipe is a FIFO (named pipe)"),
            (register + ["--subtitle", "S", "--image", "/dev/zero"], "--image file /dev/zero is a character device"),
            (register + ["--subtitle", "S", "--place", "@pipe"], "--place file pipe is a FIFO (named pipe)"),
            (["aasa", "lint", "pipe"], "lint file pipe is a FIFO (named pipe)"),
        ]
        for (arguments, says) in cases {
            let started = Date()
            let r = try clipctl.run(arguments, timeoutSeconds: Self.seconds)
            #expect(r.code == 1 && r.err.contains(says) && r.out.isEmpty, "\(arguments): \(r.code) \(r.err)")
            #expect(Date().timeIntervalSince(started) < 10, "\(arguments) answered at once")
            #expect(Self.databaseBytes(clipctl) == bytes, "\(arguments) changed the database")
        }
        #expect(try clipctl.state() == state)
        // A stream still goes in as standard input.
        let piped = try clipctl.run(["aasa", "lint", "-"], stdin: "{}", timeoutSeconds: Self.seconds)
        #expect(piped.code != 1 || !piped.err.contains("regular file"), "\(piped.err)")
        // A symbolic link to a backup is the backup: followed, and restored.
        #expect(symlink("good.db", clipctl.file("latest.db")) == 0)
        let restored = try clipctl.run(["restore", "latest.db"], timeoutSeconds: Self.seconds)
        #expect(restored.code == 0 && restored.out.hasPrefix("restored clips.db from latest.db"), "\(restored.err)")
        #expect(try clipctl("list").out.split(separator: "\n").count == 5)
    }

    /// Whether this machine lets a test mount a small tmpfs in a mount namespace of its own
    /// (`unshare -rm`: a user namespace makes it work without root where the kernel allows it).
    static let canMountSmallDisks: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = [
            "-rm", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && umount \"$d\"; rc=$?; rmdir \"$d\"; exit $rc",
        ]
        guard (try? ProcessRunner.run(process, timeoutSeconds: 30))?.code == 0 else { return false }
        return true
    }()

    @Test(.enabled(if: canMountSmallDisks, "needs unshare -rm and a tmpfs mount"))
    func aRestoreOntoAFullDiskNamesTheDatabasesDiskAndChangesNothing() throws {
        let clipctl = try Clipctl()
        // A backup of about 2 MB, and a live database of a few hundred KB on a disk of 3 MB: the
        // restore's copies of the backup do not fit beside it.
        let lines = (0..<3000).map {
            #"{"url":"https://big.example/p/\#($0)","clip":"ABCDE12345.com.a.Clip","title":"Title \#($0)","subtitle":"Subtitle \#($0)"}"#
        }
        try clipctl.write("big.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try clipctl("--db", "big.db", "import", "big.ndjson").code == 0)
        #expect(try clipctl("--db", "big.db", "backup", "backup.db").code == 0)
        try FileManager.default.createDirectory(atPath: clipctl.file("disk"), withIntermediateDirectories: false)
        // Everything on the small disk happens inside one mount namespace, which ends with the script.
        let script = """
            set -u
            mount -t tmpfs -o size=3m tmpfs disk || exit 99
            "$CLIPCTL" --db disk/clips.db register https://a.example/x --clip ABCDE12345.com.a.Clip --title T --subtitle S >/dev/null
            before=$(cat disk/clips.db* | sha256sum)
            "$CLIPCTL" --db disk/clips.db restore backup.db
            echo "exit $?"
            after=$(cat disk/clips.db* | sha256sum)
            [ "$before" = "$after" ] && echo "unchanged"
            ls disk
            "$CLIPCTL" --db disk/clips.db list
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "sh", "-c", script]
        process.environment = clipctl.environment.merging(["CLIPCTL": Clipctl.binary.path]) { $1 }
        process.currentDirectoryURL = clipctl.directory
        let r = Clipctl.Result(try ProcessRunner.run(process, timeoutSeconds: 120))
        #expect(r.code == 0, "\(r.err)")
        #expect(
            // The register that made the database says so first.
            r.err.hasPrefix("created disk/clips.db\nclipctl: the disk holding the database disk/clips.db is full (")
                && r.err.contains("nothing was restored"),
            "\(r.err)")
        #expect(!r.err.contains("backup.db"), "the backup is not at fault: \(r.err)")
        #expect(r.out.hasPrefix("exit 1\nunchanged\nclips.db\n"), "no file left beside the database: \(r.out)")
        #expect(r.out.contains("https://a.example/x"), "the database still opens with its content: \(r.out)")
    }
}
