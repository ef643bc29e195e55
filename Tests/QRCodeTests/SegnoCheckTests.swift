import Foundation
import QRCode
import Testing

/// The independent check run by scripts/qr-check: with QR_CHECK_CASES naming a file of cases and segno's
/// matrices for them, every case is encoded here and compared module for module; the cases marked for
/// decoding are written as PBM images into QR_CHECK_OUTPUT for zbarimg. Where the penalty rules chose another
/// mask than segno's, the case is listed for the script to have segno draw that mask. Without the variables it
/// does not run.
@Suite struct SegnoCheckTests {
    static let casesPath = ProcessInfo.processInfo.environment["QR_CHECK_CASES"]
    static let outputPath = ProcessInfo.processInfo.environment["QR_CHECK_OUTPUT"]

    @Test(.enabled(if: casesPath != nil && outputPath != nil, "scripts/qr-check sets QR_CHECK_CASES and QR_CHECK_OUTPUT"))
    func matricesEqualSegnos() throws {
        let cases = try String(contentsOfFile: Self.casesPath!, encoding: .utf8).split(separator: "\n")
        let output = URL(fileURLWithPath: Self.outputPath!)
        var equal = 0
        var compared = 0
        var decodeList = ""
        var otherMaskChoices = ""
        var differences: [String] = []
        for line in cases {
            let checkCase = try SegnoCase(line)
            let code = try checkCase.encode()
            if let segnoVersion = checkCase.segnoVersion, let segnoMask = checkCase.segnoMask {
                compared += 1
                if code.version == segnoVersion && code.mask == segnoMask && code.matrixText == checkCase.segnoMatrix {
                    equal += 1
                } else if checkCase.mask == nil && code.version == segnoVersion && code.mask != segnoMask {
                    // The penalty rules chose another mask; the script has segno draw this one to compare.
                    otherMaskChoices +=
                        [
                            checkCase.id, checkCase.hexText, checkCase.mode, String(code.version), checkCase.level.letter,
                            String(code.mask), code.matrixText.replacingOccurrences(of: "\n", with: ","),
                        ].joined(separator: "\t") + "\n"
                } else {
                    differences.append(
                        "case \(checkCase.id) (\(checkCase.mode), version \(checkCase.version.map(String.init) ?? "auto"), "
                            + "\(checkCase.level), mask \(checkCase.mask.map(String.init) ?? "auto")): ours version \(code.version) "
                            + "mask \(code.mask), segno version \(segnoVersion) mask \(segnoMask); modules that differ (x, y): "
                            + differingModules(code.matrixText, checkCase.segnoMatrix))
                }
            }
            if checkCase.decode {
                let image = output.appendingPathComponent("case-\(checkCase.id).pbm")
                try PortableBitmap.encode(code, pixelsPerModule: 3).write(to: image)
                decodeList += "\(image.path)\t\(checkCase.hexText)\n"
            }
        }
        for difference in differences.prefix(20) { Issue.record("matrix differs from segno's: \(difference)") }
        try decodeList.write(to: output.appendingPathComponent("decode.tsv"), atomically: true, encoding: .utf8)
        try otherMaskChoices.write(to: output.appendingPathComponent("other-mask-choices.tsv"), atomically: true, encoding: .utf8)
        try "\(compared) \(equal) \(decodeList.count { $0 == "\n" })\n".write(
            to: output.appendingPathComponent("summary.txt"), atomically: true, encoding: .utf8)
        #expect(differences.isEmpty, "\(differences.count) of \(compared) matrices differ from segno's")
    }
}

/// One line of the cases file: id, text as UTF-8 hex, mode (byte, numeric, alphanumeric or optimal), version
/// or "-", level letter, mask or "-", 1 to decode, segno's version, segno's mask, segno's rows joined by "," (the last three "-" for a case
/// only decoded).
struct SegnoCase {
    let id: String
    let hexText: String
    let text: String
    let mode: String
    let version: Int?
    let level: ErrorCorrectionLevel
    let mask: Int?
    let decode: Bool
    /// Nil for a case only decoded (an optimal segmentation, which segno does not make).
    let segnoVersion: Int?
    let segnoMask: Int?
    let segnoMatrix: String

    struct Malformed: Error { let line: String }

    init(_ line: Substring) throws {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, let bytes = hexBytes(fields[1]), let text = String(validating: bytes, as: UTF8.self),
            let level = ErrorCorrectionLevel.allCases.first(where: { $0.letter == fields[4] })
        else { throw Malformed(line: String(line.prefix(200))) }
        id = fields[0]
        hexText = fields[1]
        self.text = text
        mode = fields[2]
        version = Int(fields[3])
        self.level = level
        mask = Int(fields[5])
        decode = fields[6] == "1"
        segnoVersion = Int(fields[7])
        segnoMask = Int(fields[8])
        segnoMatrix = fields[9].replacingOccurrences(of: ",", with: "\n")
    }

    func encode() throws -> QRCode {
        switch mode {
        case "byte": try QRCode.encode(text, ecc: level, version: version, mask: mask, segmentation: .byte)
        case "numeric": try QRCode.encode(segments: [QRSegment(text, mode: .numeric)], ecc: level, version: version, mask: mask)
        case "alphanumeric":
            try QRCode.encode(segments: [QRSegment(text, mode: .alphanumeric)], ecc: level, version: version, mask: mask)
        default: try QRCode.encode(text, ecc: level, version: version, mask: mask)
        }
    }
}

/// The first few positions where two matrix texts differ, as "(x, y)" pairs.
func differingModules(_ ours: String, _ theirs: String) -> String {
    let ourRows = ours.split(separator: "\n").map(Array.init)
    let theirRows = theirs.split(separator: "\n").map(Array.init)
    guard ourRows.count == theirRows.count else { return "sizes \(ourRows.count) and \(theirRows.count)" }
    var positions: [String] = []
    for (y, row) in ourRows.enumerated() {
        for (x, module) in row.enumerated() where x >= theirRows[y].count || theirRows[y][x] != module { positions.append("(\(x), \(y))") }
    }
    return "\(positions.count): " + positions.prefix(12).joined(separator: " ")
}

func hexBytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(byte)
    }
    return bytes
}

/// A QR code as a binary PBM image (Netpbm P4: rows of bits, 1 black, each row padded to a byte), with the
/// 4-module quiet zone, `pixelsPerModule` pixels to a module.
enum PortableBitmap {
    static func encode(_ code: QRCode, pixelsPerModule: Int) -> Data {
        let modules = code.size + 2 * QRCode.quietZone
        let pixels = modules * pixelsPerModule
        var data = Data("P4\n\(pixels) \(pixels)\n".utf8)
        let rowBytes = (pixels + 7) / 8
        for pixelY in 0..<pixels {
            var row = [UInt8](repeating: 0, count: rowBytes)
            for pixelX in 0..<pixels
            where code[pixelX / pixelsPerModule - QRCode.quietZone, pixelY / pixelsPerModule - QRCode.quietZone] {
                row[pixelX / 8] |= 0x80 >> UInt8(pixelX % 8)
            }
            data.append(contentsOf: row)
        }
        return data
    }
}
