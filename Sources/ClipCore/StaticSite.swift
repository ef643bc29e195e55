import StrictJSON

/// The files `clipctl publish DIR` writes (issue #6): per host
/// `<host>/.well-known/apple-app-site-association`, a banner snippet per experience
/// `<host>/banners/<id>.html`, `index.json` with every file's size and SHA-256, and
/// `nginx.conf.sample`. Pure and deterministic: the same registry gives the same bytes (no
/// timestamps, everything sorted).
public enum StaticSite {
    public struct File: Sendable, Equatable {
        /// Relative to the published directory, "/"-separated.
        public let path: String
        public let bytes: [UInt8]
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
    public static let nginxName = "nginx.conf.sample"
    static let wellKnown = ".well-known/apple-app-site-association"

    /// Every file, in path order; `index.json` lists the others.
    public static func files(aasa: [(host: String, bytes: [UInt8])], banners: [Banner], nginx: NginxOptions) -> [File] {
        let hosts = aasa.map(\.host).sorted()
        var files = aasa.map { File(path: "\($0.host)/\(wellKnown)", bytes: $0.bytes) }
        for banner in banners {
            let html = "<!-- Smart App Banner for \(SmartBanner.htmlEscape(banner.url.canonical)) -->\n\(banner.metaTag)\n"
            files.append(File(path: "\(banner.url.host)/banners/\(banner.experienceID).html", bytes: Array(html.utf8)))
        }
        files.append(File(path: nginxName, bytes: Array(nginxConfiguration(hosts: hosts, options: nginx).utf8)))
        files.sort { $0.path < $1.path }
        let index: JSONValue = .object([
            "files": .array(files.map { f in
                .object(["path": .string(f.path), "bytes": .integer(Int64(f.bytes.count)), "sha256": .string(SHA256.hexDigest(f.bytes))])
            }),
            "hosts": .array(hosts.map(JSONValue.string)),
        ])
        // index.json sorts between the host folders and nginx.conf.sample.
        let indexFile = File(path: indexName, bytes: JSONWriter.bytes(index, pretty: true) + [0x0A])
        files.insert(indexFile, at: files.firstIndex { $0.path > indexName } ?? files.endIndex)
        return files
    }

    /// One server block per host serving only its AASA, with `Content-Type: application/json`,
    /// no redirect and 404 for everything else (apple-spec §4.1: HTTPS, no redirects, JSON type).
    public static func nginxConfiguration(hosts: [String], options: NginxOptions) -> String {
        var lines = [
            "# Serves the App Clip Registry's published AASA files (clipctl publish). Include it in the",
            "# http block of nginx.conf. Apple fetches https://<host>/.well-known/apple-app-site-association",
            "# over HTTPS, without redirects, and reads it as application/json (apple-spec §4.1).",
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
}
