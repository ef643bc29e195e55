/// Minimal JSON text for the server's own error answers (RFC 9457 problem details).
enum ProblemJSON {
    static func problem(status: Int, detail: String) -> String {
        "{\"type\":\"about:blank\",\"title\":\"\(escape(HTTPStatus.reason(status)))\",\"status\":\(status),\"detail\":\"\(escape(detail))\"}"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
