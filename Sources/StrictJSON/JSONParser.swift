/// A strict RFC 8259 parser over bytes: UTF-8 validated, no trailing commas, no comments, no
/// duplicate object keys, no lone surrogates, bounded nesting depth. Errors give the byte offset,
/// line and column, so that a client learns where its document went wrong.
public struct JSONParser {
    public struct Limits: Sendable {
        /// Arrays and objects nested deeper than this are refused (a stack-overflow defence).
        public var maxDepth = 64
        public init() {}
    }

    public struct ParseError: Error, CustomStringConvertible, Equatable, Sendable {
        public let message: String
        public let offset: Int
        public let line: Int
        public let column: Int
        public var description: String { "\(message) at line \(line), column \(column)" }
    }

    public static func parse(_ text: String, limits: Limits = Limits()) throws(ParseError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(ParseError) -> JSONValue {
        var parser = Cursor(bytes: bytes, limits: limits)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    struct Cursor {
        let bytes: [UInt8]
        let limits: Limits
        var index = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        func error(_ message: String, at offset: Int? = nil) -> ParseError {
            let end = min(offset ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<end where bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            return ParseError(message: message, offset: end, line: line, column: end - lineStart + 1)
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
        }

        mutating func expectLiteral(_ literal: String, _ value: JSONValue) throws(ParseError) -> JSONValue {
            let utf8 = Array(literal.utf8)
            guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
                throw error("invalid literal")
            }
            index += utf8.count
            return value
        }

        mutating func parseValue(depth: Int) throws(ParseError) -> JSONValue {
            guard let c = current else { throw error("unexpected end of input") }
            switch c {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expectLiteral("true", .bool(true))
            case UInt8(ascii: "f"): return try expectLiteral("false", .bool(false))
            case UInt8(ascii: "n"): return try expectLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Self.printable(c))'")
            }
        }

        static func printable(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
        }

        mutating func parseObject(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= limits.maxDepth else { throw error("nesting deeper than \(limits.maxDepth) levels") }
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            var seen = Set<String>()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let keyOffset = index
                let key = try parseString()
                guard seen.insert(key).inserted else { throw error("duplicate key \"\(key)\"", at: keyOffset) }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after key") }
                index += 1
                skipWhitespace()
                members.append((key: key, value: try parseValue(depth: depth)))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                default: throw error("expected ',' or '}' in object")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= limits.maxDepth else { throw error("nesting deeper than \(limits.maxDepth) levels") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: throw error("expected ',' or ']' in array")
                }
            }
        }

        mutating func parseHex4() throws(ParseError) -> UInt16 {
            guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let digit: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        mutating func parseString() throws(ParseError) -> String {
            let start = index
            index += 1
            // Most strings have no escape: their bytes, up to the closing quote, are the string's
            // and become it in one copy. Appending byte by byte to a growing array, then copying
            // that, was 28k instructions a line of a 20k-line import (callgrind: parseString 563 M).
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                // Raw bytes: validate them as UTF-8 (RFC 8259 §8.1).
                guard let s = String(validating: bytes[index..<end], as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                index = end + 1
                return s
            }
            // An escape, a control character or the end of the input: byte by byte from the start.
            var out: [UInt8] = []
            while true {
                guard let c = current else { throw error("unterminated string", at: start) }
                switch c {
                case UInt8(ascii: "\""):
                    index += 1
                    // Raw bytes were copied through; validate them as UTF-8 (RFC 8259 §8.1).
                    guard let s = String(validating: out, as: UTF8.self) else {
                        throw error("invalid UTF-8 in string", at: start)
                    }
                    return s
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let e = current else { throw error("unterminated escape") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        let unit = try parseHex4()
                        var scalar: UInt32
                        if (0xD800...0xDBFF).contains(unit) {
                            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                            else { throw error("lone surrogate in \\u escape") }
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
                            scalar = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(unit) {
                            throw error("lone surrogate in \\u escape")
                        } else {
                            scalar = UInt32(unit)
                        }
                        out.append(contentsOf: Array(String(UnicodeScalar(scalar)!).utf8))
                    default: throw error("invalid escape '\\\(Self.printable(e))'")
                    }
                default:
                    guard c >= 0x20 else { throw error("unescaped control character in string") }
                    out.append(c)
                    index += 1
                }
            }
        }

        mutating func parseNumber() throws(ParseError) -> JSONValue {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            func digits(_ cursor: inout Cursor) -> Int {
                var n = 0
                while let c = cursor.current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                    cursor.index += 1
                    n += 1
                }
                return n
            }
            if current == UInt8(ascii: "0") {
                index += 1
                if let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { throw error("leading zero in number") }
            } else if digits(&self) == 0 {
                throw error("invalid number")
            }
            var isInteger = true
            if current == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard digits(&self) > 0 else { throw error("expected digits after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("expected digits in exponent") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let n = Int64(text) { return .integer(n) }
            guard let d = Double(text), d.isFinite else { throw error("number out of range", at: start) }
            return .double(d)
        }
    }
}
