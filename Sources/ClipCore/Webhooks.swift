import FileFormats
public import StrictJSON

/// The kinds of event a webhook endpoint can subscribe to (README "Webhooks").
public enum WebhookEventType: String, Sendable, CaseIterable {
    case experienceCreated = "experience.created"
    case experienceUpdated = "experience.updated"
    case experienceDeleted = "experience.deleted"
    /// An active experience's window opened: it is served from now on (docs/schedules.md#the-scheduler).
    case experienceLive = "experience.live"
    /// An active experience's window closed: it is no longer served.
    case experienceEnded = "experience.ended"
    /// A campaign started: its changes are made (docs/schedules.md#campaigns).
    case campaignStarted = "campaign.started"
    /// A campaign ended, or was cancelled while it ran: its changes are undone.
    case campaignEnded = "campaign.ended"
    /// A host's apple-app-site-association changed: its host and new ETag (what a CDN purge needs).
    case aasaChanged = "aasa.changed"
    /// `clipctl serve`'s watch found the site or Apple's CDN serving a host's changed AASA, and after how long.
    case aasaPropagated = "aasa.propagated"
    /// An App Store Connect apply finished: what it did.
    case ascApplied = "asc.applied"
    /// `clipctl asc testflight apply` finished a clip: what it did to which build's App Clip invocations.
    case ascTestflightApplied = "asc.testflight.applied"
    /// Sent by `webhook test` only; every endpoint receives it whatever its patterns.
    case webhookTest = "webhook.test"

    /// The experience event of a change record's action (create, remove, everything else an update).
    public static func experience(_ action: ChangeAction) -> WebhookEventType {
        switch action {
        case .create: .experienceCreated
        case .remove: .experienceDeleted
        default: .experienceUpdated
        }
    }
}

/// An endpoint's subscription: a list of patterns, each an event type (`aasa.changed`), a family
/// (`experience.*`: every type before whose last dot is `experience`) or `*` (every type).
public struct WebhookEventPatterns: Sendable, Equatable, CustomStringConvertible {
    public let patterns: [String]

    /// Parses a comma-separated list; refuses an empty list and a pattern that matches no type.
    public init(_ text: String, field: String = "events") throws(ValidationFailure) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
        guard !text.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw ValidationFailure(
                field: field, rule: "events.format", message: "give event types separated by commas, such as experience.*,aasa.changed")
        }
        var unique: [String] = []
        for part in parts where !unique.contains(part) {
            guard Self.known(part) else {
                let known = WebhookEventType.allCases.filter { $0 != .webhookTest }.map(\.rawValue).joined(separator: ", ")
                throw ValidationFailure(
                    field: field, rule: "events.unknown",
                    message: "\"\(part.truncatedForMessage)\" matches no event type (known: \(known), a family such as experience.*, or *)")
            }
            unique.append(part)
        }
        patterns = unique
    }

    static func known(_ pattern: String) -> Bool {
        WebhookEventType.allCases.contains { $0 != .webhookTest && Self.matches(pattern, $0.rawValue) }
    }

    static func matches(_ pattern: String, _ type: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasSuffix(".*") { return type.hasPrefix(pattern.dropLast()) }
        return pattern == type
    }

    /// Whether an event of `type` is for this subscription (a test event always is).
    public func matches(_ type: WebhookEventType) -> Bool {
        type == .webhookTest || patterns.contains { Self.matches($0, type.rawValue) }
    }

    public var description: String { patterns.joined(separator: ",") }
}

/// What the body of each kind of event is: the Standard Webhooks envelope (`type`, `timestamp`,
/// `data`; https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#payload-structure).
public enum WebhookPayload {
    public static func envelope(type: WebhookEventType, timestamp: String, data: JSONValue) -> JSONValue {
        .object([("type", .string(type.rawValue)), ("timestamp", .string(timestamp)), ("data", data)])
    }

    /// An experience event's data from the experience as its change record keeps it (ClipStore's audit
    /// form): id, url, team, clip, version, status, and for `experience.updated` the members the change
    /// set (`ChangeRecord.changedMembers`), so that a receiver knows what changed without asking.
    /// nil for an update that changed none of them: no event says "something changed" about nothing.
    public static func experience(_ type: WebhookEventType, before: JSONValue?, after: JSONValue?) -> JSONValue? {
        guard let object = after ?? before else { return nil }
        let clip = object["clip"]?.stringValue
        let team = clip.flatMap { try? AppID($0) }.map { JSONValue.string($0.team.rawValue) } ?? .null
        var members: [(key: String, value: JSONValue)] = [
            ("id", object["id"] ?? .null), ("url", object["url"] ?? .null), ("team", team), ("clip", object["clip"] ?? .null),
            ("version", object["version"] ?? .null), ("status", object["status"] ?? .null),
        ]
        if type == .experienceUpdated {
            let changed = ChangeRecord.changedMembers(before: before, after: after)
            guard !changed.isEmpty else { return nil }
            members.append(("changed", .array(changed.map(JSONValue.string))))
        }
        return .object(members)
    }

    /// `aasa.changed`: the host and the ETag its AASA is now served with (nil: the host has no AASA any more).
    public static func aasaChanged(host: String, etag: String?) -> JSONValue {
        .object([("host", .string(host)), ("etag", etag.map(JSONValue.string) ?? .null), ("removed", .bool(etag == nil))])
    }
}

extension WebhookPayload {
    /// `aasa.propagated`: where (`site` or `apple-cdn`) the host's changed file was first seen served, the delay from
    /// the change in seconds, and the ETag of the file that propagated.
    public static func aasaPropagated(host: String, place: String, delaySeconds: Int64, changedAt: String, etag: String?) -> JSONValue {
        .object([
            ("host", .string(host)), ("where", .string(place)), ("delaySeconds", .integer(delaySeconds)), ("changedAt", .string(changedAt)),
            ("etag", etag.map(JSONValue.string) ?? .null),
        ])
    }
}

/// Standard Webhooks signatures
/// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#signature-scheme):
/// HMAC-SHA256 over `msg_id.timestamp.payload` with the secret's bytes, sent as `v1,` and its base 64.
public enum WebhookSignature {
    /// The prefix of a secret given out: `whsec_` then the key's base 64.
    public static let secretPrefix = "whsec_"
    /// The spec asks for keys of 24 to 64 bytes; ours are 32.
    public static let keyBytes = 32

    /// The bytes that are signed: `id.timestamp.body`.
    public static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    /// The `webhook-signature` header value of one signature.
    public static func header(hmac: [UInt8]) -> String { "v1," + Base64.encode(hmac) }

    /// A secret's key: the base 64 after `whsec_`; nil when the text is not one.
    public static func key(secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix), let key = Base64.decode(String(secret.dropFirst(secretPrefix.count))), key.count >= 24
        else { return nil }
        return key
    }

    public static func secret(key: [UInt8]) -> String { secretPrefix + Base64.encode(key) }
}

/// When a failed delivery is tried again: the delays Standard Webhooks suggests
/// (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 27 h 35 min in all,
/// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#retry-schedule),
/// each stretched or shrunk by up to 10 % at random so that endpoints that failed together are not
/// all retried together (at least 24.8 h in all). After the last, the endpoint is marked failing.
public struct WebhookRetrySchedule: Sendable, Equatable {
    /// Milliseconds to wait after the first, second, … failure.
    public let delaysMilliseconds: [Int64]
    public static let standard = WebhookRetrySchedule(
        delaysMilliseconds: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map { $0 * 1_000 })
    /// The jitter: each delay is multiplied by a factor in 1 ± this.
    public static let jitter = 0.1

    public init(delaysMilliseconds: [Int64]) { self.delaysMilliseconds = delaysMilliseconds }

    /// The wait after failure number `failures` (1 for the first), with `unit` a random number in
    /// [0, 1) choosing the jitter; nil when the schedule is spent (give up).
    public func delay(afterFailure failures: Int, unit: Double) -> Int64? {
        guard failures >= 1, failures <= delaysMilliseconds.count else { return nil }
        let base = Double(delaysMilliseconds[failures - 1])
        let factor = 1 + Self.jitter * (2 * min(max(unit, 0), 1) - 1)
        return Int64((base * factor).rounded())
    }

    /// The total of the delays with no jitter.
    public var totalMilliseconds: Int64 { delaysMilliseconds.reduce(0, +) }
}

/// An IP address, version 4 or 6, as bytes.
public enum IPAddress: Sendable, Equatable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    /// A host that is an IPv4 address in any form the C library's `inet_aton` (and so
    /// `getaddrinfo` and URL libraries) accepts: one to four parts, each decimal, octal (leading 0)
    /// or hexadecimal (0x), the last part filling the remaining bytes (`127.1`, `0x7f000001`,
    /// `2130706433`, `0177.0.0.1`). Such a host names the address whatever else it looks like.
    public static func parseIPv4(_ text: String) -> IPAddress? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            var digits = Substring(part.lowercased())
            var radix = 10
            if digits.hasPrefix("0x") {
                radix = 16
                digits = digits.dropFirst(2)
                if digits.isEmpty { values.append(0); continue }
            } else if digits.count > 1 && digits.hasPrefix("0") {
                radix = 8
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.count <= 12, let value = UInt64(digits, radix: radix) else { return nil }
            values.append(value)
        }
        let lastLimit = UInt64(1) << (8 * UInt64(5 - values.count))
        guard values.dropLast().allSatisfy({ $0 <= 255 }), values.last! < lastLimit else { return nil }
        var bytes = values.dropLast().map { UInt8($0) }
        let last = values.last!
        for k in (0..<(5 - values.count)).reversed() { bytes.append(UInt8((last >> (8 * UInt64(k))) & 0xFF)) }
        return .v4(bytes)
    }

    /// An IPv6 address in RFC 4291 §2.2 text form (`::` once, an IPv4 tail allowed); a zone (`%eth0`) is refused.
    public static func parseIPv6(_ text: String) -> IPAddress? {
        guard !text.isEmpty, text.utf8.count <= 45, !text.contains("%") else { return nil }
        let halves = text.splittingOnDoubleColon()
        guard halves.count <= 2 else { return nil }
        func groups(_ s: String, allowTail: Bool) -> [UInt8]? {
            if s.isEmpty { return [] }
            let pieces = s.split(separator: ":", omittingEmptySubsequences: false)
            var out: [UInt8] = []
            for (i, piece) in pieces.enumerated() {
                if allowTail && i == pieces.count - 1 && piece.contains(".") {
                    // Only the dotted-decimal form here (RFC 4291 §2.2 form 3).
                    let octets = piece.split(separator: ".", omittingEmptySubsequences: false)
                    guard octets.count == 4 else { return nil }
                    for o in octets {
                        guard !o.isEmpty, o.count <= 3, o.allSatisfy(\.isASCII), let v = UInt8(o) else { return nil }
                        out.append(v)
                    }
                    continue
                }
                guard (1...4).contains(piece.count), let v = UInt16(piece, radix: 16) else { return nil }
                out += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            return out
        }
        if halves.count == 1 {
            guard let all = groups(text, allowTail: true), all.count == 16 else { return nil }
            return .v6(all)
        }
        guard let head = groups(halves[0], allowTail: false), let tail = groups(halves[1], allowTail: true), head.count + tail.count <= 14
        else { return nil }
        return .v6(head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail)
    }

    public var description: String {
        switch self {
        case .v4(let b): return b.map(String.init).joined(separator: ".")
        case .v6(let b):
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
    }
}

/// Which addresses a webhook may be delivered to: only public ones, unless the server allows
/// private targets. The special-purpose ranges are IANA's registries (RFC 6890 and the
/// IPv4/IPv6 Special-Purpose Address Registries).
public enum WebhookTarget {
    public enum AddressKind: String, Sendable, Equatable {
        /// "a loopback address", "an unspecified address".
        public var withArticle: String { ("aeiou".contains(rawValue.first ?? "x") ? "an " : "a ") + rawValue }

        case `public`
        /// 0.0.0.0/8 ("this network", RFC 791/1122), :: (RFC 4291 §2.5.2).
        case unspecified
        /// 127.0.0.0/8 (RFC 1122 §3.2.1.3), ::1 (RFC 4291 §2.5.3).
        case loopback
        /// 10/8, 172.16/12, 192.168/16 (RFC 1918); fc00::/7 unique local (RFC 4193), fec0::/10 site-local (RFC 3879).
        case `private`
        /// 100.64.0.0/10, carrier-grade NAT (RFC 6598).
        case sharedAddressSpace = "shared-address-space"
        /// 169.254/16 (RFC 3927; the cloud metadata service 169.254.169.254 is in it), fe80::/10 (RFC 4291 §2.5.6).
        case linkLocal = "link-local"
        /// 224/4, ff00::/8.
        case multicast
        /// Documentation, benchmarking, IETF protocol assignments, 240/4, broadcast, discard-only, IPv4-compatible.
        case reserved
    }

    /// The kind of an address; an IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:0:0/96,
    /// RFC 4291 §2.5.5.2; NAT64 64:ff9b::/96, RFC 6052; 6to4 2002::/16, RFC 3056) has that address's kind.
    public static func kind(_ address: IPAddress) -> AddressKind {
        switch address {
        case .v4(let b):
            switch (b[0], b[1], b[2]) {
            case (0, _, _): return .unspecified
            case (10, _, _), (172, 16...31, _), (192, 168, _): return .private
            case (100, 64...127, _): return .sharedAddressSpace
            case (127, _, _): return .loopback
            case (169, 254, _): return .linkLocal
            case (192, 0, 0), (192, 0, 2), (198, 18...19, _), (198, 51, 100), (203, 0, 113): return .reserved
            case (224...239, _, _): return .multicast
            case (240...255, _, _): return .reserved
            default: return .public
            }
        case .v6(let b):
            let zero10 = b[0..<10].allSatisfy { $0 == 0 }
            if zero10 && b[10] == 0xFF && b[11] == 0xFF { return kind(.v4(Array(b[12..<16]))) }
            if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return kind(.v4(Array(b[12..<16]))) }
            if b[0] == 0x20 && b[1] == 0x02 { return kind(.v4(Array(b[2..<6]))) }
            if b[0..<15].allSatisfy({ $0 == 0 }) {
                return b[15] == 0 ? .unspecified : b[15] == 1 ? .loopback : .reserved
            }
            if zero10 && b[10] == 0 && b[11] == 0 { return .reserved }  // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1)
            if b[0] & 0xFE == 0xFC { return .private }
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
            if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .private }  // site-local fec0::/10 (deprecated, RFC 3879)
            if b[0] == 0xFF { return .multicast }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved }  // documentation (RFC 3849)
            if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // discard-only (RFC 6666)
            return .public
        }
    }

    /// A webhook URL taken apart: scheme, host (an IPv6 literal without brackets), port, and the
    /// request target (path and query).
    public struct URLParts: Sendable, Equatable {
        public let scheme: String
        public let host: String
        public let port: Int
        public let target: String
        /// The host when it is an address literal (any form `inet_aton` reads, or bracketed IPv6).
        public let address: IPAddress?
        /// The URL had a `#fragment` (not part of `target`: never sent).
        public let hadFragment: Bool

        /// The URL as it is stored, listed and called (docs/rules.md#webhook-urls): scheme and
        /// host lower-case, an IPv4 literal in dotted decimal, the scheme's default port dropped,
        /// the path `/` when empty, no fragment.
        public var normalized: String {
            let hostText: String
            switch address {
            case .v6?: hostText = "[\(host)]"
            case .v4?: hostText = address!.description
            case nil: hostText = host
            }
            let defaultPort = scheme == "https" ? 443 : 80
            return "\(scheme)://\(hostText)\(port == defaultPort ? "" : ":\(port)")\(target)"
        }
    }

    public static let maxURLBytes = 2_048

    /// Checks a webhook URL: http or https only, printable ASCII (no spaces, controls or invisible
    /// characters), no user information (RFC 3986 §3.2.1: credentials in a URL are refused), a
    /// host, a port in range, and, unless `allowPrivate`, no host that is a loopback, private,
    /// link-local, unspecified or otherwise non-public address literal, nor `localhost` (RFC 6761 §6.3).
    public static func check(_ url: String, allowPrivate: Bool, field: String = "url") throws(ValidationFailure) -> URLParts {
        func refuse(_ rule: String, _ message: String) -> ValidationFailure {
            ValidationFailure(field: field, rule: "webhook-url.\(rule)", message: message)
        }
        let bytes = Array(url.utf8)
        guard !bytes.isEmpty else { throw refuse("required", "a webhook needs a URL") }
        guard bytes.count <= maxURLBytes else { throw refuse("length", "the URL is \(bytes.count) bytes; at most \(maxURLBytes)") }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw refuse(
                "characters", "the URL may hold printable ASCII only (no spaces, controls or invisible characters; percent-encode)")
        }
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            throw refuse("scheme", "the URL must start with http:// or https://")
        }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw refuse("scheme", "only http and https webhooks are sent (got \(scheme.truncatedForMessage):)")
        }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var target = String(rest[authorityEnd...])
        let hash = target.firstIndex(of: "#")
        if let hash { target = String(target[..<hash]) }
        if !target.hasPrefix("/") { target = "/" + target }
        guard !authority.contains("@") else { throw refuse("userinfo", "the URL may not carry a user name or password") }
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("host", "an IPv6 literal needs its closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("host", "unexpected text after the IPv6 literal") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        }
        host = host.lowercased()
        var port = scheme == "https" ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, let p = Int(portText), (1...65535).contains(p) else {
                throw refuse("port", "the port must be a number from 1 to 65535")
            }
            port = p
        }
        guard !host.isEmpty else { throw refuse("host", "the URL has no host") }
        let address: IPAddress?
        if authority.hasPrefix("[") {
            guard let v6 = IPAddress.parseIPv6(host) else { throw refuse("host", "\(host.truncatedForMessage) is not an IPv6 address") }
            address = v6
        } else {
            // A fully qualified name may end in one dot (RFC 1034 §3.1), an address literal too for the resolver:
            // "127.0.0.1." is 127.0.0.1. No other label may be empty.
            let name = host.hasSuffix(".") ? host.dropLast() : Substring(host)
            address = IPAddress.parseIPv4(String(name))
            if address == nil,
                !host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" })
                    || name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            {
                throw refuse("host", "\(host.truncatedForMessage) is not a host name")
            }
        }
        if !allowPrivate {
            if let address, kind(address) != .public {
                throw refuse(
                    "private-target",
                    "\(address) is a \(kind(address).rawValue) address; webhooks go to public addresses only"
                        + " (the server's --allow-private-targets allows others)"
                )
            }
            let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
            if trimmed == "localhost" || trimmed.hasSuffix(".localhost") {
                throw refuse("private-target", "\(host) is the local machine; webhooks go to public addresses only")
            }
        }
        return URLParts(scheme: scheme, host: host, port: port, target: target, address: address, hadFragment: hash != nil)
    }

    /// A new webhook's URL as stored (`URLParts.normalized`), after `check`. A fragment is refused:
    /// it is never sent (RFC 9112 §3.2: a request target has none), so a URL with one does not say
    /// what is called.
    public static func normalize(_ url: String, allowPrivate: Bool, field: String = "url") throws(ValidationFailure) -> String {
        let parts = try check(url, allowPrivate: allowPrivate, field: field)
        guard !parts.hadFragment else {
            throw ValidationFailure(
                field: field, rule: "webhook-url.fragment", message: "a webhook URL cannot have a #fragment: it is never sent")
        }
        return parts.normalized
    }

    /// A stored URL as `normalized` has it, fragment dropped as the sender drops it (endpoints
    /// stored before URLs were normalized); the text as it is when it does not parse.
    public static func normalized(stored url: String) -> String {
        (try? check(url, allowPrivate: true))?.normalized ?? url
    }
}

extension String {
    /// The text around each `::`.
    fileprivate func splittingOnDoubleColon() -> [String] {
        var out: [String] = []
        var current = ""
        var previousColon = false
        for c in self {
            if c == ":" && previousColon {
                current.removeLast()
                out.append(current)
                current = ""
                previousColon = false
                continue
            }
            current.append(c)
            previousColon = c == ":"
        }
        out.append(current)
        return out
    }

    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
