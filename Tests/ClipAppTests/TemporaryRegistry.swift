import ClipStore
import Foundation

/// A registry on a new database file in a folder of its own, for one test.
func temporaryRegistry() throws -> Registry {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipapp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return try Registry(path: dir.appendingPathComponent("clips.db").path, actor: "test")
}
