/// CSV (RFC 4180): fields separated by ",", records by CRLF or LF, fields with ",", '"', CR or
/// LF quoted with '"' and inner quotes doubled.
public enum CSVFormat {
    public struct Record: Sendable, Equatable {
        /// 1-based line on which the record starts.
        public let line: Int
        public let fields: [String]
    }

    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var fieldWasQuoted = false
        let bytes = Array(text.utf8)
        var i = 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append(Record(line: recordLine, fields: fields)) }
            fields.removeAll(keepingCapacity: true)
        }
        while i < bytes.count {
            let b = bytes[i]
            if inQuotes {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(b)
                        i += 2
                        continue
                    }
                    inQuotes = false
                } else {
                    if b == UInt8(ascii: "\n") { line += 1 }
                    field.append(b)
                }
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: ","): endField()
            case UInt8(ascii: "\""):
                guard field.isEmpty, !fieldWasQuoted else { throw ParseError(line: line, message: "a quote inside an unquoted field") }
                inQuotes = true
                fieldWasQuoted = true
            case UInt8(ascii: "\r"):
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\n") else { throw ParseError(line: line, message: "a carriage return not followed by a line feed") }
            case UInt8(ascii: "\n"):
                endRecord()
                line += 1
                recordLine = line
            default:
                guard !fieldWasQuoted else { throw ParseError(line: line, message: "characters after a closing quote") }
                field.append(b)
            }
            i += 1
        }
        if inQuotes { throw ParseError(line: recordLine, message: "a quoted field is not closed") }
        endRecord()
        return records
    }

    /// One record, quoting only the fields that need it.
    public static func format(_ fields: [String]) -> String {
        fields.map { f in
            f.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + f.replacingAll("\"", with: "\"\"") + "\"" : f
        }.joined(separator: ",")
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
