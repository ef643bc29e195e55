/// The URI identifier codes of NFC Forum RTD-URI 1.0 (§3.2.2, Table 3): a URI record's payload
/// starts with one byte that stands for a common prefix, which the URI field then leaves out.
enum URIPrefix {
    static let table: [(code: UInt8, prefix: String)] = [
        (0x01, "http://www."), (0x02, "https://www."), (0x03, "http://"), (0x04, "https://"), (0x05, "tel:"), (0x06, "mailto:"),
        (0x07, "ftp://anonymous:anonymous@"), (0x08, "ftp://ftp."), (0x09, "ftps://"), (0x0A, "sftp://"), (0x0B, "smb://"),
        (0x0C, "nfs://"), (0x0D, "ftp://"), (0x0E, "dav://"), (0x0F, "news:"), (0x10, "telnet://"), (0x11, "imap:"),
        (0x12, "rtsp://"), (0x13, "urn:"), (0x14, "pop:"), (0x15, "sip:"), (0x16, "sips:"), (0x17, "tftp:"), (0x18, "btspp://"),
        (0x19, "btl2cap://"), (0x1A, "btgoep://"), (0x1B, "tcpobex://"), (0x1C, "irdaobex://"), (0x1D, "file://"),
        (0x1E, "urn:epc:id:"), (0x1F, "urn:epc:tag:"), (0x20, "urn:epc:pat:"), (0x21, "urn:epc:raw:"), (0x22, "urn:epc:"),
        (0x23, "urn:nfc:"),
    ]

    /// The code of the longest prefix in the table that `uri` starts with, byte for byte, and the
    /// rest of the URI; code 0x00 and the whole URI when none does.
    static func abbreviate(_ uri: String) -> (code: UInt8, rest: Substring) {
        let bytes = Array(uri.utf8)
        var best: (code: UInt8, length: Int) = (0, 0)
        for entry in table {
            let prefix = Array(entry.prefix.utf8)
            if prefix.count > best.length && bytes.starts(with: prefix) { best = (entry.code, prefix.count) }
        }
        let utf8 = uri.utf8
        return (best.code, Substring(utf8[utf8.index(utf8.startIndex, offsetBy: best.length)...]))
    }
}
