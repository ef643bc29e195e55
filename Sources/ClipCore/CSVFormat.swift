/// CSV (RFC 4180): fields separated by ",", records by CRLF or LF, fields with ",", '"', CR or
/// LF quoted with '"' and inner quotes doubled.
public enum CSVFormat {
    public struct Record: Sendable, Equatable {
        /// 1-based line on which the record starts.
        public let line: Int
        public let fields: [String]
        /// False when a field held bytes that are not UTF-8 (they read as U+FFFD in `fields`).
        public var isValidUTF8: Bool = true
        public init(line: Int, fields: [String], isValidUTF8: Bool = true) {
            self.line = line
            self.fields = fields
            self.isValidUTF8 = isValidUTF8
        }
    }

    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> [Record] {
        var parser = Parser()
        var records: [Record] = []
        try parser.feed(Array(text.utf8)[...]) { records.append($0) }
        try parser.finish { records.append($0) }
        return records
    }

    /// The same grammar fed in chunks of any size, so a file never needs to be in memory whole:
    /// each record is handed to `emit` as soon as its line ends. A blank line is no record.
    public struct Parser: Sendable {
        private var fields: [String] = []
        private var field: [UInt8] = []
        private var line = 1
        private var recordLine = 1
        private var inQuotes = false
        private var fieldWasQuoted = false
        /// Inside quotes, a '"' whose meaning ('""' or the closing quote) the next byte decides.
        private var quotePending = false
        /// A CR that must be followed by LF.
        private var crPending = false
        private var recordIsUTF8 = true

        public init() {}

        private mutating func endField() {
            if let text = String(validating: field, as: UTF8.self) {
                fields.append(text)
            } else {
                fields.append(String(decoding: field, as: UTF8.self))
                recordIsUTF8 = false
            }
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }

        private mutating func endRecord(_ emit: (Record) -> Void) {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { emit(Record(line: recordLine, fields: fields, isValidUTF8: recordIsUTF8)) }
            fields.removeAll(keepingCapacity: true)
            recordIsUTF8 = true
        }

        public mutating func feed(_ bytes: ArraySlice<UInt8>, _ emit: (Record) -> Void) throws(ParseError) {
            for i in bytes.indices {
                let b = bytes[i]
                if quotePending {
                    quotePending = false
                    if b == UInt8(ascii: "\"") {
                        field.append(b)
                        continue
                    }
                    inQuotes = false  // it was the closing quote: `b` is read outside the quotes
                }
                if crPending {
                    crPending = false
                    guard b == UInt8(ascii: "\n") else {
                        throw ParseError(line: line, message: "a carriage return not followed by a line feed")
                    }
                }
                if inQuotes {
                    if b == UInt8(ascii: "\"") {
                        quotePending = true
                    } else {
                        if b == UInt8(ascii: "\n") { line += 1 }
                        field.append(b)
                    }
                    continue
                }
                switch b {
                case UInt8(ascii: ","): endField()
                case UInt8(ascii: "\""):
                    guard field.isEmpty, !fieldWasQuoted else { throw ParseError(line: line, message: "a quote inside an unquoted field") }
                    inQuotes = true
                    fieldWasQuoted = true
                case UInt8(ascii: "\r"): crPending = true
                case UInt8(ascii: "\n"):
                    endRecord(emit)
                    line += 1
                    recordLine = line
                default:
                    guard !fieldWasQuoted else { throw ParseError(line: line, message: "characters after a closing quote") }
                    field.append(b)
                }
            }
        }

        /// The end of the input: the last record, which needs no line break.
        public mutating func finish(_ emit: (Record) -> Void) throws(ParseError) {
            if quotePending {
                quotePending = false
                inQuotes = false
            }
            if crPending { throw ParseError(line: line, message: "a carriage return not followed by a line feed") }
            if inQuotes { throw ParseError(line: recordLine, message: "a quoted field is not closed") }
            endRecord(emit)
        }
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
