import ClipCore
import StrictJSON

/// An answer that is not the shape this client expects (a server of another version, or not a
/// Clip Registry at all).
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "unexpected answer: \(message)" }
}

/// Reads the members of one object of an answer, naming the object in errors.
struct WireReader {
    let value: JSONValue
    let what: String

    init(_ value: JSONValue, _ what: String) {
        self.value = value
        self.what = what
    }

    func fail(_ key: String) -> WireError { WireError("\(what): \(key) is missing or malformed") }

    func string(_ key: String) throws(WireError) -> String {
        guard let s = value[key]?.stringValue else { throw fail(key) }
        return s
    }

    /// A string member that must be one of `T`'s raw values.
    func value<T: RawRepresentable>(_ key: String, as type: T.Type) throws(WireError) -> T where T.RawValue == String {
        guard let t = T(rawValue: try string(key)) else { throw fail(key) }
        return t
    }

    func optionalString(_ key: String) throws(WireError) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw fail(key)
        }
    }

    /// A moment in the one form the registry answers (`Instant`), or null.
    func optionalInstant(_ key: String) throws(WireError) -> Instant? {
        guard let text = try optionalString(key) else { return nil }
        guard let instant = Instant(canonical: Array(text.utf8)) else { throw fail(key) }
        return instant
    }

    func int(_ key: String) throws(WireError) -> Int {
        guard case .integer(let n)? = value[key], let i = Int(exactly: n) else { throw fail(key) }
        return i
    }

    func int64(_ key: String) throws(WireError) -> Int64 {
        guard case .integer(let n)? = value[key] else { throw fail(key) }
        return n
    }

    func optionalInt64(_ key: String) throws(WireError) -> Int64? {
        switch value[key] {
        case nil, .null?: return nil
        case .integer(let n)?: return n
        default: throw fail(key)
        }
    }

    func strings(_ key: String) throws(WireError) -> [String] {
        guard let items = value[key]?.arrayValue else { throw fail(key) }
        return try items.map { (item) throws(WireError) in
            guard let s = item.stringValue else { throw fail(key) }
            return s
        }
    }

    func int64s(_ key: String) throws(WireError) -> [Int64] {
        guard let items = value[key]?.arrayValue else { throw fail(key) }
        return try items.map { (item) throws(WireError) in
            guard case .integer(let n) = item else { throw fail(key) }
            return n
        }
    }

    func team(_ key: String) throws(WireError) -> TeamID {
        do { return try TeamID(try string(key)) } catch { throw fail(key) }
    }

    func optionalTeam(_ key: String) throws(WireError) -> TeamID? {
        do { return try optionalString(key).map { try TeamID($0) } } catch { throw fail(key) }
    }

    func bundle(_ key: String) throws(WireError) -> BundleID {
        do { return try BundleID(try string(key)) } catch { throw fail(key) }
    }

    func clip(_ key: String) throws(WireError) -> AppID {
        do { return try AppID(try string(key)) } catch { throw fail(key) }
    }

    func optionalAppStoreID(_ key: String) throws(WireError) -> AppStoreID? {
        do { return try optionalString(key).map { try AppStoreID($0) } } catch { throw fail(key) }
    }
}
