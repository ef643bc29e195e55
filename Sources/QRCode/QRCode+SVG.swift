/// How big an SVG drawing of a QR code is.
public enum SVGSize: Sendable, Equatable {
    /// Each module this many CSS pixels (1–1,000), for screens.
    case pixelsPerModule(Int)
    /// The whole drawing, quiet zone included, this many millimetres wide and high (0.01–10,000, kept to
    /// 0.01 mm), for print.
    case millimetres(Double)
}

extension QRCode {
    /// The symbol as an SVG 1.1 document: a white square of the symbol and its 4-module quiet zone, one black
    /// `<path>` of horizontal runs of dark modules, `shape-rendering="crispEdges"` so no edge is blurred, the
    /// text as `<title>` (XML-escaped), and a `viewBox` in modules. The same symbol and size give the same bytes.
    public func svg(size drawingSize: SVGSize = .pixelsPerModule(8)) throws(QRCodeError) -> String {
        let modules = size + 2 * QRCode.quietZone
        let length: String
        switch drawingSize {
        case .pixelsPerModule(let pixels):
            guard (1...1000).contains(pixels) else { throw .invalidSVGSize("\(pixels) pixels a module (1 to 1000)") }
            length = "\(pixels * modules)px"
        case .millimetres(let millimetres):
            guard millimetres.isFinite, millimetres >= 0.01, millimetres <= 10_000 else {
                throw .invalidSVGSize("\(millimetres) mm (0.01 to 10000)")
            }
            length = Self.decimal(hundredths: Int((millimetres * 100).rounded())) + "mm"
        }
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] { x += 1 }
                path += "M\(start + QRCode.quietZone) \(y + QRCode.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(length)" height="\(length)" \
            viewBox="0 0 \(modules) \(modules)" shape-rendering="crispEdges">
            <title>\(Self.xmlEscaped(text))</title>
            <rect width="\(modules)" height="\(modules)" fill="#fff"/>
            <path fill="#000" d="\(path)"/>
            </svg>

            """
    }

    /// Text as XML character data or an attribute value (XML 1.0 §2.4, §2.2): & < > " ' as entity references;
    /// a character XML 1.0 does not allow at all (C0 controls other than tab, line feed and carriage return;
    /// U+FFFE, U+FFFF) as U+FFFD, since not even a character reference may stand for it.
    static func xmlEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A number of hundredths written as a decimal without trailing zeros: 4000 → "40", 1250 → "12.5".
    static func decimal(hundredths: Int) -> String {
        let whole = "\(hundredths / 100)"
        let fraction = hundredths % 100
        if fraction == 0 { return whole }
        return whole + "." + (fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)"))
    }
}
