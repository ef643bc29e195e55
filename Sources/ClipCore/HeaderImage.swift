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

    /// PNG (ISO/IEC 15948 §11.2.2): IHDR first; colour types 4 and 6 carry alpha, and a tRNS
    /// chunk before IDAT adds transparency to the others.
    static func inspectPNG(_ b: [UInt8]) -> (MediaType, Int, Int, hasAlpha: Bool)? {
        guard b.count >= 33, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = be32(b, 16), height = be32(b, 20), colorType = b[25]
        var alpha = colorType == 4 || colorType == 6
        var offset = 8
        while offset + 8 <= b.count {
            let length = be32(b, offset)
            let type = Array(b[(offset + 4)..<(offset + 8)])
            if type == Array("tRNS".utf8) { alpha = true }
            if type == Array("IDAT".utf8) || type == Array("IEND".utf8) { break }
            guard length >= 0, length < b.count else { return nil }
            offset += 12 + length
        }
        return (.png, width, height, alpha)
    }

    /// JPEG (ITU T.81 §B.2): the frame header SOFn gives height then width. JPEG has no alpha.
    static func inspectJPEG(_ b: [UInt8]) -> (MediaType, Int, Int, hasAlpha: Bool)? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = be16(b, i + 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard i + 9 <= b.count else { return nil }
                return (.jpeg, be16(b, i + 7), be16(b, i + 5), false)
            }
            i += 2 + length
        }
        return nil
    }
}
