// How the errors of this module show what they refuse.

/// A string in quotes with anything unprintable shown as its code point, cut after 100 characters.
func quoted(_ text: String) -> String {
    var out = "\""
    for (index, scalar) in text.unicodeScalars.enumerated() {
        if index == 100 { return out + "…\"" }
        if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
            || scalar.properties.generalCategory == .unassigned || scalar == "\"" || scalar == "\\"
        {
            out += codePoint(scalar)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// U+XXXX, at least four hexadecimal digits.
func codePoint(_ scalar: Unicode.Scalar) -> String {
    let digits = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
