/// PNG writer (ISO/IEC 15948, W3C PNG Second Edition) for greyscale images: 1 bit per pixel for
/// two-tone images such as a matrix of modules, 8 bits per pixel otherwise. Chunks IHDR, then the
/// optional pHYs and tEXt, one IDAT (zlib, §10), IEND; no interlacing. Deterministic bytes.
public enum PNGEncoder {
    /// The largest width and height written, in pixels (our limit, not the format's 2^31 − 1: a
    /// 16384 × 16384 greyscale image is already 256 MiB of pixels).
    public static let maxDimension = 16384

    /// A two-tone image: `dark` holds `width × height` modules row by row, top row first; each
    /// module becomes `scale × scale` pixels, black when dark, white otherwise, inside a white
    /// `border` of that many modules on every side. Written 1 bit per pixel, 0 black (§7.2).
    public static func bilevel(
        width: Int, height: Int, dark: [Bool], scale: Int = 1, border: Int = 0, metadata: PNGMetadata = PNGMetadata()
    ) throws(PNGError) -> [UInt8] {
        guard width > 0, height > 0 else { throw .emptyImage(width: width, height: height) }
        guard width <= maxDimension, height <= maxDimension else { throw .tooLarge(width: width, height: height) }
        guard dark.count == width * height else { throw .pixelCountMismatch(expected: width * height, actual: dark.count) }
        guard scale >= 1, scale <= maxDimension else { throw .scaleOutOfRange(scale) }
        guard border >= 0, border <= maxDimension else { throw .borderOutOfRange(border) }
        let outWidth = (width + 2 * border) * scale
        let outHeight = (height + 2 * border) * scale
        guard outWidth <= maxDimension, outHeight <= maxDimension else { throw .tooLarge(width: outWidth, height: outHeight) }
        let header = try metadata.chunks()

        // Filter type 0 on every row: for bit depths below 8 the spec advises against the others (§12.8).
        let rowBytes = (outWidth + 7) / 8
        var scanlines = [UInt8]()
        scanlines.reserveCapacity((rowBytes + 1) * outHeight)
        var row = [UInt8](repeating: 0, count: rowBytes)
        for moduleRow in 0..<(height + 2 * border) {
            for index in row.indices { row[index] = 0 }
            for x in 0..<outWidth {
                let moduleX = x / scale - border
                let moduleY = moduleRow - border
                let isDark = moduleX >= 0 && moduleX < width && moduleY >= 0 && moduleY < height && dark[moduleY * width + moduleX]
                if !isDark { row[x >> 3] |= 0x80 >> UInt8(x & 7) }
            }
            for _ in 0..<scale {
                scanlines.append(0)
                scanlines.append(contentsOf: row)
            }
        }
        return file(width: outWidth, height: outHeight, bitDepth: 1, header: header, scanlines: scanlines)
    }

    /// An 8-bit greyscale image: `pixels` holds `width × height` values row by row, 0 black, 255
    /// white. Each row is filtered the way whose bytes, read as signed, have the smallest sum of
    /// magnitudes, the heuristic the spec suggests (§12.8).
    public static func grayscale(width: Int, height: Int, pixels: [UInt8], metadata: PNGMetadata = PNGMetadata()) throws(PNGError)
        -> [UInt8]
    {
        guard width > 0, height > 0 else { throw .emptyImage(width: width, height: height) }
        guard width <= maxDimension, height <= maxDimension else { throw .tooLarge(width: width, height: height) }
        guard pixels.count == width * height else { throw .pixelCountMismatch(expected: width * height, actual: pixels.count) }
        let header = try metadata.chunks()
        var scanlines = [UInt8]()
        scanlines.reserveCapacity((width + 1) * height)
        let zeros = [UInt8](repeating: 0, count: width)
        var candidates = [[UInt8]](repeating: zeros, count: 5)
        for y in 0..<height {
            let line = pixels[(y * width)..<((y + 1) * width)]
            let above = y == 0 ? zeros[...] : pixels[((y - 1) * width)..<(y * width)]
            var best = 0
            var bestScore = Int.max
            for type in 0..<5 {
                var score = 0
                for x in 0..<width {
                    let raw = line[line.startIndex + x]
                    let a = x == 0 ? 0 : line[line.startIndex + x - 1]
                    let b = above[above.startIndex + x]
                    let c = x == 0 ? 0 : above[above.startIndex + x - 1]
                    // The five filter types (§9.2): None, Sub, Up, Average, Paeth.
                    let predicted: UInt8 =
                        switch type {
                        case 0: 0
                        case 1: a
                        case 2: b
                        case 3: UInt8((Int(a) + Int(b)) / 2)
                        default: paeth(a, b, c)
                        }
                    let filtered = raw &- predicted
                    candidates[type][x] = filtered
                    score += filtered < 128 ? Int(filtered) : 256 - Int(filtered)
                }
                if score < bestScore {
                    bestScore = score
                    best = type
                }
            }
            scanlines.append(UInt8(best))
            scanlines.append(contentsOf: candidates[best])
        }
        return file(width: width, height: height, bitDepth: 8, header: header, scanlines: scanlines)
    }

    /// The Paeth predictor (§9.4): whichever of left, above and upper left is closest to
    /// left + above − upper left, ties in that order.
    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a))
        let pb = abs(p - Int(b))
        let pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// The PNG signature (§5.2), IHDR (§11.2.2: greyscale colour type 0, compression 0, filter
    /// method 0, no interlace), the ancillary chunks, IDAT, IEND.
    private static func file(width: Int, height: Int, bitDepth: UInt8, header: [[UInt8]], scanlines: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(width))
        ihdr.appendBigEndian(UInt32(height))
        ihdr.append(contentsOf: [bitDepth, 0, 0, 0, 0])
        appendChunk("IHDR", ihdr, to: &out)
        for chunk in header { out.append(contentsOf: chunk) }
        appendChunk("IDAT", Zlib.compress(scanlines), to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// A chunk (§5.3): length, type, data, and the CRC-32 of type and data.
    static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        out.appendBigEndian(UInt32(data.count))
        let start = out.count
        out.append(contentsOf: type.utf8)
        out.append(contentsOf: data)
        out.appendBigEndian(CRC32.checksum(out[start...]))
    }
}

/// What a PNG says about itself besides its pixels.
public struct PNGMetadata: Sendable, Equatable {
    /// tEXt chunks (§11.3.4.3), in this order.
    public var text: [PNGText]
    /// The pHYs chunk (§11.3.5.3), from pixels per inch: written as pixels per metre, rounded.
    public var pixelsPerInch: Int?

    /// At most this many pixels per inch (about 4 million per metre; the field allows 2^31 − 1).
    public static let maxPixelsPerInch = 100_000

    public init(text: [PNGText] = [], pixelsPerInch: Int? = nil) {
        self.text = text
        self.pixelsPerInch = pixelsPerInch
    }

    func chunks() throws(PNGError) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        if let pixelsPerInch {
            guard pixelsPerInch >= 1, pixelsPerInch <= PNGMetadata.maxPixelsPerInch else { throw .resolutionOutOfRange(pixelsPerInch) }
            // One inch is 0.0254 m exactly; unit specifier 1 is the metre.
            let perMetre = UInt32((pixelsPerInch * 10000 + 127) / 254)
            var data: [UInt8] = []
            data.appendBigEndian(perMetre)
            data.appendBigEndian(perMetre)
            data.append(1)
            var chunk: [UInt8] = []
            PNGEncoder.appendChunk("pHYs", data, to: &chunk)
            chunks.append(chunk)
        }
        for entry in text {
            var chunk: [UInt8] = []
            PNGEncoder.appendChunk("tEXt", try entry.chunkData(), to: &chunk)
            chunks.append(chunk)
        }
        return chunks
    }
}

/// A tEXt entry: a keyword ("Title", "Author", "Description", "Source", …, §11.3.4.2) and its text,
/// both ISO/IEC 8859-1 (Latin-1). Text in another script is refused, not transliterated: iTXt
/// would carry it, and this writer does not write iTXt.
public struct PNGText: Sendable, Equatable {
    public var keyword: String
    public var text: String

    /// Our limit on one entry's text, in bytes.
    public static let maxTextBytes = 65536

    public init(keyword: String, text: String) {
        self.keyword = keyword
        self.text = text
    }

    /// The keyword, a NUL, the text (§11.3.4.3). Keywords: 1 to 79 printable Latin-1 characters
    /// (32–126, 161–255), no leading, trailing or consecutive spaces (§11.3.4.2). Text: Latin-1
    /// without NUL; line feed is the only control character accepted (the spec discourages the others).
    func chunkData() throws(PNGError) -> [UInt8] {
        var data: [UInt8] = []
        for scalar in keyword.unicodeScalars {
            let value = scalar.value
            guard (32...126).contains(value) || (161...255).contains(value) else { throw .invalidKeyword(keyword) }
            data.append(UInt8(value))
        }
        guard (1...79).contains(data.count), data.first != 32, data.last != 32,
            !zip(data, data.dropFirst()).contains(where: { $0 == 32 && $1 == 32 })
        else { throw .invalidKeyword(keyword) }
        data.append(0)
        var count = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            guard value <= 255 else { throw .textNotLatin1(keyword: keyword, character: scalar) }
            guard value == 10 || (32...126).contains(value) || value >= 160 else {
                throw .controlCharacterInText(keyword: keyword, character: scalar)
            }
            count += 1
            guard count <= PNGText.maxTextBytes else { throw .textTooLong(keyword: keyword, limit: PNGText.maxTextBytes) }
            data.append(UInt8(value))
        }
        return data
    }
}

public enum PNGError: Error, Equatable, CustomStringConvertible {
    case emptyImage(width: Int, height: Int)
    case tooLarge(width: Int, height: Int)
    case pixelCountMismatch(expected: Int, actual: Int)
    case scaleOutOfRange(Int)
    case borderOutOfRange(Int)
    case resolutionOutOfRange(Int)
    case invalidKeyword(String)
    case textNotLatin1(keyword: String, character: Unicode.Scalar)
    case controlCharacterInText(keyword: String, character: Unicode.Scalar)
    case textTooLong(keyword: String, limit: Int)

    public var description: String {
        switch self {
        case .emptyImage(let width, let height): "a PNG needs at least one pixel each way, not \(width) × \(height)"
        case .tooLarge(let width, let height):
            "the image would be \(width) × \(height) pixels; at most \(PNGEncoder.maxDimension) × \(PNGEncoder.maxDimension) are written"
        case .pixelCountMismatch(let expected, let actual): "expected \(expected) pixels (width × height), got \(actual)"
        case .scaleOutOfRange(let scale): "the scale must be 1 to \(PNGEncoder.maxDimension) pixels per module, not \(scale)"
        case .borderOutOfRange(let border): "the border must be 0 to \(PNGEncoder.maxDimension) modules, not \(border)"
        case .resolutionOutOfRange(let value): "pixels per inch must be 1 to \(PNGMetadata.maxPixelsPerInch), not \(value)"
        case .invalidKeyword(let keyword):
            "a PNG text keyword is 1 to 79 printable Latin-1 characters without leading, trailing or double spaces, not \(quoted(keyword))"
        case .textNotLatin1(let keyword, let character):
            "the text of \(quoted(keyword)) has \(codePoint(character)), which is not Latin-1 (ISO/IEC 8859-1)"
        case .controlCharacterInText(let keyword, let character):
            "the text of \(quoted(keyword)) has the control character \(codePoint(character)); only line feed is accepted"
        case .textTooLong(let keyword, let limit): "the text of \(quoted(keyword)) is longer than \(limit) bytes"
        }
    }
}
