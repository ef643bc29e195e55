public import ClipCore
public import ClipStore
public import StrictJSON

/// The named text arguments an operation's input is read from: an HTTP request's path parameters
/// and query items, or a command's positionals and options, under the same names, so that a
/// command run locally and the same command sent to a server read one input alike.
public struct Arguments: Sendable, Equatable {
    public private(set) var values: [(name: String, value: String)]
    /// A write's JSON body: the request's, or the one a command builds from its options.
    public var body: JSONValue?
    /// The `If-Match` and `If-None-Match` fields as sent (RFC 9110 §13.1.1, §13.1.2): a request's,
    /// or the version a command read before it writes.
    public var ifMatch: EntityTagList?
    public var ifNoneMatch: EntityTagList?
    /// A request's `Accept` (RFC 9110 §12.5.1), or the media types a command asks a server for when not JSON: a
    /// code's `image/png`.
    public var accept: String?
    /// A request's `Accept-Language` (RFC 9110 §12.5.4), for a page in the caller's language (`GET /preview`).
    public var acceptLanguage: String?
    /// Bytes a command read from a file and hands to a local run of the write, in its transaction
    /// (`--image`); never sent: a command sent to a server uploads them first (`CommandLine.storeImage`).
    public var attachment: [UInt8]?
    /// A route that reads its body as bytes (`Binding.takesBytes`): the body, in `attachment`, and the
    /// `Content-Type` it was declared as (RFC 9110 §8.3), as sent.
    public var contentType: String?
    /// What the command read before it sent the operation, for its presentation
    /// (`OperationAnswer.commandRead`); never sent.
    public var commandRead: JSONValue?
    /// A body read as it comes (`Binding.takesStream`): the request's, or the file a command names.
    public var stream: BodyStream?

    public init(_ values: [(name: String, value: String)] = [], body: JSONValue? = nil) {
        self.values = values
        self.body = body
    }

    /// The last value given for `name` (a repeated query item or option: the last one wins).
    public subscript(_ name: String) -> String? { values.last { $0.name == name }?.value }

    /// Every value given for `name`, in order (a command's repeated positional, a repeated query item).
    public func all(_ name: String) -> [String] { values.filter { $0.name == name }.map(\.value) }

    public mutating func append(_ name: String, _ value: String?) {
        if let value { values.append((name, value)) }
    }

    public static func == (lhs: Arguments, rhs: Arguments) -> Bool {
        lhs.values.elementsEqual(rhs.values) { $0.name == $1.name && $0.value == $1.value } && lhs.body == rhs.body
            && lhs.ifMatch == rhs.ifMatch && lhs.ifNoneMatch == rhs.ifNoneMatch && lhs.attachment == rhs.attachment
            && lhs.commandRead == rhs.commandRead && lhs.accept == rhs.accept && lhs.stream === rhs.stream
            && lhs.acceptLanguage == rhs.acceptLanguage && lhs.contentType == rhs.contentType
    }
}

/// A body read in chunks as the operation takes them, never held whole by the layer (an import of
/// any size): a request's body, or the file or standard input a command names. Read once.
/// `@unchecked Sendable`: read on the one thread that runs the operation.
public final class BodyStream: @unchecked Sendable {
    /// Its media type, lower-cased, without parameters (RFC 9110 §8.3.1); "" when none was given.
    public let type: String
    /// Told how far the operation has gone (an import: the lines it took), as it goes.
    public let progress: (Int) -> Void
    private let nextChunk: () throws -> ArraySlice<UInt8>?

    public init(type: String, progress: @escaping (Int) -> Void = { _ in }, next: @escaping () throws -> ArraySlice<UInt8>?) {
        self.type = type
        self.progress = progress
        self.nextChunk = next
    }

    /// Bytes already whole (a request's body), handed out `chunkBytes` at a time.
    public convenience init(type: String, bytes: [UInt8], chunkBytes: Int) {
        var offset = 0
        self.init(type: type) {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunkBytes)
            defer { offset = end }
            return bytes[offset..<end]
        }
    }

    /// The next chunk; nil at the end.
    public func next() throws -> ArraySlice<UInt8>? { try nextChunk() }

    /// The rest of the body, whole: to send it to a server in one request.
    public func rest() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try next() { bytes += chunk }
        return bytes
    }
}

/// Reads an input's arguments, keeping every field error, so that a caller learns all of them at
/// once (docs/rules.md#field-errors).
public struct ArgumentReader {
    public let arguments: Arguments
    public private(set) var errors: [FieldError] = []
    /// The body's members; a member nobody reads is a field error (`unknown`).
    public let fields: FieldReader
    /// Who the input is read for: a write's team defaults to a team token's own.
    public let caller: Caller
    /// The body was taken whole (`document()`): its members are not checked one by one here.
    private var bodyTakenWhole = false

    public init(_ arguments: Arguments, caller: Caller = .local) {
        self.arguments = arguments
        self.caller = caller
        fields = FieldReader(arguments.body ?? .object([]))
    }

    /// The team a write acts for: the body's `team`, else the path's (an App ID names its team),
    /// else a team token's own; required of an admin token (docs/rules.md#tenancy).
    public func writingTeam(impliedByPath pathTeam: TeamID? = nil) -> TeamID? {
        Self.writingTeam(fields, callerTeam: caller.team, impliedByPath: pathTeam)
    }

    public static func writingTeam(_ fields: FieldReader, callerTeam: TeamID?, impliedByPath pathTeam: TeamID?) -> TeamID? {
        var team: TeamID?
        if let t = fields.string("team") { team = fields.attempt { () throws(ValidationFailure) in try TeamID(t, field: "team") } }
        if let pathTeam, let named = team, named != pathTeam {
            fields.fail("team", "team.mismatch", "is \(named.rawValue), but the path's App ID names team \(pathTeam.rawValue)")
        }
        if team == nil { team = pathTeam ?? callerTeam }
        if team == nil && fields.errors.allSatisfy({ $0.field != "team" }) {
            fields.fail("team", "required", "is required with an admin token")
        }
        return team
    }

    public mutating func fail(_ field: String, _ rule: String, _ message: String) {
        errors.append(FieldError(field: field, rule: rule, message: message))
    }

    /// A text argument; a missing required one is a field error.
    public mutating func string(_ name: String, required: Bool = false) -> String? {
        guard let value = arguments[name] else {
            if required { fail(name, "required", "is required") }
            return nil
        }
        return value
    }

    /// Every value given for `name`, in order (a repeated query item, a variadic positional).
    public mutating func strings(_ name: String) -> [String] {
        arguments.values.filter { $0.name == name }.map(\.value)
    }

    /// A whole number in `range`, written in decimal digits alone (no sign, no spaces).
    public mutating func integer(_ name: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = arguments[name] else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int64(text), range.contains(n) else {
            fail(name, "range", "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return n
    }

    /// The value `body` makes, or nil with its field errors kept.
    public mutating func attempt<T>(_ body: () throws(ValidationFailure) -> T) -> T? {
        do { return try body() } catch {
            errors += error.errors
            return nil
        }
    }

    /// The body as a whole, for an operation whose store reads and checks it with every field
    /// error at once (an experience's `ExperienceJSON.decode`): `fields` then checks nothing.
    public mutating func document() -> JSONValue? {
        bodyTakenWhole = true
        return arguments.body
    }

    /// Throws every error found (`RegistryError.invalid`: HTTP 422, exit 65).
    public func finish() throws(RegistryError) {
        let all = errors + (bodyTakenWhole ? [] : fields.finish())
        if !all.isEmpty { throw RegistryError.invalid(all) }
    }
}

/// Arguments refused with the route's own summary of what is wrong (HTTP 422 with `detail` and the
/// field errors; exit 65): the texts the older routes answered (`limit is out of range`), kept as they were.
public struct InvalidArguments: Error, Equatable {
    public let detail: String
    public let errors: [FieldError]

    public init(_ detail: String, _ errors: [FieldError]) {
        self.detail = detail
        self.errors = errors
    }
}
