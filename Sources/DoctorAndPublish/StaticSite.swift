public import ClipCore
import FileFormats
import StrictJSON

/// The files `clipctl publish DIR` writes: per host
/// `<host>/.well-known/apple-app-site-association`, a banner snippet per experience
/// `<host>/banners/<id>.html`, `index.json` with every file's size and SHA-256, and
/// `nginx.conf.sample`. Pure and deterministic: the same registry gives the same bytes (no
/// timestamps, everything sorted).
public enum StaticSite {
    public struct File: Sendable, Equatable {
        /// Relative to the published directory, "/"-separated.
        public let path: String
        public let bytes: [UInt8]
        public init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// What says, in a directory's `index.json`, which tool wrote the directory (and so may replace it):
    /// the index's "format" and "formatVersion", and the command named in refusals.
    public struct IndexMarker: Sendable, Equatable {
        public let format: String
        public let version: Int64
        public let writer: String
        public init(format: String, version: Int64, writer: String) {
            self.format = format
            self.version = version
            self.writer = writer
        }
    }

    public struct Banner: Sendable, Equatable {
        public let experienceID: Int64
        public let url: NormalizedURL
        public let metaTag: String
        public init(experienceID: Int64, url: NormalizedURL, metaTag: String) {
            self.experienceID = experienceID
            self.url = url
            self.metaTag = metaTag
        }
    }

    /// Where the sample nginx configuration listens and what root it names.
    public struct NginxOptions: Sendable {
        /// An nginx `listen` parameter; "443 ssl" adds certificate lines to fill in.
        public var listen: String
        /// The absolute directory the files will be served from.
        public var root: String
        public init(listen: String = "443 ssl", root: String) {
            self.listen = listen
            self.root = root
        }
    }

    public static let indexName = "index.json"
    /// The marker in `index.json` that says this tool wrote the directory; nothing else is ours.
    public static let indexFormat = "clip-registry-publish"
    public static let indexFormatVersion: Int64 = 1
    public static let publishMarker = IndexMarker(format: indexFormat, version: indexFormatVersion, writer: "clipctl publish")
    public static let nginxName = "nginx.conf.sample"
    static let wellKnown = ".well-known/apple-app-site-association"

    /// How a banner snippet's file is named under `<host>/banners/` (docs/aasa-tools.md#clipctl-publish-dir---nginx-listen-listen---banner-names-idpath).
    public enum BannerNames: String, Sendable, CaseIterable {
        /// `<id>.html`, by the experience's registry id.
        case id
        /// By the page's path, as the web team thinks of it: `/s/paris/par007` is `s/paris/par007.html` (`pagePath`).
        case path
    }

    /// The file, without `.html`, of the banner of `url` under its host's `banners/`: each path segment as it is when it
    /// is made of a–z, 0–9, `.`, `_` and `-`, neither begins nor ends with `.`, and (short of the last) does not end in
    /// `.html`; the root `/` as `index`. Any other segment keeps those characters and ends in `~` and 12 hexadecimal
    /// digits of its SHA-256, the last one (or one with a query, or a last segment `index`) of the URL's. So two pages
    /// never share a file, a file never meets a folder, and names that differ only in case (APFS, NTFS) never meet.
    public static func pagePath(_ url: NormalizedURL) -> String {
        var segments = url.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let lastPlain = url.queryItems.isEmpty && segments.last != "index"
        if segments.isEmpty {
            segments = ["index"]
        } else if segments.last == "" {
            segments[segments.count - 1] = "index"
        }
        func digest(_ text: String) -> String { String(SHA256.hexDigest(Array(text.utf8)).prefix(12)) }
        var names: [String] = []
        for (i, segment) in segments.enumerated() {
            let last = i == segments.count - 1
            var kept = ""
            var plain = !segment.isEmpty && segment.utf8.count <= 100 && !segment.hasPrefix(".") && !segment.hasSuffix(".")
            for scalar in segment.unicodeScalars {
                switch scalar {
                case "a"..."z", "0"..."9", "_", "-", ".": kept.unicodeScalars.append(scalar)
                case "A"..."Z":
                    kept.unicodeScalars.append(scalar)
                    plain = false
                default:
                    kept += "-"
                    plain = false
                }
            }
            if !last && segment.lowercased().hasSuffix(".html") { plain = false }
            kept = String(kept.drop { $0 == "." }.prefix(100))
            if last {
                names.append(plain && lastPlain ? kept : kept + "~" + digest(url.canonical))
            } else {
                names.append(plain ? kept : kept + "~" + digest(segment))
            }
        }
        return names.joined(separator: "/")
    }

    /// Every file, in path order; `index.json` lists the others.
    public static func files(
        aasa: [(host: String, bytes: [UInt8])], banners: [Banner], bannerNames: BannerNames = .id, nginx: NginxOptions
    ) -> [File] {
        let hosts = aasa.map(\.host).sorted()
        var files = aasa.map { File(path: "\($0.host)/\(wellKnown)", bytes: $0.bytes) }
        for banner in banners {
            let html = "<!-- Smart App Banner for \(HTMLText.escaped(banner.url.canonical)) -->\n\(banner.metaTag)\n"
            let name = bannerNames == .id ? String(banner.experienceID) : pagePath(banner.url)
            files.append(File(path: "\(banner.url.host)/banners/\(name).html", bytes: Array(html.utf8)))
        }
        files.append(File(path: nginxName, bytes: Array(nginxConfiguration(hosts: hosts, options: nginx).utf8)))
        files.sort { $0.path < $1.path }
        let index: JSONValue = .object([
            "format": .string(indexFormat),
            "formatVersion": .integer(indexFormatVersion),
            "files": .array(
                files.map { f in
                    .object([
                        "path": .string(f.path), "bytes": .integer(Int64(f.bytes.count)), "sha256": .string(SHA256.hexDigest(f.bytes)),
                    ])
                }),
            "hosts": .array(hosts.map(JSONValue.string)),
        ])
        // index.json sorts between the host folders and nginx.conf.sample.
        let indexFile = File(path: indexName, bytes: JSONWriter.bytes(index, pretty: true) + [0x0A])
        files.insert(indexFile, at: files.firstIndex { $0.path > indexName } ?? files.endIndex)
        return files
    }

    /// One server block per host serving only its AASA, with `Content-Type: application/json`,
    /// no redirect and 404 for everything else (docs/apple-formats.md#serving: HTTPS, no redirects, JSON type).
    public static func nginxConfiguration(hosts: [String], options: NginxOptions) -> String {
        var lines = [
            "# Serves the App Clip Registry's published AASA files (clipctl publish). Include it in the",
            "# http block of nginx.conf. Apple fetches https://<host>/.well-known/apple-app-site-association",
            "# over HTTPS, without redirects, and reads it as application/json (Apple: \"Supporting associated domains\").",
            "# The first server answers 404 for hosts not listed here; drop it if you have a default server.",
        ]
        let tls = options.listen.split(separator: " ").contains("ssl")
        // Without a default server, nginx would answer unknown hosts with the first host's file.
        lines += ["", "server {", "    listen \(options.listen) default_server;", "    server_name _;"]
        if tls { lines.append("    ssl_reject_handshake on;") }
        lines += ["    return 404;", "}"]
        for host in hosts {
            lines += [
                "",
                "server {",
                "    listen \(options.listen);",
                "    server_name \(host);",
            ]
            if tls {
                lines += [
                    "    ssl_certificate     /etc/ssl/\(host)/fullchain.pem;  # your certificate for \(host)",
                    "    ssl_certificate_key /etc/ssl/\(host)/privkey.pem;",
                ]
            }
            lines += [
                "    root \(options.root)/\(host);",
                "",
                "    location = /.well-known/apple-app-site-association {",
                "        default_type application/json;",
                "        types { }",
                "        try_files $uri =404;",
                "    }",
                "    location / {",
                "        return 404;",
                "    }",
                "}",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Replacing an earlier publish

    /// What is in a directory about to be replaced, by path relative to it ("/"-separated).
    public enum Entry: Sendable, Equatable {
        case directory
        case file(sha256: String)
        /// A symbolic link, socket, device…: never something publish wrote.
        case other
    }

    /// What a publish changes in DIR, by relative path, each list sorted.
    public struct Changes: Sendable, Equatable {
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        public var unchanged: [String] = []
    }

    /// Why DIR cannot be replaced: every entry publish did not write, with the reason.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
        public let foreign: [(path: String, why: String)]
        public static func == (a: Refusal, b: Refusal) -> Bool {
            a.reason == b.reason && a.foreign.map(\.path) == b.foreign.map(\.path) && a.foreign.map(\.why) == b.foreign.map(\.why)
        }
    }

    /// The files an earlier publish listed in its `index.json` (path → SHA-256), or nil when the
    /// bytes are not an index this version writes (the format marker and version).
    public static func listedFiles(index bytes: [UInt8], marker: IndexMarker = publishMarker) -> [String: String]? {
        guard let index = try? JSONParser.parse(bytes), index["format"]?.stringValue == marker.format,
            index["formatVersion"] == .integer(marker.version), let entries = index["files"]?.arrayValue
        else { return nil }
        var listed: [String: String] = [:]
        for entry in entries {
            guard let path = entry["path"]?.stringValue, let sha = entry["sha256"]?.stringValue, path != indexName else { return nil }
            listed[path] = sha
        }
        return listed
    }

    /// Whether a publish of `files` may replace a directory holding `existing` (nil: no such
    /// directory), and what it changes. Publish replaces the directory as a whole, so it never
    /// deletes what it did not write: the directory must be absent, empty, or exactly an earlier
    /// publish, that is, an `index.json` of this format, the files it lists with the SHA-256 it
    /// lists (one edited since is somebody's now), and the folders they need. Anything else is
    /// refused with the list of what is foreign, and nothing is touched.
    public static func changes(
        replacing existing: [String: Entry]?, with files: [File], marker: IndexMarker = publishMarker,
        readIndex: () -> [UInt8]?
    ) -> Result<Changes, Refusal> {
        var old: [String: String] = [:]
        if let existing, !existing.isEmpty {
            guard case .file(let indexSHA)? = existing[indexName], let bytes = readIndex(),
                let listed = listedFiles(index: bytes, marker: marker)
            else {
                return .failure(
                    Refusal(
                        reason:
                            "it is not empty and was not written by \(marker.writer) (no \(indexName) with \"format\": \"\(marker.format)\", \"formatVersion\": \(marker.version))",
                        // Every file, and every folder with nothing in it (the others show through their content).
                        foreign: existing.keys.sorted().compactMap { path in
                            if existing[path] == .directory && existing.keys.contains(where: { $0.hasPrefix(path + "/") }) { return nil }
                            return (path, path == indexName ? "not an index \(marker.writer) wrote" : "not listed in an index")
                        }))
            }
            let folders = Set(
                listed.keys.flatMap { path in
                    let parts = path.split(separator: "/")
                    return (1..<max(parts.count, 1)).map { parts.prefix($0).joined(separator: "/") }
                })
            var foreign: [(path: String, why: String)] = []
            for (path, entry) in existing.sorted(by: { $0.key < $1.key }) where path != indexName {
                switch entry {
                case .directory where folders.contains(path): continue
                case .directory: foreign.append((path, "a folder publish did not make"))
                case .file(let sha) where listed[path] == sha: continue
                case .file where listed[path] != nil: foreign.append((path, "changed since it was published"))
                case .file: foreign.append((path, "not listed in \(indexName)"))
                case .other: foreign.append((path, "not a regular file"))
                }
            }
            guard foreign.isEmpty else {
                return .failure(Refusal(reason: "it holds files \(marker.writer) did not write (or that changed since)", foreign: foreign))
            }
            for (path, sha) in listed {
                if case .file(let onDisk)? = existing[path], onDisk == sha { old[path] = sha }
            }
            old[indexName] = indexSHA
        }
        var changes = Changes()
        for file in files {
            switch old.removeValue(forKey: file.path) {
            case nil: changes.added.append(file.path)
            case let sha? where sha == SHA256.hexDigest(file.bytes): changes.unchanged.append(file.path)
            case _?: changes.changed.append(file.path)
            }
        }
        changes.removed = old.keys.sorted()
        return .success(changes)
    }
}
