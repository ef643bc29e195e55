extension QRCode {
    /// The modules as text, one line per row from the top, `1` dark and `0` light, without the quiet zone.
    public var matrixText: String {
        (0..<size).map { y in String((0..<size).map { x in self[x, y] ? "1" : "0" }) }.joined(separator: "\n")
    }
}
