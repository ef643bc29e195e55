public import ClipCore
import FileFormats
import Foundation
import Locking

/// The tz database as the system installs it (Debian's `tzdata`: `/usr/share/zoneinfo`), read once a
/// zone (`TimeZoneRules`) and kept. A name is a path under the directory made of the tz database's
/// characters alone (its Theory file, "Names of timezones"): no `..`, no leading `/`, nothing else.
public enum SystemTimeZones {
    public static let directory = "/usr/share/zoneinfo"
    /// A TZif file is a few KiB; anything larger is not one.
    static let largestFile = 1 << 20
    private static let cache = Locked<[String: TimeZoneRules]>([:])

    public static let lookup: ZoneLookup = { name in rules(name, in: directory) }

    /// Files of the zoneinfo directory that are not zones of the tz database: the machine's own zone (which would make
    /// a time mean what the host is set to), the POSIX default rules, and the leap-second variants under `right/`.
    static let notZones: Set<String> = ["localtime", "posixrules", "Factory"]

    static func isZoneName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return name.utf8.count <= 64 && !parts.isEmpty && !notZones.contains(name) && parts.first != "right"
            && parts.allSatisfy { part in
                !part.isEmpty && part != "." && part != ".." && part.first != "-"
                    && part.utf8.allSatisfy { b in
                        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D
                            || b == 0x2B
                    }
            }
    }

    /// The zone `name` under `directory`, when it names a regular TZif file there (a symbolic link the tz database
    /// installs for an old name is followed; a FIFO or a directory is not read).
    static func rules(_ name: String, in directory: String) -> TimeZoneRules? {
        guard isZoneName(name) else { return nil }
        if let known = cache.withLock({ $0["\(directory)/\(name)"] }) { return known }
        // The tz database links old names to new ones (`UTC` → `Etc/UTC`); the target must stay inside the directory.
        let path = URL(fileURLWithPath: "\(directory)/\(name)").resolvingSymlinksInPath().path
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard path.hasPrefix(root + "/"), let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int, size <= largestFile,
            let data = FileManager.default.contents(atPath: path), let parsed = try? TimeZoneRules(tzif: Array(data))
        else { return nil }
        cache.withLock { $0["\(directory)/\(name)"] = parsed }
        return parsed
    }
}
