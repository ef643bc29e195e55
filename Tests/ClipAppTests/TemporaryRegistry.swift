import ClipApp
import ClipStore
import Foundation
import HTTP1

/// A registry on a new database file in a folder of its own, for one test.
func temporaryRegistry() throws -> Registry {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("clipapp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return try Registry(path: dir.appendingPathComponent("clips.db").path, actor: "test")
}

extension EntityTagList {
    /// `text` as a request's `If-Match` or `If-None-Match` sends it, read as the API reads it
    /// (`HTTPHeaders.entityTagCondition`); nil for nil.
    static func sent(_ text: String?) -> EntityTagList? {
        guard let text, let condition = HTTPHeaders([("If-Match", text)]).entityTagCondition("If-Match") else { return nil }
        switch condition {
        case .any: return EntityTagList(text: text, condition: .any)
        case .tags(let tags):
            return EntityTagList(text: text, condition: .tags(tags.map { Tag(opaque: String($0.opaque), isWeak: $0.isWeak) }))
        }
    }
}
