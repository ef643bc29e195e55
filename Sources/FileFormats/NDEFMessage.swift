/// An NDEF message (NFC Forum NDEF 1.0) of one URI record (NFC Forum URI Record Type Definition
/// 1.0, RTD-URI), and its wrapping for a Type 2 tag.
///
/// The record: header byte with MB and ME set (the message's first and last record), SR set when
/// the payload is at most 255 bytes (a one-byte payload length, else four bytes, big-endian), no
/// ID, TNF 0x01 (NFC Forum well-known type); type length 1; the type "U"; the payload: one
/// identifier code for the longest prefix of the URI in RTD-URI's table (0x00 when none), then the
/// rest of the URI.
///
/// RTD-URI's URI field is UTF-8 (§3.2.2): the URI is written as its UTF-8 bytes, unchanged. An
/// internationalized host may be given as Unicode (an IRI, RFC 3987: the bytes are its UTF-8) or
/// already in Punycode ("xn--…"): either is written as given; nothing is converted, percent-encoded
/// or normalized, and prefixes match letter case exactly ("HTTPS://" gets no abbreviation).
public struct NDEFMessage: Sendable, Equatable {
    public let bytes: [UInt8]

    /// The message of one URI record. Refuses an empty URI, and one with a control character,
    /// a space, or a bidirectional formatting character (not in IRIs, RFC 3987 §2.2 and §4.1).
    public static func uri(_ uri: String) throws(NDEFError) -> NDEFMessage {
        guard !uri.isEmpty else { throw .emptyURI }
        for scalar in uri.unicodeScalars {
            let value = scalar.value
            let isControl = value < 0x21 || (0x7F...0x9F).contains(value)
            let isBidiFormatting =
                value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            if isControl || isBidiFormatting { throw .characterNotInURI(scalar) }
        }
        let (code, rest) = URIPrefix.abbreviate(uri)
        let payload = [code] + Array(rest.utf8)
        guard payload.count <= Int(UInt32.max) else { throw .tooLarge(bytes: payload.count, limit: Int(UInt32.max)) }
        let typeLength: UInt8 = 1
        let tnfWellKnown: UInt8 = 0x01
        let messageBegin: UInt8 = 0x80
        let messageEnd: UInt8 = 0x40
        let shortRecord: UInt8 = 0x10
        var bytes: [UInt8] = []
        if payload.count <= 255 {
            bytes = [messageBegin | messageEnd | shortRecord | tnfWellKnown, typeLength, UInt8(payload.count)]
        } else {
            bytes = [messageBegin | messageEnd | tnfWellKnown, typeLength]
            bytes.appendBigEndian(UInt32(payload.count))
        }
        bytes.append(UInt8(ascii: "U"))
        bytes.append(contentsOf: payload)
        return NDEFMessage(bytes: bytes)
    }

    /// The bytes in hexadecimal, upper case, with `separator` between bytes ("D1 01 0D 55 …").
    public func hex(separator: String = "") -> String {
        Hexadecimal.string(bytes, separator: separator)
    }

    /// The largest message a Type 2 tag's NDEF Message TLV holds: its three-byte length field
    /// reaches 0xFFFE (0xFFFF is reserved).
    public static let maxType2MessageBytes = 0xFFFE

    /// The message as a Type 2 tag stores it in its data area (NFC Forum Type 2 Tag Operation §2.3):
    /// an NDEF Message TLV (tag 0x03; length in one byte up to 254, else 0xFF and two bytes,
    /// big-endian; the message), then a Terminator TLV (0xFE).
    public func type2TLV() throws(NDEFError) -> [UInt8] {
        guard bytes.count <= NDEFMessage.maxType2MessageBytes else {
            throw .tooLarge(bytes: bytes.count, limit: NDEFMessage.maxType2MessageBytes)
        }
        var out: [UInt8] = [0x03]
        if bytes.count < 0xFF {
            out.append(UInt8(bytes.count))
        } else {
            out.append(contentsOf: [0xFF, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)])
        }
        out.append(contentsOf: bytes)
        out.append(0xFE)
        return out
    }

    /// The smallest NTAG21x whose user memory holds `type2TLV()`, terminator included; nil when none does.
    public var smallestTag: NTAG? {
        guard let tlv = try? type2TLV() else { return nil }
        return NTAG.smallest(holding: tlv.count)
    }
}

/// NXP's NTAG21x Type 2 tags and the bytes of user memory each has for TLVs (NXP's NTAG213/215/216
/// data sheet, memory organization: from page 4 up to the dynamic lock bytes).
public enum NTAG: String, Sendable, CaseIterable {
    case ntag213 = "NTAG213"
    case ntag215 = "NTAG215"
    case ntag216 = "NTAG216"

    public var userMemoryBytes: Int {
        switch self {
        case .ntag213: 144
        case .ntag215: 504
        case .ntag216: 888
        }
    }

    /// The smallest tag with at least `byteCount` bytes of user memory, or nil.
    public static func smallest(holding byteCount: Int) -> NTAG? {
        allCases.first { $0.userMemoryBytes >= byteCount }
    }
}

public enum NDEFError: Error, Equatable, CustomStringConvertible {
    case emptyURI
    case characterNotInURI(Unicode.Scalar)
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .emptyURI: "an NDEF URI record needs a URI"
        case .characterNotInURI(let scalar):
            "a URI cannot contain \(codePoint(scalar)) (a space, control or bidirectional formatting character)"
        case .tooLarge(let bytes, let limit): "the NDEF message is \(bytes) bytes; at most \(limit) fit"
        }
    }
}
