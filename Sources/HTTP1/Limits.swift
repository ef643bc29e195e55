/// Every limit of the server in one value, with safe defaults (docs/rules.md#http-limits).
public struct HTTPLimits: Sendable {
    /// Longest request line (method, target, version); longer → 414 and close.
    public var maxRequestLineBytes = 8 * 1024
    /// Whole request head (request line and header fields); larger → 431 and close.
    public var maxHeaderBytes = 32 * 1024
    /// Number of header fields; more → 431 and close.
    public var maxHeaderCount = 100
    /// Request body; larger → 413 (before any of it is read) and close.
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Open connections. At the cap a connection with nothing more to say, or the slowest to send
    /// its head, is closed to make room (`EventThread.arrive`); when none qualifies the newcomer
    /// gets 503 and is closed. By default what the descriptor limit and memory allow
    /// (`ConnectionBudget`).
    public var maxConnections = HTTPLimits.defaultMaxConnections
    /// For a whole request head: from the moment the connection waits for a request (accepted, or
    /// its previous answer written) to the head's last byte, whatever arrives meanwhile; slower →
    /// 408 and close (slowloris: a byte now and then never extends it).
    public var headDeadlineSeconds = 10.0
    /// For the whole body; slower → 408 and close.
    public var bodyDeadlineSeconds = 30.0
    /// After `bodyGraceSeconds` from its head, a body must average this many bytes a second;
    /// slower → 408 and close, so a body stalled or dripped holds a connection for seconds, not
    /// `bodyDeadlineSeconds`. 0 turns the rate off.
    public var minimumBodyBytesPerSecond = 1024
    /// How long a body may send nothing before `minimumBodyBytesPerSecond` applies.
    public var bodyGraceSeconds = 5.0
    /// A kept-alive connection with no new request for this long is closed.
    public var idleTimeoutSeconds = 5.0
    /// A response not taken by the client within this long ends the connection.
    public var writeTimeoutSeconds = 30.0

    public init() {}

    /// `ConnectionBudget.current().maxConnections`, found once (the soft descriptor limit raised).
    public static let defaultMaxConnections = ConnectionBudget.current().maxConnections
}
