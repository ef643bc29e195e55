/// Text made safe for an HTML document (the one owner of HTML escaping: banners, card previews), as character data or a quoted attribute value.
public enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'` as character references (HTML Living Standard §13.1.2.3
    /// "Attributes" and §13.1.3 "Text": none of them may then start markup or end an attribute),
    /// and writes U+FFFD for what the input stream may not carry: NUL, C0 controls other than tab,
    /// line feed and form feed, carriage return, C1 controls and noncharacters (§13.2.3.5
    /// "Preprocessing the input stream": each is a parse error).
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case _ where isRefused(scalar): out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `escaped`, with every character a reader would not see named instead ("[U+200B]"): format
    /// characters (General_Category Cf), default-ignorable code points (DerivedCoreProperties.txt)
    /// and separators other than the space (Z*). For URLs, where such a character decides what
    /// matches while the text looks the same.
    public static func visible(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            let p = scalar.properties
            let hidden: Bool =
                switch p.generalCategory {
                case .format, .lineSeparator, .paragraphSeparator: true
                case .spaceSeparator: scalar != " "
                default: p.isDefaultIgnorableCodePoint
                }
            if hidden {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown += "[U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return escaped(shown)
    }

    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        // Noncharacters: U+FDD0–U+FDEF and the last two code points of every plane (Unicode §23.7).
        return (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE
    }
}
