import FileFormats

/// A header image checked against Apple's rule (docs/apple-formats.md#header-image): "Use a 1800x1200 px PNG
/// or JPEG image without transparency" (HIG); 3:2 in every version of Apple's guidance.
public struct HeaderImage: Sendable, Equatable {
    public enum MediaType: String, Sendable { case png = "image/png", jpeg = "image/jpeg" }
    public let mediaType: MediaType
    public let width: Int
    public let height: Int
    public let sha256: String
    public let bytes: [UInt8]

    /// Apple's current size (HIG): a warning, not an error, when another 3:2 size is given.
    public static let appleSize = (width: 1800, height: 1200)
    /// Larger files are refused.
    public static let maxBytes = 10 * 1024 * 1024

    /// Our cap on each side: PNG allows up to 2^31−1 (ISO/IEC 15948 §11.2.2) and JPEG 65,535, but
    /// a card shows 1800×1200 (docs/apple-formats.md#header-image; 3000×2000 in WWDC20's notes), and a header that
    /// large decodes to hundreds of megabytes in every client that shows it. 10,000 is over 3×
    /// the largest size Apple ever asked for; at 3:2 it bounds an image to 66.7 Mpx.
    public static let maxSide = 10_000

    /// Whether `bytes` start with the signature of `type` (PNG: ISO/IEC 15948 §5.2; JPEG: the SOI marker and the
    /// first marker's 0xFF, ITU-T T.81 §B.1.1.3).
    public static func looksLike(_ type: MediaType, _ bytes: [UInt8]) -> Bool {
        switch type {
        case .png: bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .jpeg: bytes.starts(with: [0xFF, 0xD8, 0xFF])
        }
    }

    public init(bytes: [UInt8], field: String = "image") throws(ValidationFailure) {
        func fail(_ rule: String, _ message: String) -> ValidationFailure {
            ValidationFailure(field: field, rule: rule, message: message)
        }
        guard bytes.count <= Self.maxBytes else { throw fail("image.size", "is \(bytes.count) bytes; the limit is \(Self.maxBytes)") }
        let info: Info?
        if Self.looksLike(.png, bytes) {
            info = Self.inspectPNG(bytes)
        } else if Self.looksLike(.jpeg, bytes) {
            info = Self.inspectJPEG(bytes)
        } else {
            throw fail("image.format", "must be a PNG or JPEG file")
        }
        guard let info else { throw fail("image.format", "is a damaged or truncated image file") }
        let (type, width, height) = (info.mediaType, info.width, info.height)
        guard width <= Self.maxSide, height <= Self.maxSide else {
            throw fail(
                "image.dimensions",
                "is \(width)×\(height); each side must be at most \(Self.maxSide) pixels (Apple asks for \(Self.appleSize.width)×\(Self.appleSize.height))"
            )
        }
        // The compressed data must be able to hold the image: deflate expands at most
        // `maxDeflateRatio`:1, so fewer IDAT bytes than the scanlines ÷ 1,032 is a truncated or
        // forged file (a declared 9999×6666 with 100 bytes of data), whatever a decoder would
        // make of it.
        if let png = info.png {
            // Both sides are at most 10,000 here, so the sizes cannot overflow.
            let raw = png.rawSize(width: width, height: height)
            let deflate = Swift.max(0, png.idatBytes - 6)  // minus the zlib header (2) and Adler-32 (4)
            guard deflate * Self.maxDeflateRatio >= raw else {
                throw fail(
                    "image.format",
                    "is a damaged or truncated image file: it declares \(width)×\(height) (\(raw) bytes of scanlines) in \(png.idatBytes) bytes of IDAT, more than deflate can expand them to (at most \(Self.maxDeflateRatio):1, RFC 1951)"
                )
            }
        }
        // Apple asks for "a 1800x1200 px PNG or JPEG image" (HIG): a still image. An APNG is a
        // valid PNG that APNG-aware viewers (Safari, iOS) play as an animation.
        guard !info.animated else {
            throw fail("image.animated", "is an animated PNG (it has an acTL chunk); the header must be a still image")
        }
        // Our choice: Apple's header-image text names no colour space, but a card is shown on a
        // screen, App Store Connect's screenshot specifications ask for the RGB colour space, and
        // a 4-component JPEG (CMYK or YCCK, a print file, usually with Adobe's inverted APP14
        // convention) is rendered with wrong colours by some decoders. T.81 allows 1–255
        // components; JFIF (ITU T.871) has 1 (grayscale) or 3 (YCbCr), the two we accept.
        if let components = info.jpegComponents, components != 1 && components != 3 {
            throw fail(
                "image.color",
                "is a JPEG with \(components) colour components\(components == 4 ? " (CMYK or YCCK)" : ""); it must be RGB (3) or grayscale (1)"
            )
        }
        guard !info.hasAlpha else { throw fail("image.alpha", "must have no transparency (no alpha channel or tRNS chunk)") }
        guard width > 0, height > 0, width * 2 == height * 3 else {
            throw fail("image.aspect", "is \(width)×\(height); it must be 3:2, such as \(Self.appleSize.width)×\(Self.appleSize.height)")
        }
        mediaType = type
        self.width = width
        self.height = height
        self.bytes = bytes
        sha256 = SHA256.hexDigest(bytes)
    }

    public var isAppleSize: Bool { width == Self.appleSize.width && height == Self.appleSize.height }

    /// The most bytes deflate (RFC 1951) can expand one byte of compressed data to. Output comes
    /// from literals (one byte each) and length/distance pairs (at most 258 bytes each, §3.2.5:
    /// length code 285, no extra bits). Every symbol takes at least one bit: a code length of zero
    /// means a symbol is not used (§3.2.7), and "if only one distance code is used, it is encoded
    /// using one bit, not zero bits" (§3.2.7); distance code 0 has no extra bits. So a pair takes at least 2 bits
    /// for 258 bytes: 258 × 8 / 2 = 1,032 bytes per compressed byte. Literals give at most 8 per
    /// byte, stored blocks (§3.2.4) at most 1, fixed codes (§3.2.6, length codes of 7 or 8 bits
    /// and 5-bit distance codes) less, and block headers and end-of-block codes only add bits.
    public static let maxDeflateRatio = 1032

    /// What the structure of a file says, before the rules on it.
    struct Info {
        var mediaType: MediaType
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var animated = false
        var jpegComponents: Int?
        var png: PNGData?
    }

    /// What a PNG's IHDR promises and how much compressed data its IDAT chunks hold.
    struct PNGData {
        var bitDepth: Int
        var colorType: UInt8
        var interlaced: Bool
        var idatBytes: Int

        /// The filtered scanlines the IHDR implies (ISO/IEC 15948 §7.2, §9.2: one filter-type
        /// byte then ⌈width × bits per pixel / 8⌉ bytes per row; §8.2: with Adam7, the seven
        /// passes' reduced images one after another, an empty pass having no rows at all).
        func rawSize(width: Int, height: Int) -> Int {
            let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1
            let bitsPerPixel = channels * bitDepth
            func size(_ w: Int, _ h: Int) -> Int { w == 0 || h == 0 ? 0 : ((w * bitsPerPixel + 7) / 8 + 1) * h }
            guard interlaced else { return size(width, height) }
            let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            return passes.reduce(0) { total, pass in
                let (x, y, dx, dy) = pass
                return total + size(width > x ? (width - x + dx - 1) / dx : 0, height > y ? (height - y + dy - 1) / dy : 0)
            }
        }
    }

    static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }

    /// PNG (ISO/IEC 15948): the whole chunk sequence is checked, since a file that only starts
    /// like a PNG is no image. Every chunk's length fits the file and its CRC-32 (§5.3, Annex D)
    /// is right; IHDR comes first with 13 bytes, width and height 1…2^31−1 and a valid bit depth
    /// for its colour type, compression, filter and interlace methods (§11.2.2); a palette image
    /// has PLTE; one or more IDAT in a row; IEND last, empty, with nothing after it (§5.6).
    /// Colour types 4 and 6 carry alpha, and a tRNS chunk adds transparency to the others.
    /// The IDAT data starts with a zlib header (RFC 1950 §2.2): CM = 8 (deflate) and CINFO ≤ 7
    /// (a window of at most 32 KiB), the FCHECK bits making CMF × 256 + FLG a multiple of 31, and
    /// FDICT = 0 (PNG allows no preset dictionary, ISO/IEC 15948 §10.1). An `acTL` chunk makes it
    /// an animated PNG (APNG 1.0, which puts it before the first IDAT; we refuse it anywhere).
    static func inspectPNG(_ b: [UInt8]) -> Info? {
        var offset = 8
        var width = 0, height = 0, colorType: UInt8 = 0, depth: UInt8 = 0, interlaced = false
        var alpha = false, sawPLTE = false, idat = 0  // 0: none yet, 1: in the IDAT run, 2: after it
        var animated = false, idatBytes = 0
        var zlibHeader: [UInt8] = []
        var first = true
        while offset + 12 <= b.count {
            let length = be32(b, offset)
            guard length <= Int(Int32.max), offset + 12 + length <= b.count else { return nil }
            let type = String(decoding: b[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = (offset + 8)..<(offset + 8 + length)
            guard CRC32.checksum(b[(offset + 4)..<data.upperBound]) == UInt32(be32(b, data.upperBound)) else { return nil }
            if first {
                guard type == "IHDR", length == 13 else { return nil }
                width = be32(b, data.lowerBound)
                height = be32(b, data.lowerBound + 4)
                depth = b[data.lowerBound + 8]
                colorType = b[data.lowerBound + 9]
                let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
                guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height),
                    allowed[colorType]?.contains(depth) == true, b[data.lowerBound + 10] == 0, b[data.lowerBound + 11] == 0,
                    b[data.lowerBound + 12] <= 1
                else { return nil }
                interlaced = b[data.lowerBound + 12] == 1
                alpha = colorType == 4 || colorType == 6
                first = false
            } else {
                switch type {
                case "IHDR": return nil
                case "PLTE": sawPLTE = true
                case "tRNS": if idat == 0 { alpha = true }
                case "acTL": animated = true
                case "IDAT":
                    guard idat != 2, colorType != 3 || sawPLTE else { return nil }
                    idat = 1
                    idatBytes += length
                    zlibHeader += b[data].prefix(2 - zlibHeader.count)
                case "IEND":
                    guard length == 0, idat > 0, data.upperBound + 4 == b.count else { return nil }
                    guard zlibHeader.count == 2 else { return nil }
                    let (cmf, flg) = (Int(zlibHeader[0]), Int(zlibHeader[1]))
                    guard cmf & 0x0F == 8, cmf >> 4 <= 7, (cmf << 8 | flg) % 31 == 0, flg & 0x20 == 0 else { return nil }
                    return Info(
                        mediaType: .png, width: width, height: height, hasAlpha: alpha, animated: animated,
                        png: PNGData(bitDepth: Int(depth), colorType: colorType, interlaced: interlaced, idatBytes: idatBytes))
                default:
                    if idat == 1 { idat = 2 }
                }
            }
            offset = data.upperBound + 4
        }
        return nil  // no IEND
    }

    /// JPEG (ITU T.81 §B.2–B.3): SOI, marker segments whose lengths fit the file, a frame header
    /// SOFn with non-zero height and width (a zero height deferred to a DNL marker is refused)
    /// and Lf = 8 + 3 × Nf (§B.2.2), at least one scan (SOS followed by its entropy-coded data,
    /// where 0xFF is followed by 0x00 or a restart marker), and EOI as the last two bytes. JPEG
    /// has no alpha. The number of components Nf is returned for the colour rule.
    static func inspectJPEG(_ b: [UInt8]) -> Info? {
        var i = 2
        var size: (width: Int, height: Int, components: Int)?
        var scans = 0
        while i + 2 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill bytes (§B.1.1.2)
            if marker == 0xD9 {
                guard i + 2 == b.count, let size, scans > 0 else { return nil }
                return Info(mediaType: .jpeg, width: size.width, height: size.height, hasAlpha: false, jpegComponents: size.components)
            }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            guard i + 4 <= b.count else { return nil }
            let length = be16(b, i + 2)
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard size == nil, length >= 8 else { return nil }
                let height = be16(b, i + 5), width = be16(b, i + 7), components = Int(b[i + 9])
                guard width > 0, height > 0, components > 0, length == 8 + 3 * components else { return nil }
                size = (width, height, components)
            }
            i += 2 + length
            if marker == 0xDA {
                guard size != nil else { return nil }
                scans += 1
                // Entropy-coded data runs to the next marker that is neither stuffing nor RSTn.
                while i + 1 < b.count, !(b[i] == 0xFF && b[i + 1] != 0x00 && !(0xD0...0xD7).contains(b[i + 1]) && b[i + 1] != 0xFF) {
                    i += 1
                }
                guard i + 1 < b.count else { return nil }
            }
        }
        return nil  // no EOI
    }
}

/// CRC-32 as PNG uses it (ISO/IEC 15948 Annex D; ISO 3309): reflected polynomial 0xEDB88320.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
