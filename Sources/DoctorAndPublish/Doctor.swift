public import AppleFormats
public import ClipCore
import QRCode
import StrictJSON

/// Cross-checks of a registry's data that catch what users get wrong, each finding with a stable
/// code, a subject, what is wrong and how to fix it (`clipctl doctor`). Pure: the caller
/// supplies a snapshot.
public enum Doctor {
    /// The files an interrupted restore left beside the database (their paths and sizes), which the next
    /// `clipctl restore` or `clipctl serve` removes (docs/reliability.md#backup-and-restore).
    public static func restoreLeftovers(database: String, _ files: [(path: String, bytes: Int64)]) -> [Finding] {
        guard !files.isEmpty else { return [] }
        let megabytes = Double(files.reduce(0) { $0 + $1.bytes }) / 1_048_576
        let size = megabytes < 0.1 ? "under 0.1 MB" : "\((megabytes * 10).rounded() / 10) MB"
        let listed = files.prefix(5).map(\.path).joined(separator: ", ") + (files.count > 5 ? ", …" : "")
        return [
            Finding(
                severity: .warning, code: "db.restoreLeftovers", subject: database,
                message: "\(files.count) file(s) left beside the database by an interrupted restore (\(size)): \(listed)",
                fix: "the next clipctl restore or clipctl serve removes them; or remove them yourself")
        ]
    }

    public struct Finding: Sendable, Equatable {
        public let severity: Severity
        public let code: String
        /// What it is about: a host, a URL, a clip or an app.
        public let subject: String
        public let message: String
        public let fix: String?

        public init(severity: Severity, code: String, subject: String, message: String, fix: String?) {
            self.severity = severity
            self.code = code
            self.subject = subject
            self.message = message
            self.fix = fix
        }
    }

    /// One host's AASA as the registry generates it, with what the doctor checks beside the bytes.
    public struct HostFile: Sendable, Equatable {
        public let host: String
        /// App IDs of the clips associated with the host.
        public let clips: [AppID]
        /// The bytes, or the size error when the file would exceed 128 KB.
        public let bytes: Result<[UInt8], AASAGenerator.TooLarge>
        /// The experience URLs the generated applinks do not give to their app (`ExperienceApplinks.verify`).
        public let applinksMisses: [ExperienceApplinks.Miss]
        /// `appclips.apps` as the bytes say.
        let listedClips: Set<String>

        public init(content: AASAContent) {
            let bytes = Result { () throws(AASAGenerator.TooLarge) in try AASAGenerator.bytes(content) }
            let document = (try? bytes.get()).flatMap { try? JSONParser.parse($0) } ?? .null
            let misses =
                content.generated.isEmpty || document.isNull
                ? [] : ExperienceApplinks.verify(document, host: content.host, content.generated)
            self.init(host: content.host, clips: content.clips, bytes: bytes, applinksMisses: misses, document: document)
        }

        /// A host file as read back from elsewhere (`GET /v1/bulk`).
        public init(host: String, clips: [AppID], bytes: Result<[UInt8], AASAGenerator.TooLarge>, applinksMisses: [ExperienceApplinks.Miss])
        {
            let document = (try? bytes.get()).flatMap { try? JSONParser.parse($0) } ?? .null
            self.init(host: host, clips: clips, bytes: bytes, applinksMisses: applinksMisses, document: document)
        }

        private init(
            host: String, clips: [AppID], bytes: Result<[UInt8], AASAGenerator.TooLarge>, applinksMisses: [ExperienceApplinks.Miss],
            document: JSONValue
        ) {
            self.host = host
            self.clips = clips
            self.bytes = bytes
            self.applinksMisses = applinksMisses
            listedClips = Set(document["appclips"]?["apps"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    public struct Snapshot: Sendable {
        public var apps: [App]
        public var clips: [Clip]
        public var defaults: [DefaultExperience]
        /// Experiences that are not removed.
        public var experiences: [AdvancedExperience]
        public var hosts: [HostFile]
        /// Who holds each host that more than one team holds.
        public var sharedHosts: [HostOwnership]
        /// The chosen TestFlight invocations of the clips linked to App Store Connect or with some chosen.
        public var testflight: [TestFlightChoice] = []
        /// The moment windows are judged at (`windowDark`); nil: every window counts as to come.
        public var now: Instant?
        public init(
            apps: [App], clips: [Clip], defaults: [DefaultExperience], experiences: [AdvancedExperience], hosts: [HostFile],
            sharedHosts: [HostOwnership] = []
        ) {
            self.apps = apps
            self.clips = clips
            self.defaults = defaults
            self.experiences = experiences
            self.hosts = hosts
            self.sharedHosts = sharedHosts
        }

        /// An empty snapshot, to be filled record by record (`add`).
        public init() { self.init(apps: [], clips: [], defaults: [], experiences: [], hosts: []) }

        /// Takes one record of a bulk read (`RegistryRecord`), in any order.
        public mutating func add(_ record: RegistryRecord) {
            switch record {
            case .app(let app): apps.append(app)
            case .clip(let clip): clips.append(clip)
            case .defaultExperience(let d): defaults.append(d)
            case .host(let file): hosts.append(file)
            case .sharedHost(let ownership): sharedHosts.append(ownership)
            case .experience(let e): experiences.append(e)
            case .testflight(let choice): testflight.append(choice)
            }
        }
    }

    /// Share of the 128 KB limit past which a host's AASA gets a warning.
    static let sizeWarningShare = 0.8

    /// The findings, errors first, then by code and subject.
    public static func examine(_ s: Snapshot) -> [Finding] {
        var findings = Findings()
        checkExperiences(s, &findings)
        checkLocalizationSets(s.experiences, &findings)
        checkClips(s, &findings)
        checkAppStoreIDs(s.apps, &findings)
        for file in s.hosts.sorted(by: { $0.host < $1.host }) { checkHostFile(file, &findings) }
        checkSharedHosts(s.sharedHosts, &findings)
        checkTestFlight(s, &findings)
        checkWindows(s, &findings)
        return findings.list.sorted { a, b in
            if a.severity != b.severity { return a.severity < b.severity }
            if a.code != b.code { return a.code < b.code }
            return a.subject < b.subject
        }
    }

    /// The findings an acknowledgement quiets, and the rest (docs/aasa-tools.md#acknowledged-findings).
    public struct Acknowledged: Sendable, Equatable {
        /// The findings no acknowledgement covers, in their order.
        public var shown: [Finding]
        /// Each acknowledgement with the findings it quiets (the first that covers a finding has it).
        public var quieted: [(acknowledgement: DoctorAcknowledgement, findings: [Finding])]

        public static func == (a: Acknowledged, b: Acknowledged) -> Bool {
            a.shown == b.shown && a.quieted.map(\.acknowledgement) == b.quieted.map(\.acknowledgement)
                && a.quieted.map(\.findings) == b.quieted.map(\.findings)
        }
    }

    /// Splits `findings` by `acknowledgements`: a finding is quiet when an acknowledgement names its rule and covers
    /// the experience at its subject (a URL of `experiences`). A finding about a host, a clip or an app is quiet under
    /// an administrator's acknowledgement whose scope is that host or that clip alone; a team's never quiets one.
    public static func acknowledge(
        _ findings: [Finding], _ acknowledgements: [DoctorAcknowledgement], experiences: [AdvancedExperience]
    ) -> Acknowledged {
        guard !acknowledgements.isEmpty else { return Acknowledged(shown: findings, quieted: []) }
        let byURL = Dictionary(experiences.map { ($0.url.canonical, $0) }, uniquingKeysWith: { a, _ in a })
        var quiet = Array(repeating: [Finding](), count: acknowledgements.count)
        var shown: [Finding] = []
        for finding in findings {
            let covering = acknowledgements.firstIndex { a in
                guard a.rule == finding.code else { return false }
                if let experience = byURL[finding.subject] { return a.covers(experience) }
                let scope = a.scope
                guard a.team == nil, scope.status == nil, scope.labels.isEmpty else { return false }
                switch (scope.host, scope.clip) {
                case (let host?, nil): return host == finding.subject
                case (nil, let clip?): return clip == finding.subject
                default: return false
                }
            }
            if let covering { quiet[covering].append(finding) } else { shown.append(finding) }
        }
        return Acknowledged(shown: shown, quieted: zip(acknowledgements, quiet).map { ($0, $1) })
    }

    /// The findings in the order the checks make them.
    struct Findings {
        var list: [Finding] = []
        mutating func add(_ severity: Severity, _ rule: Rule, _ subject: String, _ message: String, fix: String? = nil) {
            list.append(Finding(severity: severity, code: rule.rawValue, subject: subject, message: message, fix: fix))
        }
    }

    /// The registry's rules, each a finding's `code` (docs/aasa-tools.md#clipctl-doctor---host-h---json): what an acknowledgement names.
    public enum Rule: String, Sendable, CaseIterable {
        case hostNotAssociated = "host-not-associated", aasaMissingClip = "aasa-missing-clip", applinksMiss = "applinks-miss"
        case aasaSize = "aasa-size", aasaLint = "aasa-lint", appClipCode = "app-clip-code", qrVersion = "qr-version"
        case titleLength = "title-length", subtitleLength = "subtitle-length", localizationSet = "localization-set"
        case noDefaultExperience = "no-default-experience", noAppStoreID = "no-app-store-id", crossTeamHost = "cross-team-host"
        case bannerClipChoice = "banner-clip-choice", testflightNone = "testflight-none", testflightUntitled = "testflight-untitled"
        case testflightUnresolved = "testflight-unresolved", windowDark = "window-dark"
    }

    /// Experiences: association, AASA, banner, App Clip Code, card text.
    static func checkExperiences(_ s: Snapshot, _ findings: inout Findings) {
        let clipsByID = Dictionary(s.clips.map { ($0.appID, $0) }, uniquingKeysWith: { a, _ in a })
        let filesByHost = Dictionary(s.hosts.map { ($0.host, $0) }, uniquingKeysWith: { a, _ in a })
        var reportedPairs: Set<String> = []
        for e in s.experiences.sorted(by: { $0.url.canonical < $1.url.canonical }) {
            let pair = "\(e.clip.rawValue) \(e.url.host)"
            if !(clipsByID[e.clip]?.hosts.contains(e.url.host) ?? false), reportedPairs.insert(pair).inserted {
                // The host needs appclips:<host> and an AASA listing the clip (docs/apple-formats.md#appclips).
                findings.add(
                    .error, .hostNotAssociated, e.url.host,
                    "experiences of \(e.clip.rawValue) are on \(e.url.host), which is not associated with the clip: iOS will not launch it there",
                    fix: Shell.command(["clipctl", "domain", "add", e.clip.rawValue, e.url.host]))
            } else if let file = filesByHost[e.url.host], case .success = file.bytes,
                !file.listedClips.contains(e.clip.rawValue), reportedPairs.insert(pair).inserted
            {
                findings.add(
                    .error, .aasaMissingClip, e.url.host,
                    "the AASA of \(e.url.host) does not list \(e.clip.rawValue) in appclips.apps, so neither the experience nor the banner works there",
                    fix: Shell.command(["clipctl", "domain", "add", e.clip.rawValue, e.url.host]))
            }
            checkCodes(e, &findings)
            checkCardText(e, &findings)
        }
    }

    /// Windows (docs/schedules.md#what-the-doctor-says): a live or scheduled experience whose URL matches nothing at all
    /// outside its window, on a host with App Clip experiences. A code printed for it then makes iOS show an error
    /// instead of opening Safari (docs/rules.md#candidates: no candidate, no default experience).
    static func checkWindows(_ s: Snapshot, _ findings: inout Findings) {
        let windowed = s.experiences.filter { e in
            e.status == .active && (e.liveFrom != nil || e.liveUntil != nil) && (s.now.map { e.state(at: $0) != .ended } ?? true)
        }
        guard !windowed.isEmpty else { return }
        let byHost = Dictionary(grouping: s.experiences, by: \.url.host)
        let defaults = Dictionary(s.defaults.map { ($0.clip, $0) }, uniquingKeysWith: { a, _ in a })
        for e in windowed.sorted(by: { $0.url.canonical < $1.url.canonical }) {
            let fallbacks = s.clips.filter { $0.hosts.contains(e.url.host) }.compactMap { clip in
                defaults[clip.appID].map { DefaultFallback(experience: $0, appName: "") }
            }
            let edges = [
                e.liveFrom.map { (Instant(seconds: $0.seconds - 1), "before it starts at \($0)") },
                e.liveUntil.map { ($0, "from its end at \($0)") },
            ]
            for case (let moment, let when)? in edges where s.now.map({ moment >= $0 }) ?? true {
                let answer = Resolver.resolve(
                    e.url.canonical, url: e.url, candidates: byHost[e.url.host] ?? [], fallbacks: fallbacks, preferences: [], at: moment)
                guard answer.match == nil else { continue }
                findings.add(
                    .warning, .windowDark, e.url.canonical,
                    "\(when) its URL matches nothing on \(e.url.host): iOS shows an error for the codes printed for it instead of opening Safari",
                    fix: "give \(e.clip.rawValue) a default experience (clipctl default set \(e.clip.rawValue) …), register a shorter URL "
                        + "that is always live, or open the window (clipctl update \(e.id) --no-live-\(when.hasPrefix("before") ? "from" : "until"))"
                )
            }
        }
    }

    /// Whether the experience's URL can be an App Clip Code, and a QR code small enough to scan.
    static func checkCodes(_ e: AdvancedExperience, _ findings: inout Findings) {
        let url = e.url.canonical
        let codeProblems = AppClipCode.problems(e.url)
        if !codeProblems.isEmpty {
            findings.add(
                .warning, .appClipCode, url, "cannot be encoded in an App Clip Code: " + codeProblems.joined(separator: "; "),
                fix: "register a URL with a host of a–z, '.' and '-' and a path of a–z A–Z 0–9 /#?=%-._,+;:& "
                    + "(Apple: \"Encoding a URL in an App Clip Code\"), or invoke it by NFC, QR or Safari only")
        }
        if let version = QRCodeSize.versionAboveAdvised(url) {
            findings.add(
                .warning, .qrVersion, url,
                "its QR code needs version \(version) at error correction level M (\(QRCode.size(version: version)) modules a side); "
                    + "above version \(QRCodeSize.advisedMaxVersion) the modules of a code printed on a table tent are too small to scan from arm's length",
                fix: "register a shorter URL (fewer path segments or query items), or print the code larger than 40 mm")
        }
    }

    /// The card's title and subtitle in each language against the advised lengths.
    static func checkCardText(_ e: AdvancedExperience, _ findings: inout Findings) {
        let url = e.url.canonical
        for (language, card) in e.localizations.sorted(by: { $0.key < $1.key }) {
            // The fix is the command that sets the text as it is now: shorten it, then run it.
            func edit(_ part: String, _ text: String) -> String {
                language == e.defaultLanguage
                    ? Shell.command(["clipctl", "update", String(e.id), "--\(part)", text])
                    : Shell.command([
                        "clipctl", "update", String(e.id), "--localization", "\(language.tag)=\(card.title)|\(card.subtitle)",
                    ])
            }
            if card.title.count > TextLimits.titleAdvised {
                findings.add(
                    .warning, .titleLength, url,
                    "the \(language.tag) title is \(card.title.count) characters; older guidance (WWDC20) advises at most \(TextLimits.titleAdvised), so it may be truncated",
                    fix: edit("title", card.title))
            }
            if card.subtitle.count > TextLimits.subtitleAdvised {
                findings.add(
                    .warning, .subtitleLength, url,
                    "the \(language.tag) subtitle is \(card.subtitle.count) characters; older guidance (WWDC20) advises at most \(TextLimits.subtitleAdvised)",
                    fix: edit("subtitle", card.subtitle))
            }
        }
    }

    /// Localization sets: a language some experiences of a clip have and others lack.
    static func checkLocalizationSets(_ experiences: [AdvancedExperience], _ findings: inout Findings) {
        let byClip = Dictionary(grouping: experiences, by: \.clip)
        for (clip, experiences) in byClip.sorted(by: { $0.key < $1.key }) where experiences.count > 1 {
            let languages = Set(experiences.flatMap(\.localizations.keys))
            for language in languages.sorted() {
                let lacking = experiences.filter { $0.localizations[language] == nil }.map(\.url.canonical).sorted()
                guard !lacking.isEmpty else { continue }
                let examples = lacking.prefix(3).joined(separator: ", ") + (lacking.count > 3 ? ", …" : "")
                findings.add(
                    .warning, .localizationSet, clip.rawValue,
                    "\(lacking.count) of the clip's \(experiences.count) experiences have no \(language.tag) card while the others do (\(examples)): people reading \(language.tag) see the default language there",
                    fix: lacking.map { Shell.command(["clipctl", "update", $0, "--localization", "\(language.tag)=TITLE|SUBTITLE"]) }
                        .joined(separator: "; "))
            }
        }
    }

    /// Clips: a default experience, and its subtitles against the advised length.
    static func checkClips(_ s: Snapshot, _ findings: inout Findings) {
        let defaultsByClip = Dictionary(s.defaults.map { ($0.clip, $0) }, uniquingKeysWith: { a, _ in a })
        for clip in s.clips.sorted(by: { $0.appID < $1.appID }) {
            if let d = defaultsByClip[clip.appID] {
                for (locale, l) in d.localizations.sorted(by: { $0.key < $1.key }) where l.subtitle.count > TextLimits.subtitleAdvised {
                    findings.add(
                        .warning, .subtitleLength, clip.appID.rawValue,
                        "the \(locale) subtitle of the default experience is \(l.subtitle.count) characters; older guidance (WWDC20) advises at most \(TextLimits.subtitleAdvised)",
                        fix: Shell.command(
                            ["clipctl", "default", "set", clip.appID.rawValue]
                                + d.localizations.sorted(by: { $0.key < $1.key }).flatMap {
                                    ["--subtitle", "\($0.key)=\($0.value.subtitle)"]
                                }))
                }
            } else {
                // Every App Clip has a default experience in App Store Connect (docs/apple-formats.md#default-experience).
                findings.add(
                    .warning, .noDefaultExperience, clip.appID.rawValue,
                    "has no default experience: invocations that match no advanced experience find nothing, and App Store Connect requires one",
                    fix: Shell.command(["clipctl", "default", "set", clip.appID.rawValue, "--subtitle", "en-US=TEXT"]))
            }
        }
    }

    /// TestFlight invocations (docs/app-store-connect.md#testflight-invocations): a clip linked to App Store Connect with
    /// active experiences and none chosen leaves testers typing URLs by hand; a chosen URL that no longer resolves to
    /// the clip stops `asc testflight apply` and `asc apply` (App Review gets the same URLs).
    static func checkTestFlight(_ s: Snapshot, _ findings: inout Findings) {
        let active = Set(s.experiences.filter { $0.status == .active }.map(\.clip))
        for choice in s.testflight.sorted(by: { $0.clip < $1.clip }) {
            let clip = choice.clip.rawValue
            if choice.invocations.isEmpty, choice.linked, active.contains(choice.clip) {
                findings.add(
                    .warning, .testflightNone, clip,
                    "is linked to App Store Connect and has active experiences, but no TestFlight invocations chosen: testers and App Review get no URL to open the App Clip with",
                    fix: Shell.command(["clipctl", "asc", "testflight", "set", clip, "URL"]))
            }
            // The fix keeps the URLs that still resolve, in their order.
            let resolving = choice.invocations.filter { if case .unresolved = $0.target { false } else { true } }.map(\.url)
            let app = s.clips.first { $0.appID == choice.clip }?.appBundleID.rawValue ?? ""
            for invocation in choice.invocations {
                if let untitled = invocation.untitled(appBundleID: app, team: choice.clip.team.rawValue) {
                    findings.add(.warning, .testflightUntitled, invocation.url, untitled.message, fix: untitled.fix)
                }
                guard case .unresolved(let why) = invocation.target else { continue }
                findings.add(
                    .warning, .testflightUnresolved, invocation.url,
                    "is chosen as TestFlight invocation \(invocation.position) of \(clip) but \(why)",
                    fix: Shell.command(["clipctl", "asc", "testflight", "set", clip] + (resolving.isEmpty ? ["URL"] : resolving)))
            }
        }
    }

    /// Apps: an App Store ID for the banner.
    static func checkAppStoreIDs(_ apps: [App], _ findings: inout Findings) {
        for app in apps.sorted(by: { $0.bundleID < $1.bundleID }) where app.appStoreID == nil {
            // app-id is the banner's link to the App Store (docs/apple-formats.md#smart-app-banner).
            findings.add(
                .warning, .noAppStoreID, app.bundleID.rawValue,
                "has no App Store ID, so its Smart App Banners carry no app-id",
                fix: Shell.command(["clipctl", "app", "set", app.bundleID.rawValue, "--team", app.team.rawValue, "--app-store-id", "N"]))
        }
    }

    /// A host's AASA: size, lint, generated applinks; and the banner's clip choice.
    static func checkHostFile(_ file: HostFile, _ findings: inout Findings) {
        let host = file.host
        switch file.bytes {
        case .failure(let tooLarge):
            findings.add(
                .error, .aasaSize, host, tooLarge.description,
                fix: "remove applinks rules or associations of \(host), or turn off clipctl applinks generate \(host)")
        case .success(let bytes):
            let share = Double(bytes.count) / Double(AASAGenerator.maxBytes)
            if share >= sizeWarningShare {
                findings.add(
                    .warning, .aasaSize, host,
                    "the AASA is \(bytes.count) bytes, \(Int(share * 100))% of Apple's 128 KB limit: little headroom for more rules",
                    fix: "merge components with wildcards or substitution variables")
            }
            for d in AASALinter.lint(bytes) where d.severity != .info {
                findings.add(
                    d.severity == .error ? .error : .warning, .aasaLint, host,
                    "\(d.code) \(d.path.isEmpty ? "(file)" : d.path): \(d.message)")
            }
            for miss in file.applinksMisses {
                findings.add(
                    .error, .applinksMiss, miss.url,
                    "the generated applinks do not give it to \(miss.app.rawValue): \(miss.result.decision.rawValue) by \(miss.result.rule)",
                    fix:
                        "change the app's own rules (clipctl applinks set \(host) --app \(miss.app.bundleID.rawValue) …) so that none excludes it first"
                )
            }
        }
        let clips = Set(file.clips)
        if clips.count > 1 {
            findings.add(
                .info, .bannerClipChoice, host,
                "\(clips.count) clips are associated with \(host): a page that matches none of their experiences needs the clip named for its banner",
                fix: Shell.command(["clipctl", "banner", "https://\(host)/PAGE", "--clip", "CLIP"]))
        }
    }

    /// Hosts several teams hold (HostOwnership): each of them can change what the host's AASA
    /// lists and which experience answers its URLs.
    static func checkSharedHosts(_ sharedHosts: [HostOwnership], _ findings: inout Findings) {
        for ownership in sharedHosts.sorted(by: { $0.host < $1.host }) where ownership.isCrossTeam {
            let host = ownership.host
            let teams = ownership.holders.map { "\($0.team.rawValue) (\($0.role.rawValue))" }.joined(separator: ", ")
            let unconfirmed = ownership.holders.filter { $0.origin == .migration }.map(\.team)
            if unconfirmed.isEmpty {
                findings.add(
                    .info, .crossTeamHost, host, "\(host) is shared by teams \(teams), as an administrator decided",
                    fix: Shell.command(["clipctl", "domain", "unshare", host, "--team", "TEAMID"]))
            } else {
                findings.add(
                    .warning, .crossTeamHost, host,
                    "\(host) was used by teams \(teams) before hosts belonged to teams; they still share it until an administrator confirms it or gives it to one team",
                    fix: unconfirmed.map { Shell.command(["clipctl", "domain", "share", host, "--team", $0.rawValue]) }.joined(
                        separator: "; ")
                        + " (to confirm), or remove the other teams' objects and "
                        + Shell.command(["clipctl", "domain", "claim", host, "--team", "TEAMID"]))
            }
        }
    }
}

/// App Clip Code URL rules (docs/apple-formats.md#app-clip-codes).
public enum AppClipCode {
    /// Why `url` cannot be encoded in an App Clip Code; empty when it can (capacity aside, which
    /// Apple does not publish).
    public static func problems(_ url: NormalizedURL) -> [String] {
        var problems: [String] = []
        // Apple ("Encoding a URL in an App Clip Code"): "can only contain the lowercase ASCII characters a to z, ., and -" (no digits).
        let badHost = Set(url.host.filter { !(("a"..."z").contains($0) || $0 == "." || $0 == "-") })
        if !badHost.isEmpty {
            problems.append("the host has \(describe(badHost)); only a–z, '.' and '-' are allowed")
        }
        // Apple ("Encoding a URL in an App Clip Code"): path, query and fragment use a–z A–Z 0–9 and /#?=%-._,+;:& only.
        let rest = String(url.canonical.dropFirst("https://".count + url.host.count))
        let badRest = Set(
            rest.filter { c in
                guard c.isASCII, let b = c.asciiValue else { return true }
                return !(isAlnum(b) || "/#?=%-._,+;:&".utf8.contains(b))
            })
        if !badRest.isEmpty {
            problems.append("the path or query has \(describe(badRest)); only a–z A–Z 0–9 and /#?=%-._,+;:& are allowed")
        }
        return problems
    }

    static func describe(_ characters: Set<Character>) -> String {
        characters.sorted().map { "'\($0)'" }.joined(separator: " ")
    }
}

/// How dense a URL's QR code is (ISO/IEC 18004:2015: version V has 17 + 4 · V modules a side).
public enum QRCodeSize {
    /// The highest version that still scans easily from a table tent or a sticker: 57 modules a side,
    /// 65 with the quiet zone, so about 0.6 mm a module on a 40 mm code.
    public static let advisedMaxVersion = 10

    /// The version `url` needs at level M when it is above `advisedMaxVersion`; nil when it is not, or
    /// when no version holds it (the code command says so itself).
    public static func versionAboveAdvised(_ url: String) -> Int? {
        // A URL that fits version 10 in byte mode fits it whatever the segmentation: skip the encoder.
        let byteCount = url.utf8.count
        if byteCount <= QRCode.byteCapacity(version: advisedMaxVersion, level: .medium, utf8: url.utf8.contains { $0 >= 0x80 }) {
            return nil
        }
        do {
            _ = try QRCode.encode(url, ecc: .medium, version: advisedMaxVersion)
            return nil
        } catch {
            if case .versionTooSmall(_, _, let needed, _) = error { return needed }
            return nil
        }
    }
}

extension Doctor {
    /// The findings of one rule and severity, in the order `examine` gives them.
    public struct Group: Sendable, Equatable {
        public let severity: Severity
        public let code: String
        public let findings: [Finding]
        /// The fixes of its findings, each once, in order.
        public var fixes: [String] { findings.compactMap(\.fix).reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }
    }

    /// The findings by rule and severity, each group where its first finding is: a report of 10,000
    /// experiences reads as its few rules, not as its findings one by one.
    public static func groups(_ findings: [Finding]) -> [Group] {
        var order: [String] = []
        var byKey: [String: [Finding]] = [:]
        for f in findings {
            let key = "\(f.severity.rawValue) \(f.code)"
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(f)
        }
        return order.map { key in
            let list = byKey[key]!
            return Group(severity: list[0].severity, code: list[0].code, findings: list)
        }
    }
}
