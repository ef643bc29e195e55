import Foundation
import Testing
@testable import FuzzTargets

/// Replays every file of Fuzz/corpus/<target>/ (seeds and regression inputs) through its fuzz
/// target, so that a property broken by a past crash stays fixed.
struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    @Test(arguments: FuzzTargets.names)
    func replaysTheCorpus(_ target: String) throws {
        let directory = Self.corpus.appendingPathComponent(target)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count >= 4, "every target has a seed corpus")
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            bytes.withUnsafeBytes { FuzzTargets.run(target, $0) }
        }
    }
}
