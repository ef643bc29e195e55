public import AppStoreConnect
import ClipCore
public import DoctorAndPublish
public import ClipStore
import ClipSync
public import ClipSyncEngine

/// How the App Store Connect operations reach it where this process runs (docs/app-store-connect.md): a command
/// with the key its options or the `ASC_` environment name, read when an operation needs it; a server with the key
/// `serve` was started with, stopping an apply when the server stops.
public struct AppStoreConnectAccess: Sendable {
    /// The client with this process's key; a command without a usable key fails here (exit 64).
    public let client: @Sendable () throws -> ASCClient
    /// A pull or apply stops between requests once this holds (a server stopping: `RegistryPool.isInterrupted`).
    public var shouldStop: @Sendable () -> Bool
    /// A pull's or apply's progress lines (a command on a terminal); nil: not said.
    public var progress: (@Sendable (String) -> Void)?
    /// An apply's steps done and left, for plain progress lines (`ProgressChoice`); nil: not counted.
    public var stepsProgress: (@Sendable (ApplyProgress) -> Void)?
    /// Requests of the key's hourly limit left to other tools (`asc apply --rate-reserve`); nil: the engine's default.
    public var rateLimitReserve: Int?

    public init(
        client: @escaping @Sendable () throws -> ASCClient, shouldStop: @escaping @Sendable () -> Bool = { false },
        progress: (@Sendable (String) -> Void)? = nil, rateLimitReserve: Int? = nil
    ) {
        self.client = client
        self.shouldStop = shouldStop
        self.progress = progress
        self.rateLimitReserve = rateLimitReserve
    }

    /// A command's access: the key its options (`AppStoreConnectKey.options`) and the environment name, read when an
    /// operation needs it (`client(_:…)`); what it says while it works as `--progress` chooses (`ProgressChoice`).
    public init(
        command parsed: CommandWords, environment: [String: String], standardErrorIsTerminal: Bool, json: Bool,
        err: @escaping @Sendable (String) -> Void
    ) throws(CommandUsageError) {
        let key = Key(
            keyID: parsed.value(AppStoreConnectKey.keyID.name), issuerID: parsed.value(AppStoreConnectKey.issuerID.name),
            privateKeyPath: parsed.value(AppStoreConnectKey.privateKey.name), baseURL: parsed.value(AppStoreConnectKey.baseURL.name))
        let choice = try ProgressChoice(parsed)
        let saysWaits = choice.saysWaits(standardErrorIsTerminal: standardErrorIsTerminal, json: json)
        self.init(client: { try Self.client(key, environment: environment, saysWaits: saysWaits, err: err) })
        switch choice.said(standardErrorIsTerminal: standardErrorIsTerminal, json: json) {
        case .everyStep: progress = { line in err(line + "\n") }
        case .plainLines: stepsProgress = PlainApplyProgress(write: err).tell
        case .nothing: break
        }
    }

    /// A server's access: the client made once, when it starts (an unusable key stops it there).
    public init(
        key: Key, environment: [String: String], purpose: String, saysWaits: Bool, err: @escaping @Sendable (String) -> Void
    ) throws(CommandUsageError) {
        let client = try Self.client(key, environment: environment, purpose: purpose, saysWaits: saysWaits, err: err)
        self.init(client: { client })
    }

    /// The key as options name it; what is not named comes from the environment (`ASCCredentials`).
    public struct Key: Sendable {
        public var keyID: String?
        public var issuerID: String?
        public var privateKeyPath: String?
        public var baseURL: String?
        public init(keyID: String?, issuerID: String?, privateKeyPath: String?, baseURL: String?) {
            self.keyID = keyID
            self.issuerID = issuerID
            self.privateKeyPath = privateKeyPath
            self.baseURL = baseURL
        }
    }

    /// A client with `key`; the key's warnings (a file others can read) go to `err`, and with `saysWaits` a wait of a
    /// second or more (a 429's Retry-After, a backoff) is said there. `purpose` begins a refusal's text.
    public static func client(
        _ key: Key, environment: [String: String], purpose: String = "", saysWaits: Bool, err: @escaping @Sendable (String) -> Void
    ) throws(CommandUsageError) -> ASCClient {
        let loaded: ASCCredentials.Loaded
        do {
            loaded = try ASCCredentials.load(
                from: .init(keyID: key.keyID, issuerID: key.issuerID, privateKeyPath: key.privateKeyPath, environment: environment))
        } catch {
            throw CommandUsageError(purpose + error.description)
        }
        for warning in loaded.warnings { err("warning: \(warning)\n") }
        let sleeper: ASCClient.Sleeper = { seconds in
            if saysWaits && seconds >= 1 { err("waiting \(Int(seconds.rounded())) s before asking App Store Connect again\n") }
            await ASCClient.systemSleeper(seconds)
        }
        var configuration = ASCClient.Configuration()
        // A test's knob (docs/app-store-connect.md): every wait the client and an apply choose, scaled.
        if let text = environment["CLIP_ASC_WAIT_SCALE"], let scale = Double(text), scale >= 0, scale <= 1 {
            configuration.waitScale = scale
        }
        do {
            return try ASCClient(
                baseURL: key.baseURL ?? ASCClient.baseURL(environment: environment),
                tokens: ASCTokenCache(credentials: loaded.credentials), configuration: configuration, sleeper: sleeper)
        } catch {
            throw CommandUsageError(purpose + error.description)
        }
    }

    /// Drift and pending changes of the linked clips, as `doctor` reports them; App Store Connect unreadable (or the
    /// key unusable) is a warning, and doctor goes on.
    public func doctorFindings(registry: Registry) -> [Doctor.Finding] {
        do {
            let engine = SyncEngine(registry: registry, client: try client())
            return try engine.plans(clip: nil, prune: false).flatMap(\.doctorFindings)
        } catch {
            let why = (error as? SyncFailure)?.description ?? (error as? CommandUsageError)?.description ?? "\(error)"
            return [
                .init(
                    severity: .warning, code: "asc.unreadable", subject: "App Store Connect", message: "drift was not checked: \(why)",
                    fix: nil)
            ]
        }
    }
}

extension Session {
    /// The sync engine on this session's registry; a server started without a key answers 503 (exit 69).
    func syncEngine() throws -> SyncEngine {
        guard let access = appStoreConnect else {
            throw OperationError.unavailable(
                "this server was started without an App Store Connect key (clipctl serve --asc-key-id … or ASC_KEY_ID …)")
        }
        let engine = SyncEngine(registry: registry, client: try access.client())
        engine.shouldStop = access.shouldStop
        if let progress = access.progress { engine.progress = progress }
        if let stepsProgress = access.stepsProgress { engine.stepsProgress = stepsProgress }
        if let reserve = access.rateLimitReserve { engine.rateLimitReserve = reserve }
        return engine
    }
}

extension SyncFailure {
    /// The failure in the application's words (docs/rules.md#errors-and-statuses): App Store Connect's own failures
    /// (unreachable, its rate limit with the seconds to wait, our key refused, a failure of its own); what it would
    /// refuse is the request's fault, with the field errors; a registry error as every operation's.
    var operationError: any Error {
        switch self {
        case .registry(let error): return error
        case .notLinked, .noneLinked, .noApp, .noAppClip: return OperationError.notFound(description)
        case .refused(let steps):
            return OperationError.invalid("nothing was sent: App Store Connect would refuse \(steps.count) step(s)", errors: fieldErrors)
        case .rejected: return OperationError.invalid(description, errors: fieldErrors)
        case .applyRunning: return OperationError.alreadyRunning(description)
        case .appStoreConnect(.rateLimited(let retryAfter, _)):
            return OperationError.unavailable(description, retryAfterSeconds: Int(retryAfter ?? 60))
        case .rateBudget, .appStoreConnect(.cancelled): return OperationError.unavailable(description, retryAfterSeconds: 60)
        case .appStoreConnect(.unreachable), .appStoreConnect(.timedOut): return OperationError.unreachable(description)
        case .appStoreConnect(.token): return OperationError.credentialsRefused(description)
        case .appStoreConnect, .remote: return OperationError.failedElsewhere(description)
        }
    }
}

/// Runs a sync, its failure in the application's words.
func synced<T>(_ body: () throws(SyncFailure) -> T) throws -> T {
    do { return try body() } catch { throw error.operationError }
}
