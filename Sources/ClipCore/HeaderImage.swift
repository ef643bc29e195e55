/// A header image checked against apple-spec §1.4: "Use a 1800x1200 px PNG or JPEG image without
/// transparency" (HIG); 3:2 in every version of Apple's guidance.
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
    /// a card shows 1800×1200 (apple-spec §1.4; 3000×2000 in WWDC20's notes), and a header that
    /// large decodes to hundreds of megabytes in every client that shows it. 10,000 is over 3×
    /// the largest size Apple ever asked for; at 3:2 it bounds an image to 66.7 Mpx.
    public static let maxSide = 10_000

    public init(bytes: [UInt8], field: String = "image") throws(ValidationFailure) {
        func fail(_ rule: String, _ message: String) -> ValidationFailure {
            ValidationFailure(field: field, rule: rule, message: message)
        }
        guard bytes.count <= Self.maxBytes else { throw fail("image.size", "is \(bytes.count) bytes; the limit is \(Self.maxBytes)") }
        let info: (MediaType, Int, Int, hasAlpha: Bool)?
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            info = Self.inspectPNG(bytes)
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            info = Self.inspectJPEG(bytes)
        } else {
            throw fail("image.format", "must be a PNG or JPEG file")
        }
        guard let (type, width, height, hasAlpha) = info else { throw fail("image.format", "is a damaged or truncated image file") }
        guard width <= Self.maxSide, height <= Self.maxSide else {
            throw fail("image.dimensions", "is \(width)×\(height); each side must be at most \(Self.maxSide) pixels (Apple asks for \(Self.appleSize.width)×\(Self.appleSize.height))")
        }
        guard !hasAlpha else { throw fail("image.alpha", "must have no transparency (no alpha channel or tRNS chunk)") }
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

    static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }

    /// PNG (ISO/IEC 15948): the whole chunk sequence is checked, since a file that only starts
    /// like a PNG is no image. Every chunk's length fits the file and its CRC-32 (§5.3, Annex D)
    /// is right; IHDR comes first with 13 bytes, width and height 1…2^31−1 and a valid bit depth
    /// for its colour type, compression, filter and interlace methods (§11.2.2); a palette image
    /// has PLTE; one or more IDAT in a row; IEND last, empty, with nothing after it (§5.6).
    /// Colour types 4 and 6 carry alpha, and a tRNS chunk adds transparency to the others.
    static func inspectPNG(_ b: [UInt8]) -> (MediaType, Int, Int, hasAlpha: Bool)? {
        var offset = 8
        var width = 0, height = 0, colorType: UInt8 = 0
        var alpha = false, sawPLTE = false, idat = 0  // 0: none yet, 1: in the IDAT run, 2: after it
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
                let depth = b[data.lowerBound + 8]
                colorType = b[data.lowerBound + 9]
                let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
                guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height),
                    allowed[colorType]?.contains(depth) == true, b[data.lowerBound + 10] == 0, b[data.lowerBound + 11] == 0,
                    b[data.lowerBound + 12] <= 1
                else { return nil }
                alpha = colorType == 4 || colorType == 6
                first = false
            } else {
                switch type {
                case "IHDR": return nil
                case "PLTE": sawPLTE = true
                case "tRNS": if idat == 0 { alpha = true }
                case "IDAT":
                    guard idat != 2, colorType != 3 || sawPLTE else { return nil }
                    idat = 1
                case "IEND":
                    guard length == 0, idat > 0, data.upperBound + 4 == b.count else { return nil }
                    return (.png, width, height, alpha)
                default:
                    if idat == 1 { idat = 2 }
                }
            }
            offset = data.upperBound + 4
        }
        return nil  // no IEND
    }

    /// JPEG (ITU T.81 §B.2–B.3): SOI, marker segments whose lengths fit the file, a frame header
    /// SOFn with non-zero height and width (a zero height deferred to a DNL marker is refused),
    /// at least one scan (SOS followed by its entropy-coded data, where 0xFF is followed by 0x00
    /// or a restart marker), and EOI as the last two bytes. JPEG has no alpha.
    static func inspectJPEG(_ b: [UInt8]) -> (MediaType, Int, Int, hasAlpha: Bool)? {
        var i = 2
        var size: (width: Int, height: Int)?
        var scans = 0
        while i + 2 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill bytes (§B.1.1.2)
            if marker == 0xD9 {
                guard i + 2 == b.count, let size, scans > 0 else { return nil }
                return (.jpeg, size.width, size.height, false)
            }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            guard i + 4 <= b.count else { return nil }
            let length = be16(b, i + 2)
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard size == nil, length >= 8 else { return nil }
                let height = be16(b, i + 5), width = be16(b, i + 7)
                guard width > 0, height > 0 else { return nil }
                size = (width, height)
            }
            i += 2 + length
            if marker == 0xDA {
                guard size != nil else { return nil }
                scans += 1
                // Entropy-coded data runs to the next marker that is neither stuffing nor RSTn.
                while i + 1 < b.count, !(b[i] == 0xFF && b[i + 1] != 0x00 && !(0xD0...0xD7).contains(b[i + 1]) && b[i + 1] != 0xFF) { i += 1 }
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
