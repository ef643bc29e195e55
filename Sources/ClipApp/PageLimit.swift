public import ClipCore

/// A list's page size, its `limit` argument (docs/http-api.md: cursor pagination): a whole number from 1 to 1000,
/// written in decimal digits alone; each list has its own default. The one rule of every paginated route and command.
public enum PageLimit {
    /// The largest page: what a command that reads every page asks for.
    public static let largest = 1000
    public static let range = 1...largest
    /// The field error of a `limit` that is not a page size.
    public static let invalid = FieldError(
        field: "limit", rule: "range", message: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")

    /// The page size `text` gives; nil when it is not one (other than digits alone, or out of range).
    public static func value(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text), range.contains(n) else { return nil }
        return n
    }

    /// `limit` as the lists that answer its refusal alone read it: 422 saying "limit is out of range" with the
    /// field error (`InvalidArguments`); `fallback` when it is absent.
    public static func read(_ text: String?, fallback: Int) throws(InvalidArguments) -> Int {
        guard let text else { return fallback }
        guard let n = value(text) else { throw InvalidArguments("limit is out of range", [invalid]) }
        return n
    }
}

extension ArgumentReader {
    /// `limit` read with the input's other arguments, its field error kept with theirs (`PageLimit`); `fallback`
    /// when it is absent or refused.
    public mutating func pageLimit(fallback: Int) -> Int {
        guard let text = arguments["limit"] else { return fallback }
        guard let n = PageLimit.value(text) else {
            fail(PageLimit.invalid.field, PageLimit.invalid.rule, PageLimit.invalid.message)
            return fallback
        }
        return n
    }
}
