import ClipAPI
import ClipApp
public import ClipCLI
import ClipCore
import ClipStore
import ClipWebhooks
import Dispatch
import Foundation
import HTTP1

/// `clipctl serve`: the HTTP API on the database, until SIGTERM or SIGINT (docs/architecture.md#graceful-stop).
/// The one place where the command line and the HTTP API meet; the `clipctl` executable hands it to `ClipCLI.run`.
public enum ClipServer {
    public static func serve(_ command: ServeCommand) throws {
        let words = command.words, io = command.io, databasePath = command.databasePath
        let listen = words.value("listen") ?? "127.0.0.1:8080"
        let address = try listenAddress(listen, command)
        let (limits, capNote) = try connectionLimits(command)
        let publicMaxAge = try publicMaxAge(command)
        let webhooks = try webhookConfiguration(command)
        let outbound = try outboundSettings(command, webhooks)
        let watchSchedule = try Self.propagationSchedule(command)
        var configuration = HTTPServer.Configuration(host: address.host, port: address.port, limits: limits)
        // A registry for every thread that may run a handler at once: an event thread never
        // waits for one that blocking handlers hold.
        // The read model saved at the last graceful stop, beside the database (docs/architecture.md#the-read-model).
        let savedReadModel = words.flag("no-saved-read-model") ? nil : SavedReadModel.path(besideDatabase: databasePath)
        let pool = try openPool(
            databasePath, capacity: configuration.eventThreads + configuration.blockingThreads + configuration.outboundThreads,
            savedReadModel: savedReadModel, io)
        io.err(ServeCommand.logLine("info", "connections: at most \(limits.maxConnections) (\(capNote))"))
        warnWithoutAdminToken(pool, databasePath, io)
        let quiet = words.flag("quiet")
        let worker = WebhookWorker(
            path: databasePath, configuration: webhooks, log: { message in io.err(ServeCommand.logLine("error", message)) })
        pool.observers.add(worker)
        let api = ClipAPI(
            pool: pool, logsRequests: !quiet, appStoreConnect: try command.appStoreConnect(), publicMaxAge: publicMaxAge,
            allowsPrivateWebhookTargets: webhooks.allowPrivateTargets,
            outbound: outbound,
            // The hot routes' request lines in batches: one write for many lines (`AccessLog`).
            logBatch: { lines in io.err(String(decoding: lines, as: UTF8.self)) }, log: { line in io.err(line + "\n") })
        configuration.answerBeforeBody = { api.answerBeforeBody($0) }
        configuration.waitsOnOthers = { api.waitsOnOthers($0) }
        let server = HTTPServer(
            configuration: configuration,
            observer: { request, response, _ in if request.method == "-" { api.observeRefusal(request, response) } },
            hot: { api.answerHot($0, &$1) },
            answerInline: { api.answerFromMemory($0) },
            handler: { api.handle($0) })
        server.atDrainDeadline = { api.drainDeadlineReached(inFlight: $0) }
        // Graceful stop (docs/architecture.md#graceful-stop): stop accepting, finish in-flight requests, close. The handlers
        // are in place before the server starts and says where it listens: a SIGTERM sent as soon
        // as the address is printed (a supervisor, a test) must stop it, not be ignored.
        let (stopped, sources) = stopSignals()
        let bound: Int
        do { bound = try server.start() } catch {
            throw command.failure("cannot listen on \(listen): \(error)")
        }
        api.connectionCount = { server.connectionCount }
        if (try? pool.with(actor: "api") { $0.isReadOnly }) == true {
            io.err(
                ServeCommand.logLine("warn", "the database \(databasePath) is read-only: serving reads; writes answer 503")
            )
        }
        let readOnly = (try? pool.with(actor: "api") { $0.isReadOnly }) == true
        if !readOnly { worker.start() }
        let watch = readOnly ? nil : Self.startPropagationWatch(watchSchedule, outbound, databasePath, pool, io)
        let scheduler =
            readOnly
            ? nil
            : ScheduleRunner(pool: pool, appStoreConnect: api.appStoreConnectAccess) { level, message in
                io.err(ServeCommand.logLine(level, message))
            }
        scheduler?.start()
        command.print("serving \(databasePath) on http://\(address.printedHost):\(bound)")

        stopped.wait()
        api.flushLog()
        io.err("{\"level\":\"info\",\"msg\":\"stopping: draining connections\"}\n")
        // The worker first: it stops after the attempt in progress (at most one request's timeout), in parallel with the drain.
        DispatchQueue.global().async { worker.stop() }
        DispatchQueue.global().async { watch?.stop() }
        DispatchQueue.global().async { scheduler?.stop() }
        server.stop()
        // Every request answered: the last buffered request lines (none is lost at a graceful stop).
        api.flushLog()
        worker.stop()
        watch?.stop()
        scheduler?.stop()
        sources.forEach { $0.cancel() }
        if let savedReadModel, !readOnly { saveReadModel(pool.index, to: savedReadModel, io) }
    }

    /// The registries of the server's threads on the database, saying what opening it found: the files an
    /// interrupted restore left, removed (docs/reliability.md#backup-and-restore); a database created; the read model.
    static func openPool(_ databasePath: String, capacity: Int, savedReadModel: String?, _ io: CLIIO) throws -> RegistryPool {
        let loadStarted = DispatchTime.now().uptimeNanoseconds
        let leftovers = RestoreLeftovers.remove(besides: databasePath)
        if !leftovers.isEmpty {
            let bytes = leftovers.reduce(Int64(0)) { $0 + $1.bytes }
            io.err(ServeCommand.logLine("info", "removed \(leftovers.count) file(s) of \(bytes) bytes left by an interrupted restore"))
        }
        let existed = FileManager.default.fileExists(atPath: databasePath)
        let pool = try RegistryPool(path: databasePath, capacity: capacity, savedReadModel: savedReadModel)
        // As every command that creates a database says so (the first day: a server started in the wrong folder).
        if !existed { io.err(ServeCommand.logLine("info", "created \(databasePath)")) }
        io.err(Self.readModelLine(pool.index, seconds: Double(DispatchTime.now().uptimeNanoseconds - loadStarted) / 1e9))
        return pool
    }

    /// A database without a live admin token is told how to make one (found on the first day: a token made in
    /// another folder went to another database, and every call was 401).
    static func warnWithoutAdminToken(_ pool: RegistryPool, _ databasePath: String, _ io: CLIIO) {
        guard let tokens = try? pool.with(actor: "serve", { try $0.tokens() }),
            !tokens.contains(where: { $0.team == nil && $0.revokedAt == nil })
        else { return }
        let command = "clipctl --db \(Shell.quote(databasePath)) token create --admin --name NAME"
        io.err(ServeCommand.logLine("warning", "\(databasePath) has no admin token; make one with: \(command)"))
    }

    /// `--listen` HOST:PORT, with an IPv6 literal in brackets (RFC 3986 §3.2.2): [::1]:8080; a name such as
    /// localhost is resolved. `printedHost` is HOST as given (brackets kept), for the "serving" line.
    static func listenAddress(_ listen: String, _ command: ServeCommand) throws -> (host: String, port: Int, printedHost: Substring) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port)
        else {
            throw command.usage("--listen takes HOST:PORT, such as 127.0.0.1:8080, localhost:8080 or [::1]:8080")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw command.usage("--listen: put an IPv6 address in brackets, such as [::1]:8080")
        }
        return (host, port, listen[..<colon])
    }

    /// The connection and body limits (`--max-connections`, `--max-body-bytes`), and where the connection cap comes from.
    static func connectionLimits(_ command: ServeCommand) throws -> (limits: HTTPLimits, capNote: String) {
        let words = command.words
        var limits = HTTPLimits()
        // POST /v1/images carries an image's bytes: by default a body may be as large as the largest image taken.
        limits.maxBodyBytes = max(limits.maxBodyBytes, HeaderImage.maxBytes)
        // The default cap is what descriptors and memory allow (docs/architecture.md#limits-and-slow-clients).
        let budget = ConnectionBudget.current()
        var capNote = "the default: descriptor limit \(budget.descriptors), memory \(budget.memoryBytes >> 20) MiB"
        if let n = words.value("max-connections") {
            guard let v = Int(n), v > 0 else { throw command.usage("--max-connections takes a positive number") }
            limits.maxConnections = v
            capNote = "--max-connections"
            // Past the descriptor limit accept(2) fails with EMFILE: the cap stays below it.
            if v > budget.byDescriptors && budget.byDescriptors > 0 {
                limits.maxConnections = budget.byDescriptors
                capNote =
                    "--max-connections \(v) lowered: the descriptor limit is \(budget.descriptors), "
                    + "\(ConnectionBudget.reservedDescriptors) of them kept for the server's own files"
            }
        }
        if let n = words.value("max-body-bytes") {
            guard let v = Int(n), v > 0 else { throw command.usage("--max-body-bytes takes a positive number") }
            limits.maxBodyBytes = v
        }
        return (limits, capNote)
    }

    /// `--public-max-age`: the seconds public answers may be cached, 60 unless given.
    static func publicMaxAge(_ command: ServeCommand) throws -> Int {
        guard let n = command.words.value("public-max-age") else { return 60 }
        guard let v = Int(n), (0...31_536_000).contains(v) else {
            throw command.usage("--public-max-age takes a number of seconds from 0 to 31536000")
        }
        return v
    }

    /// The webhook worker's settings from `--allow-private-targets` and the `--webhook-…` options.
    static func webhookConfiguration(_ command: ServeCommand) throws -> WebhookWorker.Configuration {
        let words = command.words
        var webhooks = WebhookWorker.Configuration()
        webhooks.allowPrivateTargets = words.flag("allow-private-targets")
        if let text = words.value("webhook-retry-schedule") {
            let delays = text.split(separator: ",", omittingEmptySubsequences: false).map { Int64($0) }
            guard !delays.isEmpty, delays.count <= 100, delays.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) <= 604_800_000 }) else {
                throw command.usage("--webhook-retry-schedule takes milliseconds separated by commas, such as 10,20,40")
            }
            webhooks.schedule = WebhookRetrySchedule(delaysMilliseconds: delays.map { $0! })
        }
        if let text = words.value("webhook-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 300 else {
                throw command.usage("--webhook-timeout takes a number of seconds from 0 to 300")
            }
            webhooks.timeoutSeconds = seconds
        }
        if let text = words.value("webhook-retention-days") {
            guard let days = Int(text), (1...3650).contains(days) else {
                throw command.usage("--webhook-retention-days takes a number of days from 1 to 3650")
            }
            webhooks.retentionDays = days
        }
        return webhooks
    }

    /// Where outbound reads go (`--aasa-cdn-url`, `--aasa-site-url`), refused at start when unusable,
    /// under the webhooks' address rules and timeout.
    static func outboundSettings(_ command: ServeCommand, _ webhooks: WebhookWorker.Configuration) throws -> Outbound {
        let cdnURL = command.words.value("aasa-cdn-url"), siteURL = command.words.value("aasa-site-url")
        if let problem = Outbound.settingsProblem(cdnBaseURL: cdnURL, siteURLTemplate: siteURL, names: .serve) {
            throw command.usage(problem)
        }
        return Outbound.checked(
            timeoutSeconds: webhooks.timeoutSeconds, allowPrivateTargets: webhooks.allowPrivateTargets, names: .serve, cdnBaseURL: cdnURL,
            siteURLTemplate: siteURL)
    }

    /// SIGTERM and SIGINT, ignored as signals and delivered as one semaphore signal each; the sources stay
    /// alive while the caller holds them.
    static func stopSignals() -> (stopped: DispatchSemaphore, sources: [any DispatchSourceSignal]) {
        let stopped = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { stopped.signal() }
            source.resume()
            sources.append(source)
        }
        return (stopped, sources)
    }

    /// Saves the read model for the next start (docs/architecture.md#the-read-model) and logs how it went.
    static func saveReadModel(_ index: LiveIndex, to path: String, _ io: CLIIO) {
        let saveStarted = DispatchTime.now().uptimeNanoseconds
        do {
            if try index.save(to: path) {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - saveStarted) / 1e9
                io.err(
                    ServeCommand.logLine("info", "saved the read model (\(index.count) experiences) to \(path) in \(Self.seconds(seconds))")
                )
            }
        } catch {
            io.err(ServeCommand.logLine("warn", "the read model was not saved: \(error)"))
        }
    }

    /// The start-up log line that says how the read model was made and how long it took.
    static func readModelLine(_ index: LiveIndex, seconds: Double) -> String {
        let took = Self.seconds(seconds)
        switch index.start {
        case .saved(let replayed):
            return ServeCommand.logLine(
                "info", "read model: \(index.count) experiences from the saved read model, \(replayed) changes replayed, in \(took)")
        case .built(let ignoring?):
            return ServeCommand.logLine(
                "warn", "read model: \(index.count) experiences built from the database in \(took); not used: \(ignoring)")
        case .built(nil):
            return ServeCommand.logLine("info", "read model: \(index.count) experiences built from the database in \(took)")
        }
    }

    static func seconds(_ s: Double) -> String {
        let millis = Int((s * 1000).rounded())
        return "\(millis / 1000).\(String(millis % 1000 + 1000).dropFirst()) s"
    }
}
