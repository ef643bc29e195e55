import ClipStore

/// A write refused by its request's `If-Match` or `If-None-Match` (HTTP 412, RFC 9110 §13.1).
public struct PreconditionFailed: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Arguments {
    /// The preconditions of a write that creates or replaces, checked after the object's
    /// visibility (another team's object never reaches here, so a 412 tells nothing of it).
    /// `current` is the object's version, 0 for one that exists without versions, nil for one that
    /// does not exist: `If-None-Match: *`, or a tag naming the current version (weak comparison),
    /// fails when it exists (RFC 9110 §13.1.2); any `If-Match`, `*` included, fails when it does
    /// not (RFC 9110 §13.1.1); a tag naming another version fails too. Returns the version
    /// `If-Match` named (the current one), for the store to check again under its write lock.
    public func replacePreconditions(kind: String, current: Int?, _ what: String) throws -> Int? {
        if let current, let condition = ifNoneMatch?.condition {
            let matches: Bool
            switch condition {
            case .any: matches = true
            case .tags(let tags): matches = tags.contains { $0.opaque == "\(kind)-v\(current)" }
            }
            if matches { throw PreconditionFailed("\(what) already exists (If-None-Match); read it and retry with If-Match") }
        }
        guard let condition = ifMatch?.condition else { return nil }
        guard let current else { throw PreconditionFailed("If-Match names a version of \(what), which does not exist") }
        guard case .tags = condition else { return nil }
        let expected = try expectedVersion(kind: kind, current: current)
        if let expected, expected != current { throw RegistryError.versionMismatch(expected: expected, actual: current) }
        return expected
    }

    /// The preconditions of a PATCH or DELETE of an object at version `current`, after its visibility:
    /// `If-None-Match: *` fails, the object existing (RFC 9110 §13.1.2: false when the target has a
    /// current representation), as does a tag naming the current version (weak comparison); then
    /// `If-Match` as `expectedVersion` reads it.
    public func existingPreconditions(kind: String, current: Int, _ what: String) throws -> Int? {
        if let condition = ifNoneMatch?.condition {
            let matches: Bool
            switch condition {
            case .any: matches = true
            case .tags(let tags): matches = tags.contains { $0.opaque == "\(kind)-v\(current)" }
            }
            if matches { throw PreconditionFailed("\(what) exists (If-None-Match); nothing was changed") }
        }
        return try expectedVersion(kind: kind, current: current)
    }

    /// The preconditions of a write on what has no entity tag (a host's settings, a webcredentials
    /// entry, a team's grant), where the route cannot tell whether they hold. RFC 9110 §13.1.1: a
    /// listed tag never matches one that has none; `If-Match: *` and, on a PATCH or DELETE (which
    /// needs its target), `If-None-Match: *` depend on a current representation: a PATCH or DELETE
    /// that succeeds has one, a PUT may not, so there they are refused too rather than ignored
    /// (412, nothing written). `If-None-Match` with tags holds (none can match) and is ignored.
    public func untaggedPreconditions(method: String) throws {
        guard ["PUT", "PATCH", "DELETE"].contains(method) else { return }
        let targetExists = method == "PATCH" || method == "DELETE"
        if let condition = ifMatch?.condition, !(condition == .any && targetExists) {
            throw PreconditionFailed("this resource has no entity tag, so If-Match cannot match; nothing was changed")
        }
        if ifNoneMatch?.condition == .any {
            throw PreconditionFailed(
                targetExists
                    ? "If-None-Match: * is false for what exists (a \(method) needs it); nothing was changed"
                    : "this resource has no entity tag, so If-None-Match: * cannot be evaluated; nothing was changed")
        }
    }

    /// The preconditions of a write that creates or replaces what has no entity tag but whose
    /// existence the route knows (an app's applinks on a host), after its visibility: a listed tag
    /// never matches one that has none (RFC 9110 §13.1.1: 412); `If-Match: *` fails when it does
    /// not exist, `If-None-Match: *` when it does (§13.1.2); `If-None-Match` with tags holds.
    public func existencePreconditions(exists: Bool, _ what: String) throws {
        if exists, ifNoneMatch?.condition == .any {
            throw PreconditionFailed("\(what) already exists (If-None-Match: *); nothing was changed")
        }
        switch ifMatch?.condition {
        case nil: return
        case .any?:
            if !exists { throw PreconditionFailed("If-Match: * names \(what), which does not exist; nothing was changed") }
        case .tags?: throw PreconditionFailed("\(what) has no entity tag, so If-Match cannot match; nothing was changed")
        }
    }

    /// The version `If-Match` names among the object's tags (`KIND-vN`, strong comparison, RFC 9110
    /// §13.1.1): the current one when listed, else the first named; nil without `If-Match` or with `*`.
    public func expectedVersion(kind: String, current: Int?) throws -> Int? {
        guard let condition = ifMatch?.condition, case .tags(let tags) = condition else { return nil }
        let prefix = "\(kind)-v"
        let versions = tags.compactMap { tag -> Int? in
            guard !tag.isWeak, tag.opaque.hasPrefix(prefix) else { return nil }
            return Int(tag.opaque.dropFirst(prefix.count))
        }
        if let current, versions.contains(current) { return current }
        guard let named = versions.first else {
            throw PreconditionFailed(
                "If-Match \(ifMatch?.text.prefix(200) ?? "") names no version of this resource; read it again and retry")
        }
        return named
    }
}

/// An `If-Match` or `If-None-Match` as a request gave it (RFC 9110 §13.1.1, §13.1.2): the field's value as sent,
/// which a command sends on to a server, and the condition it states, read by the edge that received it (ClipAPI,
/// with HTTP1's reading of the `#entity-tag` list) or made by a command (`version`).
public struct EntityTagList: Sendable, Equatable {
    /// `*`, or the listed tags: empty when the value is not a well-formed list (so it matches nothing).
    public enum Condition: Sendable, Equatable {
        case any
        case tags([Tag])
    }
    /// An entity tag (RFC 9110 §8.8.3): the text between its quotes, and whether it is weak (`W/`).
    public struct Tag: Sendable, Equatable {
        public let opaque: String
        public let isWeak: Bool
        public init(opaque: String, isWeak: Bool) {
            self.opaque = opaque
            self.isWeak = isWeak
        }
    }

    /// Every field of the name, combined with commas (RFC 9110 §5.3).
    public let text: String
    public let condition: Condition

    public init(text: String, condition: Condition) {
        self.text = text
        self.condition = condition
    }

    /// The strong tag of `kind` at `version` alone, as its routes send it in `ETag` (`entityTag`).
    public static func version(_ kind: String, _ version: Int) -> EntityTagList {
        EntityTagList(text: entityTag(kind, version), condition: .tags([Tag(opaque: "\(kind)-v\(version)", isWeak: false)]))
    }
}

/// An object's entity tag as its routes send it in `ETag` (`"KIND-vN"`).
public func entityTag(_ kind: String, _ version: Int) -> String { "\"\(kind)-v\(version)\"" }
