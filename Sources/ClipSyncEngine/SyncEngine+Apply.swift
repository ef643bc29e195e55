public import AppStoreConnect
public import ClipCore
import ClipStore
public import ClipSync
import Locking
import StrictJSON

/// What one apply did for one clip, in order, and where it stopped if it did.
public struct ApplyReport: Sendable {
    public struct Done: Sendable, Equatable {
        public var experienceID: Int64?
        public var url: String
        public var action: SyncPlan.Action
        public var ascExperienceID: String?
    }

    public var clip: AppID
    public var done: [Done] = []
    /// Steps still pending when it stopped (0 when it finished).
    public var left = 0
    /// Worth saying and changing nothing: an image reserved earlier and left unused, and so on.
    public var notes: [String] = []
    public var failure: SyncFailure?
    public var rateLimit: ASCRateLimit?
    /// The steps not done when it stopped ("create https://…"), and the step under way.
    public var pending: [String] = []
    var current: String?
    /// Answers that were ambiguous or failed and were read back and gone past.
    public var recovered: [String] = []
    /// Requests sent to App Store Connect for this clip, by kind (upload parts and retries included).
    public var requests: [ASCRequestKind: Int] = [:]

    public init(clip: AppID) { self.clip = clip }
}

extension SyncEngine {
    /// Makes App Store Connect hold the registry's experiences of each linked clip (or of `clipReference`): the plan's
    /// steps, removals first. Idempotent and resumable: each step is noted before it is sent and recorded with its
    /// result (ids, version, image) in one transaction, and every apply plans afresh from what App Store Connect
    /// holds, so one that was interrupted is finished by the next without duplicates. Steps App Store Connect would
    /// refuse stop the whole apply before anything is sent. An ambiguous or failed answer is read back and the apply goes
    /// on (`converge`, docs/app-store-connect.md#retries-and-convergence).
    public func apply(clip clipReference: String?, prune: Bool) throws(SyncFailure) -> [ApplyReport] {
        // One apply per database at a time, across processes (clipctl and a server): two would plan from the same
        // reading and send the same steps twice. Held until this apply returns; a killed holder drops it.
        let lock = try exclusive()
        defer { withExtendedLifetime(lock) {} }
        // Requests counted per clip, its first reading included.
        var requestsBefore = client.requestCounts
        let sides = try links(clipReference).map { link throws(SyncFailure) in try firstRead(link) }
        let plans = sides.map { $0.plan(prune: prune) }
        let refused = plans.flatMap(\.allRefused)
        guard refused.isEmpty else { throw .refused(refused) }
        var reports: [ApplyReport] = []
        for (side, plan) in zip(sides, plans) {
            var report = ApplyReport(clip: plan.clip)
            converge(plan, side, prune: prune, into: &report)
            let requestsNow = client.requestCounts
            report.requests = requestsNow.merging(requestsBefore.mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value > 0 }
            requestsBefore = requestsNow
            report.rateLimit = client.lastRateLimit
            // The apply's summary for webhooks (asc.applied), once its steps are recorded; each step was its own transaction.
            do { try registry.recordASCApplied(clip: report.clip, summary: report.json) } catch {
                report.notes.append("the asc.applied event was not recorded: \(error)")
            }
            reports.append(report)
            if report.failure != nil { break }
        }
        return reports
    }

    /// The lock one apply or pull per database holds (`DB-asc-apply.lock`), across processes.
    func exclusive() throws(SyncFailure) -> FileLock {
        let lock: FileLock?
        do { lock = try FileLock(path: registry.path + "-asc-apply.lock") } catch {
            throw .registry(.storage(error.description))
        }
        guard let lock else { throw .applyRunning }
        return lock
    }

    /// Removals first (a URL freed before one is made), then re-creations, updates, image uploads and creations.
    static let order: [SyncPlan.Action] = [.remove, .recreate, .update, .uploadImage, .create]

    /// Requests a step may take at most: image reserve, parts, commit, polls and the write.
    static let requestsPerStep = 12

    func apply(_ plan: SyncPlan, _ side: Sides, into report: inout ApplyReport) throws(SyncFailure) {
        let steps = plan.pending.sorted { Self.order.firstIndex(of: $0.action)! < Self.order.firstIndex(of: $1.action)! }
        let experiences = Dictionary(side.experiences.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let records = Dictionary(side.records.map { ($0.experienceID, $0) }, uniquingKeysWith: { first, _ in first })
        let asc = Dictionary(side.asc.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try completeRecords(plan, side, experiences: experiences, records: records, asc: asc, report: &report)
        var left = steps.count { $0.action != .nothing } + (plan.defaultExperience.map { $0.action == .nothing ? 0 : 1 } ?? 0)
        stepsProgress(ApplyProgress(clip: plan.clip, done: report.done.count, left: left))
        for (index, step) in steps.enumerated() {
            report.left = steps.count - index
            report.pending = steps[index...].filter { $0.action != .nothing }.map { "\($0.action.rawValue) \($0.url)" }
            report.current = "\(step.action.rawValue) \(step.url)"
            try checkBudget(requests: Self.requestsPerStep)
            progress("[\(index + 1)/\(steps.count)] \(step.action.rawValue) \(step.url)")
            let experience = step.experienceID.flatMap { experiences[$0] }
            let record = step.experienceID.flatMap { records[$0] }
            var ascID = step.ascExperienceID
            switch step.action {
            case .nothing: continue
            case .remove:
                try remove(step, clip: plan.clip)
            case .recreate:
                guard let experience, step.ascExperienceID != nil else { continue }
                try registryCall { () throws(RegistryError) in
                    try registry.beginASCStep(clip: plan.clip, experienceID: experience.id, step: "recreate")
                }
                try remove(step, clip: plan.clip)
                ascID = try create(experience, link: side.link, record: record, report: &report)
            case .create:
                guard let experience else { continue }
                ascID = try create(experience, link: side.link, record: record, report: &report)
            case .update, .uploadImage:
                guard let experience, let id = step.ascExperienceID, let theirs = asc[id] else { continue }
                try update(experience, theirs, step: step, link: side.link, record: record, report: &report)
            }
            report.done.append(.init(experienceID: step.experienceID, url: step.url, action: step.action, ascExperienceID: ascID))
            left -= 1
            stepsProgress(ApplyProgress(clip: plan.clip, done: report.done.count, left: left))
        }
        if let defaultPlan = plan.defaultExperience {
            report.notes += defaultPlan.notes
            if defaultPlan.action != .nothing {
                report.left = 1
                // Each changed locale may replace its header image (delete, reserve, parts, commit, polls).
                try checkBudget(requests: Self.requestsPerStep * max(1, defaultPlan.changes.count))
                progress("default experience (App Store version \(defaultPlan.appStoreVersion ?? "?"))")
                let id = try applyDefault(defaultPlan, side, report: &report)
                report.done.append(
                    .init(
                        experienceID: nil, url: "default experience, App Store version \(defaultPlan.appStoreVersion ?? "?")",
                        action: defaultPlan.action == .create ? .create : .update, ascExperienceID: id))
                stepsProgress(ApplyProgress(clip: plan.clip, done: report.done.count, left: 0))
            }
        }
        report.left = 0
        report.pending = []
        report.current = nil
    }

    /// Stops before a step that could take the key's hourly budget (`X-Rate-Limit`, as last answered) under the
    /// reserve kept for the other tools sharing the key.
    func checkBudget(requests: Int) throws(SyncFailure) {
        if let limit = client.lastRateLimit, let remaining = limit.hourRemaining, remaining - requests < rateLimitReserve {
            throw .rateBudget(remaining: remaining, limit: limit.hourLimit, reserve: rateLimitReserve)
        }
    }

    /// Experiences App Store Connect already holds as the registry has them, whose record is missing or unfinished: a
    /// step an interrupted apply sent and did not record (its create landed; its PATCH did), or one made the same on both
    /// sides. Recorded now from what was read, so drift is seen from here on; a finished step gets its change record.
    private func completeRecords(
        _ plan: SyncPlan, _ side: Sides, experiences: [Int64: AdvancedExperience], records: [Int64: AppStoreConnectSyncRecord],
        asc: [String: ASCAdvancedExperience], report: inout ApplyReport
    ) throws(SyncFailure) {
        // A removal an interrupted apply sent: App Store Connect no longer lists the experience.
        for record in side.records where record.pendingStep == "remove" {
            guard let ascID = record.ascExperienceID, asc[ascID] == nil else { continue }
            let clip = plan.clip, link = record.ascLink ?? experiences[record.experienceID]?.url.canonical ?? ""
            try registryCall { () throws(RegistryError) in
                try registry.recordASCRemoval(clip: clip, experienceID: record.experienceID, ascExperienceID: ascID, link: link)
            }
            report.notes.append("experience \(record.experienceID): the removal an earlier apply sent had landed (\(ascID)); recorded now")
        }
        for step in plan.steps where step.action == .nothing {
            guard let id = step.experienceID, let experience = experiences[id], experience.status == .active,
                let ascID = step.ascExperienceID, let theirs = asc[ascID]
            else { continue }
            let record = records[id]
            guard record?.ascExperienceID != ascID || record?.pendingStep != nil || record?.ascFingerprint == nil else { continue }
            let md5 = try experience.headerImage.map { sha throws(SyncFailure) in
                try registryCall { () throws(RegistryError) in try storedImage(sha).md5 }
            }
            let seen = Registry.ASCExperienceSeen(
                ascExperienceID: ascID, link: theirs.link, state: theirs.status?.rawValue, fingerprint: SyncPlan.fingerprint(theirs))
            let clip = plan.clip
            if let pending = record?.pendingStep {
                try registryCall { () throws(RegistryError) in
                    try registry.recordASCPush(
                        clip: clip, experienceID: id, action: pending == "create" || pending == "recreate" ? .create : .update, seen: seen,
                        version: experience.version, imageSHA256: experience.headerImage, imageMD5: md5)
                }
                report.notes.append("experience \(id): the \(pending) an earlier apply sent had landed (\(ascID)); recorded now")
                report.done.append(
                    .init(
                        experienceID: id, url: experience.url.canonical, action: SyncPlan.Action(rawValue: pending) ?? .update,
                        ascExperienceID: ascID))
            } else {
                try registryCall { () throws(RegistryError) in
                    try registry.recordASCPull(
                        clip: clip, experienceID: id, seen: seen, pushedVersion: experience.version, imageSHA256: experience.headerImage,
                        imageMD5: md5)
                }
            }
        }
    }

    /// Makes the default experience of the App Store version being edited the registry's: its action, each locale's
    /// subtitle and header image (an image is replaced by delete and upload: App Store Connect, "Uploading Assets"),
    /// and no locale the registry does not have. Each request reads nothing it does not re-read next time, so an
    /// interrupted apply is finished by the next.
    private func applyDefault(_ plan: DefaultExperiencePlan, _ side: Sides, report: inout ApplyReport) throws(SyncFailure) -> String? {
        guard let ours = side.defaultExperience, let versionID = plan.appStoreVersionID else { return nil }
        guard let action = AppClipAction(rawValue: ours.action.rawValue) else {
            throw .registry(.unprocessable("action \(ours.action.rawValue) has no App Store Connect value"))
        }
        let client = self.client, appClipID = side.link.ascAppClipID, what = "default experience"
        var current: ASCDefaultExperience
        if let existing = side.ascDefault {
            current = existing
            if existing.action?.rawValue != action.rawValue {
                let id = existing.id
                _ = try send(nil, what, drafts: []) { () async throws(ASCClientError) in
                    try await client.updateDefaultExperience(id: id, action: action)
                }
            }
        } else {
            current = try send(nil, what, drafts: []) { () async throws(ASCClientError) in
                try await client.createDefaultExperience(appClipID: appClipID, appStoreVersionID: versionID, action: action)
            }
        }
        let experienceID = current.id
        let theirs = Dictionary(current.localizations.map { ($0.locale, $0) }, uniquingKeysWith: { first, _ in first })
        for (locale, localization) in ours.localizations.sorted(by: { $0.key < $1.key }) {
            let subtitle = localization.subtitle
            let localizationID: String
            if let existing = theirs[locale] {
                localizationID = existing.id
                if existing.subtitle != subtitle {
                    let id = existing.id
                    _ = try send(nil, "\(what) \(locale)", drafts: []) { () async throws(ASCClientError) in
                        try await client.updateDefaultExperienceLocalization(id: id, subtitle: subtitle)
                    }
                }
            } else {
                let created = try send(nil, "\(what) \(locale)", drafts: []) { () async throws(ASCClientError) in
                    try await client.createDefaultExperienceLocalization(experienceID: experienceID, locale: locale, subtitle: subtitle)
                }
                localizationID = created.id
            }
            guard let sha = localization.headerImage else { continue }
            let image = try registryCall { () throws(RegistryError) in try storedImage(sha) }
            guard image.md5 != theirs[locale]?.headerImage?.sourceFileChecksum else { continue }
            if let old = theirs[locale]?.headerImageID {
                _ = try send(nil, "\(what) \(locale)", drafts: [], image: true) { () async throws(ASCClientError) in
                    try await client.deleteHeaderImage(id: old)
                }
            }
            let bytes = image.bytes, fileName = "\(sha.prefix(16)).\(image.mediaType == "image/jpeg" ? "jpg" : "png")"
            let target = localizationID
            _ = try send(nil, "\(what) \(locale)", drafts: [], image: true) { () async throws(ASCClientError) in
                try await client.uploadHeaderImage(localizationID: target, fileName: fileName, bytes: bytes)
            }
        }
        for (locale, extra) in theirs.sorted(by: { $0.key < $1.key }) where ours.localizations[locale] == nil {
            let id = extra.id
            _ = try send(nil, "\(what) \(locale)", drafts: []) { () async throws(ASCClientError) in
                try await client.deleteDefaultExperienceLocalization(id: id)
            }
        }
        let reviewURLs = plan.appReviewURLs(side.invocations)
        if let urls = reviewURLs {
            try applyAppReview(urls, defaultExperienceID: experienceID, existing: side.ascDefault?.reviewDetail)
        }
        let clip = side.link.clip
        try registryCall { () throws(RegistryError) in
            try registry.recordASCDefaultExperiencePush(
                clip: clip, action: side.ascDefault == nil ? .create : .update,
                after: [
                    "ascDefaultExperienceId": .string(experienceID), "appStoreVersion": .string(plan.appStoreVersion ?? versionID),
                    "action": .string(action.rawValue), "locales": .array(ours.localizations.keys.sorted().map { .string($0) }),
                    "appReviewUrls": reviewURLs.map { .array($0.map { .string($0) }) } ?? .null,
                ])
        }
        return experienceID
    }

    /// Gives App Review the chosen URLs (../shared/docs/asc-api.md §7.6 item 4): the default experience's review detail,
    /// made when it has none. An interrupted create is found at the next reading (one detail per default experience).
    private func applyAppReview(_ urls: [String], defaultExperienceID: String, existing: ASCAppClipReviewDetail?) throws(SyncFailure) {
        let client = self.client
        if let id = existing?.id {
            _ = try send(nil, "App Review detail", drafts: []) { () async throws(ASCClientError) in
                try await client.updateAppClipReviewDetail(id: id, invocationURLs: urls)
            }
        } else {
            _ = try send(nil, "App Review detail", drafts: []) { () async throws(ASCClientError) in
                try await client.createAppClipReviewDetail(defaultExperienceID: defaultExperienceID, invocationURLs: urls)
            }
        }
    }

    private func remove(_ step: SyncPlan.Step, clip: AppID) throws(SyncFailure) {
        guard let id = step.ascExperienceID else { return }
        if let experienceID = step.experienceID {
            // Noted before the PATCH, so a removal that lands unrecorded (killed before its answer) is recorded by the next
            // apply (`completeRecords`) instead of leaving the record pointing at nothing and no change record.
            try registryCall { () throws(RegistryError) in
                try registry.beginASCStep(clip: clip, experienceID: experienceID, step: "remove")
            }
        }
        let client = self.client
        try send(step.experienceID, step.url, drafts: []) { () async throws(ASCClientError) in
            do throws(ASCClientError) {
                try await client.removeAdvancedExperience(id: id)
            } catch .rejected(let status, _, _, _) where status == 404 {
                // Gone already (a removed experience answers 404): the removal an interrupted apply sent, landed after
                // this apply read the list. The end sought is reached; it is recorded below.
            } catch {
                throw error
            }
        }
        try registryCall { () throws(RegistryError) in
            try registry.recordASCRemoval(clip: clip, experienceID: step.experienceID, ascExperienceID: id, link: step.url)
        }
    }

    /// Runs a step noted as pending on the experience; a step App Store Connect refused (it did nothing) is forgotten.
    private func step<T>(
        _ name: String, _ experienceID: Int64, clip: AppID, link: String? = nil, _ body: () throws(SyncFailure) -> T
    ) throws(SyncFailure) -> T {
        try registryCall { () throws(RegistryError) in
            try registry.beginASCStep(clip: clip, experienceID: experienceID, step: name, link: link)
        }
        do {
            return try body()
        } catch .rejected(let id, let url, let status, let errors) {
            try registryCall { () throws(RegistryError) in try registry.clearASCStep(clip: clip, experienceID: experienceID) }
            throw .rejected(experienceID: id, url: url, status: status, errors: errors)
        }
    }

    private func create(
        _ experience: AdvancedExperience, link: AppStoreConnectLink, record: AppStoreConnectSyncRecord?, report: inout ApplyReport
    ) throws(SyncFailure) -> String {
        try step("create", experience.id, clip: link.clip, link: experience.url.canonical) { () throws(SyncFailure) in
            try created(experience, link: link, record: record, report: &report)
        }
    }

    private func created(
        _ experience: AdvancedExperience, link: AppStoreConnectLink, record: AppStoreConnectSyncRecord?, report: inout ApplyReport
    ) throws(SyncFailure) -> String {
        let draft = try Self.draft(experience)
        let image = try uploadedImage(experience, clip: link.clip, reserved: record?.reservedImageID, report: &report)
        let client = self.client, appClipID = link.ascAppClipID
        let created = try send(experience.id, experience.url.canonical, drafts: draft.localizations) {
            () async throws(ASCClientError) in
            try await client.createAdvancedExperience(draft, appClipID: appClipID, headerImageID: image.id)
        }
        try recordPush(
            experience, held: SyncPlan.held(after: created, headerImageID: image.id, localizations: draft.localizations, before: nil),
            action: .create, clip: link.clip, imageMD5: image.md5)
        return created.id
    }

    private func update(
        _ experience: AdvancedExperience, _ theirs: ASCAdvancedExperience, step: SyncPlan.Step, link: AppStoreConnectLink,
        record: AppStoreConnectSyncRecord?, report: inout ApplyReport
    ) throws(SyncFailure) {
        try self.step(step.action.rawValue, experience.id, clip: link.clip) { () throws(SyncFailure) in
            try updated(experience, theirs, step: step, link: link, record: record, report: &report)
        }
    }

    private func updated(
        _ experience: AdvancedExperience, _ theirs: ASCAdvancedExperience, step: SyncPlan.Step, link: AppStoreConnectLink,
        record: AppStoreConnectSyncRecord?, report: inout ApplyReport
    ) throws(SyncFailure) {
        let draft = try Self.draft(experience)
        let fields = Set(step.changes.map(\.field))
        var change = SyncPlan.change(draft, fields: fields)
        let languageChanged = fields.contains("defaultLanguage")
        // The whole set: a new default language needs its card in the same request.
        if languageChanged || fields.contains(where: { $0.hasPrefix("localizations.") }) { change.localizations = draft.localizations }
        var imageMD5 = record?.pushedImageMD5 ?? theirs.headerImage?.sourceFileChecksum
        if fields.contains("headerImage") {
            let image = try uploadedImage(experience, clip: link.clip, reserved: record?.reservedImageID, report: &report)
            change.headerImageID = image.id
            imageMD5 = image.md5
        } else if let sha = experience.headerImage {
            imageMD5 = try registryCall { () throws(RegistryError) in try storedImage(sha).md5 }
        }
        let client = self.client, id = theirs.id, sent = change
        let answer = try send(experience.id, experience.url.canonical, drafts: change.localizations ?? []) {
            () async throws(ASCClientError) in
            try await client.updateAdvancedExperience(id: id, sent)
        }
        try recordPush(
            experience,
            held: SyncPlan.held(after: answer, headerImageID: change.headerImageID, localizations: change.localizations, before: theirs),
            action: .update, clip: link.clip, imageMD5: imageMD5)
    }

    /// Records the push with its change record in one transaction, from what App Store Connect holds after it (`held`:
    /// its answer to the write, which holds the experience as stored, with what was sent; no read back, issue 24).
    private func recordPush(
        _ experience: AdvancedExperience, held: ASCAdvancedExperience, action: ChangeAction, clip: AppID, imageMD5: String?
    ) throws(SyncFailure) {
        try registryCall { () throws(RegistryError) in
            try registry.recordASCPush(
                clip: clip, experienceID: experience.id, action: action,
                seen: .init(
                    ascExperienceID: held.id, link: held.link, state: held.status?.rawValue, fingerprint: SyncPlan.fingerprint(held)),
                version: experience.version, imageSHA256: experience.headerImage, imageMD5: imageMD5)
        }
    }

    /// The experience's header image, processed in App Store Connect: a reservation an interrupted apply left is
    /// finished when it is for the same bytes (App Store Connect has no DELETE for it); otherwise a new one.
    private func uploadedImage(
        _ experience: AdvancedExperience, clip: AppID, reserved: String?, report: inout ApplyReport
    ) throws(SyncFailure) -> (id: String, md5: String) {
        guard let sha = experience.headerImage else {
            throw .registry(.unprocessable("experience \(experience.id) has no header image, which App Store Connect requires"))
        }
        let image = try registryCall { () throws(RegistryError) in try storedImage(sha) }
        let client = self.client, bytes = image.bytes, md5 = image.md5
        if let reserved {
            let current: ASCImage?
            do {
                current = try wait { () async throws(ASCClientError) in
                    try await client.image(type: "appClipAdvancedExperienceImages", id: reserved)
                }
            } catch .rejected(status: 404, _, _, _) {
                current = nil
            } catch {
                throw .appStoreConnect(error)
            }
            if let current, let finished = try resume(current, bytes: bytes, md5: md5) {
                progress("  image \(finished.id): resumed")
                return (finished.id, md5)
            }
            report.notes.append(
                "image \(reserved) reserved by an earlier apply for experience \(experience.id) is left unused "
                    + "(App Store Connect has no DELETE for it)")
        }
        let fileName = "\(sha.prefix(16)).\(image.mediaType == "image/jpeg" ? "jpg" : "png")"
        let reservation = try call { () async throws(ASCClientError) in
            try await client.reserveAdvancedExperienceImage(fileName: fileName, size: bytes.count)
        }
        try registryCall { () throws(RegistryError) in
            try registry.recordASCImageReservation(clip: clip, experienceID: experience.id, imageID: reservation.id)
        }
        progress("  image \(reservation.id): uploading \(bytes.count) bytes in \(reservation.uploadOperations.count) part(s)")
        let finished = try send(experience.id, experience.url.canonical, drafts: [], image: true) { () async throws(ASCClientError) in
            try await client.finishUpload(reservation, bytes: bytes)
        }
        return (finished.id, md5)
    }

    /// Finishes a reserved image if it is for these bytes: nil when it is not (another size or checksum, or failed).
    private func resume(_ image: ASCImage, bytes: [UInt8], md5: String) throws(SyncFailure) -> ASCImage? {
        let client = self.client
        switch image.state?.known {
        case .awaitingUpload?:
            guard image.fileSize == bytes.count, !image.uploadOperations.isEmpty else { return nil }
            return try call { () async throws(ASCClientError) in try await client.finishUpload(image, bytes: bytes) }
        case .uploadComplete?, .complete?:
            guard image.sourceFileChecksum == md5 else { return nil }
            return try call { () async throws(ASCClientError) in try await client.waitUntilProcessed(image) }
        default:
            return nil
        }
    }

    /// Sends a write; App Store Connect's entity errors come back mapped to the registry's fields.
    private func send<T: Sendable>(
        _ experienceID: Int64?, _ url: String, drafts: [AdvancedExperienceLocalizationDraft], image: Bool = false,
        _ body: @escaping @Sendable () async throws(ASCClientError) -> T
    ) throws(SyncFailure) -> T {
        do {
            return try wait(body)
        } catch .rejected(let status, _, _, let errors)
            where [409, 422].contains(status) && errors.contains(where: { $0.hasCode("ENTITY_ERROR") })
        {
            throw .rejected(
                experienceID: experienceID, url: url, status: status,
                errors: errors.map { e in
                    .init(
                        field: image
                            ? "headerImage"
                            : e.pointer.flatMap { SyncPlan.registryField(pointer: $0, languages: drafts.map(\.language.rawValue)) },
                        code: e.code,
                        detail: e.detail ?? e.title,
                        pointer: e.pointer)
                })
        } catch {
            throw .appStoreConnect(error)
        }
    }

    /// The create request of an experience, in App Store Connect's vocabulary (the registry's enums are its values).
    static func draft(_ experience: AdvancedExperience) throws(SyncFailure) -> AdvancedExperienceDraft {
        var localizations: [AdvancedExperienceLocalizationDraft] = []
        for (language, card) in experience.localizations.sorted(by: { $0.key < $1.key }) {
            guard let theirs = AppClipLanguage(rawValue: language.rawValue) else {
                throw .registry(
                    .unprocessable("language \(language.rawValue) of experience \(experience.id) has no App Store Connect value"))
            }
            localizations.append(.init(language: theirs, title: card.title, subtitle: card.subtitle))
        }
        guard let language = AppClipLanguage(rawValue: experience.defaultLanguage.rawValue) else {
            throw .registry(.unprocessable("language \(experience.defaultLanguage.rawValue) has no App Store Connect value"))
        }
        return SyncPlan.draft(experience, language: language, localizations: localizations)
    }
}
