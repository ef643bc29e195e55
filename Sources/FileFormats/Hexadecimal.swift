/// Bytes written as hexadecimal digits.
public enum Hexadecimal {
    /// Two upper-case digits a byte, `separator` between bytes.
    public static func string(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for (index, byte) in bytes.enumerated() {
            if index > 0 { out += separator }
            out.unicodeScalars.append(digits[Int(byte >> 4)])
            out.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return out
    }
}
