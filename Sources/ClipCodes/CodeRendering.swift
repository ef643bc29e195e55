public import FileFormats
public import QRCode

/// The file formats a code is made in.
public enum CodeFormat: String, Sendable, CaseIterable {
    /// A QR code as SVG 1.1.
    case svg
    /// A QR code as a 1-bit PNG.
    case png
    /// An NDEF message of one URI record, for an NFC tag (NFC Forum NDEF 1.0, RTD-URI 1.0).
    case ndef
    /// The same NDEF message in hexadecimal, for tag-writing tools that take text.
    case ndefHex = "ndef-hex"

    /// The file name extension.
    public var fileExtension: String {
        switch self {
        case .svg: "svg"
        case .png: "png"
        case .ndef: "ndef"
        case .ndefHex: "txt"
        }
    }

    /// The media type answered over HTTP. image/svg+xml (W3C SVG 1.1, Appendix P) and image/png (the PNG
    /// specification's media type) are registered with IANA; no media type is registered for an NDEF
    /// message, so its bytes are application/octet-stream (RFC 2046 §4.5.1).
    public var mediaType: String {
        switch self {
        case .svg: "image/svg+xml"
        case .png: "image/png"
        case .ndef: "application/octet-stream"
        case .ndefHex: "text/plain; charset=utf-8"
        }
    }

    /// Bytes rather than text: not for a terminal.
    public var isBinary: Bool { self == .png || self == .ndef }

    public var isQRCode: Bool { self == .svg || self == .png }
    /// Error correction and size shape a QR code's modules; an NDEF message has none, so asking for them with it
    /// is a mistake to report, not to ignore.
    public static let qrOptionsRule = "ecc and size apply to QR codes (svg, png), not to NFC tags (ndef)"
}

/// How big a QR code is drawn.
public enum CodeSize: Sendable, Equatable {
    /// Each module this many pixels (SVG: CSS pixels; PNG: image pixels).
    case pixelsPerModule(Int)
    /// The whole symbol, quiet zone included, this many millimetres wide, for print.
    case millimetres(Double)

    /// The default: 8 pixels a module (a version 3 code is 296 pixels wide with its quiet zone).
    public static let standard = CodeSize.pixelsPerModule(8)
    /// The resolution a print-size PNG is rendered at and says it is (pHYs), in dots per inch.
    public static let printDotsPerInch = 300
    /// Pixels a module: at most 100 (a version 40 code would be 18,500 pixels wide, past `PNGEncoder.maxDimension`).
    public static let pixelRange = 1...100
    /// Millimetres: our limits, 10 (smaller is hard for a phone's camera to focus on) to 1,000 (a poster).
    public static let millimetreRange = 10.0...1000.0

    /// "8" (pixels a module) or "30mm" (the whole symbol); nil when neither, or out of range.
    public static func parse(_ text: String) -> CodeSize? {
        if text.hasSuffix("mm") {
            let number = text.dropLast(2)
            guard isPlainDecimal(number), let value = Double(number), millimetreRange.contains(value) else { return nil }
            return .millimetres(value)
        }
        guard let value = Int(text), pixelRange.contains(value), String(value) == text else { return nil }
        return .pixelsPerModule(value)
    }

    /// Digits with at most one "." between digits: what a person writes for a width. `Double` alone
    /// would also take "1e3", "0x1p4", "+30" and "nan".
    static func isPlainDecimal(_ text: Substring) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        return parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
    }

    /// The text `parse` reads back.
    public var text: String {
        switch self {
        case .pixelsPerModule(let pixels): "\(pixels)"
        case .millimetres(let millimetres): "\(millimetres)mm"
        }
    }

    public static let rule = "a whole number of pixels a module from 1 to 100, or the printed width in millimetres from 10mm to 1000mm"

    /// What anyone may ask a PNG for without a token (`GET /v1/codes`): screen sizes, up to 16 pixels a module or
    /// 200 mm. A poster-size PNG is seconds of work; it is for a token's routes and `clipctl code`.
    public var isPublic: Bool {
        switch self {
        case .pixelsPerModule(let pixels): pixels <= 16
        case .millimetres(let millimetres): millimetres <= 200
        }
    }

    public static let publicRule = "without a token, a PNG is at most 16 pixels a module or 200mm"
}

extension ErrorCorrectionLevel {
    /// "L", "M", "Q" or "H" (either case); nil otherwise.
    public static func parse(_ letter: String) -> ErrorCorrectionLevel? {
        allCases.first { $0.letter == letter.uppercased() }
    }
}

/// A code's bytes and what a print shop or tag writer needs to know about them.
public struct RenderedCode: Sendable {
    public let format: CodeFormat
    public let bytes: [UInt8]
    /// The QR symbol's version and level, for SVG and PNG.
    public let qrVersion: Int?
    public let errorCorrection: ErrorCorrectionLevel?
    /// The smallest NTAG21x that holds the NDEF message (its Type 2 TLV); nil for a QR code, or when none does.
    public let ntag: NTAG?
}

/// Why a code could not be drawn.
public enum CodeRenderingError: Error, Sendable, Equatable, CustomStringConvertible {
    case qrCode(QRCodeError)
    case png(PNGError)
    case ndef(NDEFError)
    /// A print size too small for the symbol at 300 dpi (less than one pixel a module).
    case tooSmallForPrint(millimetres: Double, modules: Int)

    public var description: String {
        switch self {
        case .qrCode(let error): error.description
        case .png(let error): error.description
        case .ndef(let error): error.description
        case .tooSmallForPrint(let millimetres, let modules):
            "\(millimetres) mm is less than one pixel a module at \(CodeSize.printDotsPerInch) dpi for a symbol of \(modules) modules"
        }
    }
}

/// Draws a URL as a QR code (ISO/IEC 18004:2015) or writes it as an NDEF URI record (NFC Forum RTD-URI).
/// The same input gives the same bytes.
public enum CodeRenderer {
    public static func render(
        _ url: String, format: CodeFormat, ecc: ErrorCorrectionLevel = .medium, size: CodeSize = .standard
    ) throws(CodeRenderingError) -> RenderedCode {
        switch format {
        case .svg, .png:
            let symbol: QRCode
            do { symbol = try QRCode.encode(url, ecc: ecc) } catch { throw .qrCode(error) }
            let bytes = format == .svg ? try svg(symbol, size: size) : try png(symbol, size: size)
            return RenderedCode(format: format, bytes: bytes, qrVersion: symbol.version, errorCorrection: ecc, ntag: nil)
        case .ndef, .ndefHex:
            let message: NDEFMessage
            do { message = try NDEFMessage.uri(url) } catch { throw .ndef(error) }
            let bytes = format == .ndef ? message.bytes : Array((message.hex() + "\n").utf8)
            return RenderedCode(format: format, bytes: bytes, qrVersion: nil, errorCorrection: nil, ntag: message.smallestTag)
        }
    }

    static func svg(_ symbol: QRCode, size: CodeSize) throws(CodeRenderingError) -> [UInt8] {
        let drawing: SVGSize =
            switch size {
            case .pixelsPerModule(let pixels): .pixelsPerModule(pixels)
            case .millimetres(let millimetres): .millimetres(millimetres)
            }
        do { return Array(try symbol.svg(size: drawing).utf8) } catch { throw .qrCode(error) }
    }

    /// A PNG of the symbol and its quiet zone (§6.3.8). At a print size, the pixels a module are the most
    /// that fit the width at 300 dpi (whole pixels keep every module the same size), and pHYs says 300 dpi
    /// (PNG spec §11.3.5.3) so that the image prints at that width, or a little under it.
    static func png(_ symbol: QRCode, size: CodeSize) throws(CodeRenderingError) -> [UInt8] {
        let modules = symbol.size + 2 * QRCode.quietZone
        var metadata = PNGMetadata()
        let scale: Int
        switch size {
        case .pixelsPerModule(let pixels): scale = pixels
        case .millimetres(let millimetres):
            let pixels = Int((millimetres / 25.4 * Double(CodeSize.printDotsPerInch)).rounded(.down))
            guard pixels >= modules else { throw .tooSmallForPrint(millimetres: millimetres, modules: modules) }
            scale = pixels / modules
            metadata.pixelsPerInch = CodeSize.printDotsPerInch
        }
        var dark: [Bool] = []
        dark.reserveCapacity(symbol.size * symbol.size)
        for y in 0..<symbol.size {
            for x in 0..<symbol.size { dark.append(symbol[x, y]) }
        }
        do {
            return try PNGEncoder.bilevel(
                width: symbol.size, height: symbol.size, dark: dark, scale: scale, border: QRCode.quietZone, metadata: metadata)
        } catch { throw .png(error) }
    }
}
