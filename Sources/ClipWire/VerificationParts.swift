public import StrictJSON

/// `verify`'s App Store Connect comparison of one host (docs/operations.md#app-store-connect-and-apples-own-verdict):
/// the experiences on the host that `asc plan` would change.
public struct AppStoreConnectComparison: WireShape, Equatable {
    public struct PendingStep: Sendable, Equatable {
        public var clip: String
        public var url: String
        /// The plan's action: `create`, `update`, `recreate`, `remove` or `upload-image`.
        public var action: String
        /// The step in a few words: the fields it changes, what App Store Connect would refuse.
        public var summary: String
        public init(clip: String, url: String, action: String, summary: String) {
            self.clip = clip
            self.url = url
            self.action = action
            self.summary = summary
        }
    }

    /// `in-step`, `pending`, `not-linked` (no linked clip has an experience on the host) or `not-checked` (no key, or
    /// App Store Connect could not be read: the evidence says which, the fix how to configure it).
    public var verdict: String
    public var evidence: String
    public var fix: String?
    public var pending: [PendingStep]

    public init(verdict: String, evidence: String, fix: String?, pending: [PendingStep] = []) {
        self.verdict = verdict
        self.evidence = evidence
        self.fix = fix
        self.pending = pending
    }

    public var json: JSONValue {
        .object([
            "verdict": .string(verdict), "evidence": .string(evidence), "fix": fix.map(JSONValue.string),
            "pending": .array(
                pending.map {
                    .object([
                        "clip": .string($0.clip), "url": .string($0.url), "action": .string($0.action), "summary": .string($0.summary),
                    ])
                }),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        guard let verdict = json["verdict"]?.stringValue, let evidence = json["evidence"]?.stringValue else {
            throw WireError("an App Store Connect comparison lacks verdict or evidence")
        }
        self.init(
            verdict: verdict, evidence: evidence, fix: json["fix"]?.stringValue,
            pending: (json["pending"]?.arrayValue ?? []).map {
                PendingStep(
                    clip: $0["clip"]?.stringValue ?? "", url: $0["url"]?.stringValue ?? "", action: $0["action"]?.stringValue ?? "",
                    summary: $0["summary"]?.stringValue ?? "")
            })
    }
}

/// Apple's own verdict on one host: for the newest App Clip build of each linked clip that uses it, the cache
/// status (what devices get) and the debug status (Apple's fresh fetch) of the host.
public struct AppleVerdict: WireShape, Equatable {
    /// One status of one build for the host.
    public struct Reading: Sendable, Equatable {
        /// `cache` or `debug`.
        public var source: String
        /// `valid`, `invalid`, `no-status` (App Store Connect has none for the build) or `not-listed` (the status does
        /// not name the host).
        public var state: String
        public var isValid: Bool?
        public var lastUpdatedDate: String?
        public var errorCode: String?
        /// The code's explanation (`AppleDomainErrorCode`), set with `errorCode`.
        public var knownCode: Bool?
        public var meaning: String?
        public var likelyCause: String?
        public var fix: String?
        /// This reading beside what the site and Apple's CDN answered here.
        public var agreement: String?
        public init(source: String, state: String) {
            self.source = source
            self.state = state
        }
    }

    public struct Build: Sendable, Equatable {
        public var clip: String
        public var buildID: String?
        public var buildVersion: String?
        public var readings: [Reading]
        public init(clip: String, buildID: String?, buildVersion: String?, readings: [Reading]) {
            self.clip = clip
            self.buildID = buildID
            self.buildVersion = buildVersion
            self.readings = readings
        }
    }

    /// `valid` (every reading), `invalid` (any reading), `no-status` or `not-checked`.
    public var verdict: String
    public var evidence: String
    public var fix: String?
    public var builds: [Build]

    public init(verdict: String, evidence: String, fix: String?, builds: [Build] = []) {
        self.verdict = verdict
        self.evidence = evidence
        self.fix = fix
        self.builds = builds
    }

    /// What each source is, as Apple's pages name them ("Cache Status", "Load Debug Status").
    public static func describes(_ source: String) -> String {
        source == "cache" ? "cache status, what devices get" : "debug status, Apple's fresh fetch"
    }

    public var json: JSONValue {
        .object([
            "verdict": .string(verdict), "evidence": .string(evidence), "fix": fix.map(JSONValue.string),
            "builds": .array(
                builds.map { b in
                    .object([
                        "clip": .string(b.clip), "buildID": b.buildID.map(JSONValue.string),
                        "buildVersion": b.buildVersion.map(JSONValue.string),
                        "readings": .array(b.readings.map(Self.json)),
                    ])
                }),
        ])
    }

    static func json(_ r: Reading) -> JSONValue {
        .object([
            "source": .string(r.source), "describes": .string(describes(r.source)), "state": .string(r.state),
            "isValid": r.isValid.map(JSONValue.bool), "lastUpdatedDate": r.lastUpdatedDate.map(JSONValue.string),
            "errorCode": r.errorCode.map(JSONValue.string), "knownCode": r.knownCode.map(JSONValue.bool),
            "meaning": r.meaning.map(JSONValue.string), "likelyCause": r.likelyCause.map(JSONValue.string),
            "fix": r.fix.map(JSONValue.string), "agreement": r.agreement.map(JSONValue.string),
        ])
    }

    public init(json: JSONValue) throws(WireError) {
        guard let verdict = json["verdict"]?.stringValue, let evidence = json["evidence"]?.stringValue else {
            throw WireError("Apple's verdict lacks verdict or evidence")
        }
        self.init(
            verdict: verdict, evidence: evidence, fix: json["fix"]?.stringValue,
            builds: (json["builds"]?.arrayValue ?? []).map { b in
                Build(
                    clip: b["clip"]?.stringValue ?? "", buildID: b["buildID"]?.stringValue, buildVersion: b["buildVersion"]?.stringValue,
                    readings: (b["readings"]?.arrayValue ?? []).map { r in
                        var reading = Reading(source: r["source"]?.stringValue ?? "", state: r["state"]?.stringValue ?? "")
                        reading.isValid = r["isValid"]?.boolValue
                        reading.lastUpdatedDate = r["lastUpdatedDate"]?.stringValue
                        reading.errorCode = r["errorCode"]?.stringValue
                        reading.knownCode = r["knownCode"]?.boolValue
                        reading.meaning = r["meaning"]?.stringValue
                        reading.likelyCause = r["likelyCause"]?.stringValue
                        reading.fix = r["fix"]?.stringValue
                        reading.agreement = r["agreement"]?.stringValue
                        return reading
                    })
            })
    }
}
