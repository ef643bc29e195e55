import Foundation
import QRCode
import Testing

/// Matrices that segno 1.6.6 made for a fixed handful of URLs (Fixtures/segno-matrices.tsv, written by
/// `scripts/qr-check --write-fixture`), checked without segno: ours must be the same module for module.
@Suite struct SegnoFixtureTests {
    @Test func matricesEqualTheFixture() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/segno-matrices.tsv")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count == 9)
        var versions: Set<Int> = []
        for line in lines {
            let checkCase = try SegnoCase(line)
            let code = try checkCase.encode()
            #expect(code.version == checkCase.segnoVersion && code.mask == checkCase.segnoMask, "case \(checkCase.id)")
            let sameModules = code.matrixText == checkCase.segnoMatrix
            #expect(sameModules, "case \(checkCase.id): \(differingModules(code.matrixText, checkCase.segnoMatrix))")
            versions.insert(code.version)
        }
        #expect(versions.contains(1) && versions.contains(40) && versions.contains { $0 >= 7 && $0 < 40 })
    }
}
