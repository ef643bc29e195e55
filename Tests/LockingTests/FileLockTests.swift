import Foundation
import Locking
import Testing

struct FileLockTests {
    @Test func aSecondHolderIsRefusedUntilTheFirstLetsGo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)").path
        var first = try FileLock(path: path)
        #expect(first != nil)
        #expect(try FileLock(path: path) == nil, "held by another open file description, even in this process")
        first = nil
        #expect(try FileLock(path: path) != nil)
    }

    @Test func aLockThatCannotBeMadeSaysWhy() {
        #expect(throws: FileLockError.self) { try FileLock(path: "/nonexistent-directory/x.lock") }
        // A symlink is not followed onto someone else's file.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let target = directory.appendingPathComponent("theirs").path
        _ = FileManager.default.createFile(atPath: target, contents: Data("theirs".utf8))
        try? FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("x.lock").path, withDestinationPath: target)
        #expect(throws: FileLockError.self) { try FileLock(path: directory.appendingPathComponent("x.lock").path) }
        #expect(FileManager.default.contents(atPath: target) == Data("theirs".utf8))
    }
}
