import ClipCore
public import ClipWire
public import StrictJSON

/// One thing the registry does, declared once (docs/application-layer.md#operations-and-bindings): who may
/// call it, its typed input, its output and what it does in a session. The HTTP API serves it at
/// its route and `clipctl` runs it as a command, on a database or by sending the route's request
/// to a server, from this one declaration.
public protocol Operation: SendableMetatype {
    associatedtype Input: OperationInput
    associatedtype Output: OperationOutput
    static var callers: CallerRule { get }
    /// Whether `run` evaluates `If-Match` and `If-None-Match` against the object's entity tag
    /// (`Arguments.replacePreconditions`, `existingPreconditions`); when not, a PUT, PATCH or DELETE
    /// is checked as a write on an object without one (`Arguments.untaggedPreconditions`).
    static var evaluatesPreconditions: Bool { get }
    /// Whether `run` waits on other servers (a site, Apple's CDN, App Store Connect): the server then runs
    /// it on threads of their own, so that however long it waits the API's other requests never wait
    /// for it (docs/operations.md#outbound-requests).
    static var waitsOnOthers: Bool { get }
    static func run(_ input: Input, in session: Session) throws -> Output
}

/// An operation's input: read from named arguments with every field error kept, and written back
/// to them to send the operation to a server.
public protocol OperationInput: Sendable {
    init(reading reader: inout ArgumentReader)
    var arguments: Arguments { get }
    /// The input's declared fields (`DeclaredInput`); nil for an input that reads its arguments by hand.
    static var fieldFacts: [FieldFacts]? { get }
}

/// An operation's output: the JSON the API answers and `--json` prints, and read back from it by a
/// `clipctl` that sent the operation to a server.
public protocol OperationOutput: SendableMetatype {
    var json: JSONValue { get }
    init(json: JSONValue) throws(WireError)
    /// The answer's status when it is not the binding's (201 for a PUT that created).
    var status: Int? { get }
    /// The answer's header fields (`ETag`, `Location`).
    var headers: [(name: String, value: String)] { get }
    /// Read back from a server's answer and its status (a PUT's 201 says it created).
    init(json: JSONValue, status: Int) throws(WireError)
    /// Read back for a command's presentation, with what the command read before it sent the
    /// operation (`OperationAnswer.commandRead`: a 204's object, the version before an update).
    init(answer: OperationAnswer) throws(WireError)
    /// Whether a server's answer is this output rather than a failure: a 2xx, and for some
    /// operations a status of its own (a resolve's miss: a 404 problem that carries it).
    static func isOutput(_ answer: OperationAnswer) -> Bool
}

extension OperationOutput {
    public var status: Int? { nil }
    public var headers: [(name: String, value: String)] { [] }
    public init(json: JSONValue, status: Int) throws(WireError) { try self.init(json: json) }
    public init(answer: OperationAnswer) throws(WireError) { try self.init(json: answer.json, status: answer.status) }
    public static func isOutput(_ answer: OperationAnswer) -> Bool { (200..<300).contains(answer.status) }
}

/// Bytes of a media type answered instead of JSON: an AASA file, an HTML page, a QR code, an NDEF message.
public struct OperationContent: Sendable, Equatable {
    public var bytes: [UInt8]
    /// The `Content-Type` they are sent with (RFC 9110 §8.3).
    public var type: String
    public init(bytes: [UInt8], type: String) {
        self.bytes = bytes
        self.type = type
    }
}

/// An output that is bytes rather than JSON: the API sends them with their `Content-Type` and the
/// output's headers; a `clipctl` that sent the operation to a server reads them back with the
/// answer's status and header fields (names lower-cased).
public protocol OperationContentOutput: OperationOutput {
    var content: OperationContent { get }
    init(content: OperationContent, status: Int, headers: [(name: String, value: String)]) throws(WireError)
}

extension OperationContentOutput {
    public var json: JSONValue { .null }
    public init(json: JSONValue) throws(WireError) { throw WireError("the answer is bytes, not JSON") }
    public init(answer: OperationAnswer) throws(WireError) {
        guard let content = answer.content else { throw WireError("the answer has no content") }
        try self.init(content: content, status: answer.status, headers: answer.headers)
    }
}

/// Bytes an output writes as it makes them rather than holding them whole (an export of every
/// experience): `write` hands them to `emit` piece by piece, once. A command prints them as they come;
/// the API answers them with their `Content-Type`; a `clipctl` that sent the operation to a server
/// reads them back as one piece. `@unchecked Sendable`: written once, on the thread that runs the
/// command or answers the request, in the session that made it.
public final class OperationStream: @unchecked Sendable {
    /// The `Content-Type` they are sent with (RFC 9110 §8.3).
    public let type: String
    private let writer: (_ emit: (ArraySlice<UInt8>) throws -> Void) throws -> Void

    public init(type: String, write: @escaping (_ emit: (ArraySlice<UInt8>) throws -> Void) throws -> Void) {
        self.type = type
        self.writer = write
    }

    /// Bytes already whole (a server's answer), as a stream of one piece.
    public convenience init(_ content: OperationContent) {
        self.init(type: content.type) { emit in try emit(content.bytes[...]) }
    }

    public func write(_ emit: (ArraySlice<UInt8>) throws -> Void) throws { try writer(emit) }

    /// Every piece, whole: what the API answers.
    public func bytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try write { bytes += $0 }
        return bytes
    }
}

/// An output that is bytes written as they are made (`OperationStream`) rather than JSON.
public protocol OperationStreamOutput: OperationOutput {
    var stream: OperationStream { get }
    init(stream: OperationStream, status: Int, headers: [(name: String, value: String)]) throws(WireError)
}

extension OperationStreamOutput {
    public var json: JSONValue { .null }
    public init(json: JSONValue) throws(WireError) { throw WireError("the answer is bytes, not JSON") }
    public init(answer: OperationAnswer) throws(WireError) {
        guard let stream = answer.stream ?? answer.content.map(OperationStream.init) else { throw WireError("the answer has no content") }
        try self.init(stream: stream, status: answer.status, headers: answer.headers)
    }
}

/// The output of an operation that answers nothing (HTTP 204 No Content, RFC 9110 §15.3.5: no body).
public struct NoContent: OperationOutput {
    public init() {}
    public var json: JSONValue { .null }
    public var status: Int? { 204 }
    public init(json: JSONValue) throws(WireError) {}
}

/// What an operation answers, as the HTTP API sends it and a remote `clipctl` reads it back.
public struct OperationAnswer: Sendable {
    public var json: JSONValue
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// What the command read before it sent the operation (`Arguments.commandRead`), for its
    /// presentation; never part of an HTTP answer.
    public var commandRead: JSONValue?
    /// The answer's bytes when they are not `json` (`OperationContentOutput`).
    public var content: OperationContent?
    /// The answer's bytes as they are made (`OperationStreamOutput`), on the database or in the API.
    public var stream: OperationStream?
    /// The server that answered, such as `https://registry.example`; nil on a database. A page sent to
    /// `--server` makes its links absolute on it (`preview`).
    public var origin: String?

    public init(
        json: JSONValue, status: Int, headers: [(name: String, value: String)] = [], commandRead: JSONValue? = nil,
        content: OperationContent? = nil, stream: OperationStream? = nil
    ) {
        self.json = json
        self.status = status
        self.headers = headers
        self.commandRead = commandRead
        self.content = content
        self.stream = stream
    }
}

extension Operation {
    /// Reads the input (every field error at once), admits the caller and runs.
    public static var evaluatesPreconditions: Bool { false }
    public static var waitsOnOthers: Bool { false }

    /// `method`: the route's, for the preconditions of a write (nil: none checked here).
    public static func perform(_ arguments: Arguments, in session: Session, method: String? = nil) throws -> Output {
        try session.admit(callers)
        var reader = ArgumentReader(arguments, caller: session.caller)
        let input = Input(reading: &reader)
        try reader.finish()
        if let method, !evaluatesPreconditions { try arguments.untaggedPreconditions(method: method) }
        return try run(input, in: session)
    }
}

/// Where a command prints: standard output and standard error.
public struct Printer {
    public let out: (String) -> Void
    public let err: (String) -> Void
    /// Standard output is a terminal (a person reads it, rather than a pipe or a file).
    public let outIsTerminal: Bool
    /// Standard error is a terminal: a command said how far it went there (`CommandLine.progress`).
    public let errIsTerminal: Bool

    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, outIsTerminal: Bool = false, errIsTerminal: Bool = false
    ) {
        self.out = out
        self.err = err
        self.outIsTerminal = outIsTerminal
        self.errIsTerminal = errIsTerminal
    }

    public func line(_ text: String = "") { out(text + "\n") }
}
