public import AppStoreConnect
public import ClipCore
public import ClipStore
public import ClipSync
import Dispatch
import Foundation
import Locking
import SystemCrypto

/// How far an apply is for one clip: the steps done, and those of its plan still to do (a plan made afresh after a
/// reading back has fewer to do; the ones it found done count as done).
public struct ApplyProgress: Sendable, Equatable {
    public var clip: AppID
    public var done: Int
    public var left: Int
    public init(clip: AppID, done: Int, left: Int) {
        self.clip = clip
        self.done = done
        self.left = left
    }
}

/// The registry against App Store Connect: link, plan, apply and pull for `clipctl asc` and the server's
/// `/v1/asc` routes (docs/architecture.md#app-store-connect-sync). It reads and writes the registry on the
/// caller's thread and waits there for App Store Connect, so it runs on a thread that may block (clipctl's
/// main thread, a server's blocking pool), never on Swift concurrency's own threads.
public final class SyncEngine {
    public let registry: Registry
    public let client: ASCClient
    /// Said as work goes on (a terminal shows it); never a secret.
    public var progress: (String) -> Void
    /// How far an apply is, told when a clip's steps begin and after each (plain progress lines count them).
    public var stepsProgress: (ApplyProgress) -> Void = { _ in }
    /// Requests of the key's hourly budget (`X-Rate-Limit`) an apply leaves to the other tools sharing the key:
    /// it stops, resumable, rather than go below (Apple, "Identifying Rate Limits").
    public var rateLimitReserve: Int
    /// Asked while waiting for App Store Connect: true ends the wait (a server draining), and no request follows.
    public var shouldStop: () -> Bool = { false }
    /// How long an apply keeps at a step answered badly, and the sleep it waits with (injected by tests).
    public var perseverance = Perseverance()
    public var sleep: (Double) -> Void = { seconds in if seconds > 0 { usleep(UInt32(seconds * 1_000_000)) } }

    /// The moment the plan is for (`asc plan --at`): windows with the clip's lead and campaigns as the schedule makes them
    /// then (docs/schedules.md#app-store-connect); nil: now.
    public var at: Instant?

    public init(registry: Registry, client: ASCClient, rateLimitReserve: Int = 100, progress: @escaping (String) -> Void = { _ in }) {
        self.registry = registry
        self.client = client
        self.rateLimitReserve = rateLimitReserve
        self.progress = progress
    }

    // MARK: - Link

    /// Finds the clip's app and App Clip in App Store Connect by bundle ID and remembers their ids.
    public func link(_ clipReference: String) throws(SyncFailure) -> WriteOutcome<AppStoreConnectLink> {
        let clip = try registryCall { () throws(RegistryError) in try registry.clip(clipReference) }
        let client = self.client
        let appBundle = clip.appBundleID.rawValue, clipBundle = clip.appID.bundleID.rawValue
        let found = try call { () async throws(ASCClientError) -> (ASCApp?, ASCAppClip?) in
            guard let app = try await client.app(bundleID: appBundle) else { return (nil, nil) }
            return (app, try await client.appClip(appID: app.id, bundleID: clipBundle))
        }
        guard let app = found.0 else { throw .noApp(bundleID: appBundle) }
        guard let appClip = found.1 else { throw .noAppClip(app: app.id, appBundleID: appBundle, clipBundleID: clipBundle) }
        return try registryCall { () throws(RegistryError) in
            try registry.link(
                AppStoreConnectLink(
                    clip: clip.appID, ascAppID: app.id, ascAppClipID: appClip.id, appBundleID: app.bundleID,
                    primaryLocale: app.primaryLocale))
        }
    }

    /// The links to work on: the one of `clipReference`, or every one.
    public func links(_ clipReference: String?) throws(SyncFailure) -> [AppStoreConnectLink] {
        if let clipReference {
            guard let link = try registryCall({ () throws(RegistryError) in try registry.ascLink(clipReference) }) else {
                throw .notLinked(clipReference)
            }
            return [link]
        }
        let links = try registryCall { () throws(RegistryError) in try registry.ascLinks() }
        guard !links.isEmpty else { throw .noneLinked }
        return links
    }

    // MARK: - Plan

    /// What the registry and App Store Connect hold for one linked clip, read once.
    struct Sides {
        var link: AppStoreConnectLink
        var clip: Clip
        var experiences: [AdvancedExperience]
        var asc: [ASCAdvancedExperience]
        var records: [AppStoreConnectSyncRecord]
        var imageMD5: [String: String]
        /// The clip's default experience here, and, when there is one, App Store Connect's version being edited and
        /// that version's default experience.
        var defaultExperience: DefaultExperience?
        var version: ASCAppStoreVersion?
        var ascDefault: ASCDefaultExperience?
        /// The clip's chosen TestFlight invocations: App Review gets the same URLs, with the default experience.
        var invocations: [TestFlightInvocation] = []

        func plan(prune: Bool) -> SyncPlan {
            var plan = SyncPlan.make(
                clip: link.clip, experiences: experiences, associatedHosts: Set(clip.hosts), asc: asc, link: link, records: records,
                imageMD5: imageMD5, prune: prune)
            plan.defaultExperience = DefaultExperiencePlan.make(
                registry: defaultExperience, version: version, asc: ascDefault, primaryLocale: link.primaryLocale, imageMD5: imageMD5,
                invocations: invocations)
            return plan
        }
    }

    func read(_ link: AppStoreConnectLink) throws(SyncFailure) -> Sides {
        progress("reading App Store Connect for \(link.clip.rawValue)")
        let client = self.client, appClipID = link.ascAppClipID
        let asc = try call { () async throws(ASCClientError) in try await client.advancedExperiences(appClipID: appClipID) }
        var sides = try registryCall { () throws(RegistryError) in
            let clip = try registry.clip(link.clip.rawValue)
            var experiences = try registry.experiences(Registry.ListFilter(clip: link.clip))
            // What App Store Connect should hold now, or at the moment asked for (docs/schedules.md#app-store-connect).
            let moment = at ?? registry.instant
            experiences = try registry.projected(experiences, at: moment, aheadSeconds: link.leadSeconds)
            experiences = experiences.map { AppStoreConnectSchedule.held($0, at: moment, leadSeconds: link.leadSeconds) }
            var defaultExperience: DefaultExperience?
            do throws(RegistryError) {
                defaultExperience = try registry.defaultExperience(clip: link.clip.rawValue)
            } catch .notFound {
                defaultExperience = nil
            } catch {
                throw error
            }
            let images = experiences.compactMap(\.headerImage) + (defaultExperience?.localizations.values.compactMap(\.headerImage) ?? [])
            var imageMD5: [String: String] = [:]
            for sha in Set(images) { imageMD5[sha] = try storedImage(sha).md5 }
            return Sides(
                link: link, clip: clip, experiences: experiences, asc: asc, records: try registry.ascSyncRecords(clip: link.clip),
                imageMD5: imageMD5, defaultExperience: defaultExperience,
                invocations: defaultExperience == nil ? [] : try registry.testFlightInvocations(clip: link.clip.rawValue))
        }
        if sides.defaultExperience != nil {
            (sides.version, sides.ascDefault) = try editedVersion(link)
        }
        return sides
    }

    /// The App Store version being edited (the first, if App Store Connect has more) and its default experience with its
    /// App Review detail (one request reads both: `include=appClipAppStoreReviewDetail`).
    func editedVersion(_ link: AppStoreConnectLink) throws(SyncFailure) -> (ASCAppStoreVersion?, ASCDefaultExperience?) {
        let client = self.client, appID = link.ascAppID
        return try call { () async throws(ASCClientError) -> (ASCAppStoreVersion?, ASCDefaultExperience?) in
            guard let version = try await client.editableAppStoreVersions(appID: appID).first else { return (nil, nil) }
            return (version, try await client.defaultExperience(appStoreVersionID: version.id))
        }
    }

    /// The plan of each linked clip (or of `clipReference`), from one read of App Store Connect per clip.
    public func plans(clip clipReference: String?, prune: Bool) throws(SyncFailure) -> [SyncPlan] {
        var plans: [SyncPlan] = []
        for link in try links(clipReference) { plans.append(try read(link).plan(prune: prune)) }
        return plans
    }

    // MARK: - Plumbing

    /// A stored header image's bytes with their MD5 (hex), as App Store Connect's `sourceFileChecksum` has it.
    func storedImage(_ sha256: String) throws(RegistryError) -> (bytes: [UInt8], mediaType: String, md5: String) {
        let image = try registry.headerImage(sha256)
        do {
            return (image.bytes, image.mediaType, Digest.hex(try Digest.md5(image.bytes)))
        } catch {
            throw RegistryError.storage("MD5 of image \(sha256) failed: \(error)")
        }
    }

    func registryCall<T>(_ body: () throws(RegistryError) -> T) throws(SyncFailure) -> T {
        do { return try body() } catch { throw .registry(error) }
    }

    func call<T: Sendable>(_ body: @escaping @Sendable () async throws(ASCClientError) -> T) throws(SyncFailure) -> T {
        do { return try wait(body) } catch { throw .appStoreConnect(error) }
    }

    /// Runs an App Store Connect exchange to its end on this thread (the engine's callers are synchronous), or until
    /// `shouldStop` says to stop: the exchange is then cancelled and ends with `.cancelled` before its next request.
    func wait<T: Sendable>(_ body: @escaping @Sendable () async throws(ASCClientError) -> T) throws(ASCClientError) -> T {
        let result = Locked<Result<T, ASCClientError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let outcome: Result<T, ASCClientError>
            do throws(ASCClientError) { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            if shouldStop() {
                task.cancel()
                done.wait()
                break
            }
        }
        return try result.withLock({ $0 })!.get()
    }
}
