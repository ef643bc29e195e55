/// A redirect, which no request of this project follows (docs/operations.md#outbound-requests): the answer is the
/// 3xx itself. Following would send a webhook's signed body, or `clipctl --server`'s token, wherever the
/// `Location` points, and Apple's bot does not follow one for an AASA file either (TN3155). Every status of the
/// 3xx class is one but 304 Not Modified, which points nowhere (RFC 9110 §15.4, §15.4.5).
public struct Redirect: Sendable, Equatable {
    public let status: Int
    /// Where it points, as sent; nil when the answer has no `Location`.
    public let location: String?

    /// The redirect an answer of `status` with `location` is; nil for any other answer.
    public init?(status: Int, location: String?) {
        guard (300...399).contains(status), status != 304 else { return nil }
        self.status = status
        self.location = location
    }

    /// `location` as it may be stored and printed (`OutboundHTTP.printable`, a URL: no space kept).
    public var shownLocation: String? { location.map { OutboundHTTP.printable($0, keepingSpace: false) } }
}
