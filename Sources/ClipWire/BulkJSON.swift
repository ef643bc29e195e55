import AppleFormats
import ClipCore
public import DoctorAndPublish
import FileFormats
public import StrictJSON

/// A record of `GET /v1/bulk` (RegistryRecord): `{"kind": …, "value": …}`, the value in the shape the
/// API answers that kind in everywhere else (an app as `GET /v1/apps`, an experience as `GET /v1/experiences`…);
/// a host, which no other route answers whole, as `{host, clips, aasa (base64 of the bytes served) | aasaTooLarge, applinksMisses}`.
public enum BulkJSON {
    public static func record(_ record: RegistryRecord) -> JSONValue {
        let (kind, value): (String, JSONValue) =
            switch record {
            case .app(let app): ("app", CatalogJSON.app(app))
            case .clip(let clip): ("clip", CatalogJSON.clip(clip))
            case .defaultExperience(let d): ("defaultExperience", CatalogJSON.defaultExperience(d))
            case .host(let file): ("host", host(file))
            case .sharedHost(let ownership): ("sharedHost", HostOwnershipJSON.ownership(ownership))
            case .experience(let e): ("experience", ExperienceJSON.full(e))
            case .testflight(let choice): ("testflight", testflight(choice))
            }
        return .object(["kind": .string(kind), "value": value])
    }

    public static func record(json value: JSONValue) throws(WireError) -> RegistryRecord {
        let r = WireReader(value, "bulk record")
        guard let body = value["value"] else { throw r.fail("value") }
        switch try r.string("kind") {
        case "app": return .app(try CatalogJSON.app(json: body))
        case "clip": return .clip(try CatalogJSON.clip(json: body))
        case "defaultExperience": return .defaultExperience(try CatalogJSON.defaultExperience(json: body))
        case "host": return .host(try host(json: body))
        case "sharedHost": return .sharedHost(try HostOwnershipJSON.ownership(json: body))
        case "experience": return .experience(try CatalogJSON.experience(json: body))
        case "testflight": return .testflight(try testflight(json: body))
        case let other: throw WireError("bulk record: unknown kind \(other.prefix(40))")
        }
    }

    /// `{clip, linked, invocations: [{position, url, experience | defaultExperience | problem, titles}]}`: an invocation
    /// as `GET /v1/clips/{clip}/testflight-invocations` answers it.
    static func testflight(_ choice: TestFlightChoice) -> JSONValue {
        .object([
            "clip": .string(choice.clip.rawValue), "linked": .bool(choice.linked),
            "invocations": .array(
                choice.invocations.map { invocation in
                    var members: [(key: String, value: JSONValue)] = [
                        ("position", .integer(Int64(invocation.position))), ("url", .string(invocation.url)),
                    ]
                    switch invocation.target {
                    case .experience(let id): members.append(("experience", .integer(id)))
                    case .defaultExperience: members.append(("defaultExperience", .bool(true)))
                    case .unresolved(let why): members.append(("problem", .string(why)))
                    }
                    members.append(
                        ("titles", .array(invocation.titles.map { ["locale": .string($0.locale), "title": .string($0.title)] })))
                    return .object(members)
                }),
        ])
    }

    static func testflight(json value: JSONValue) throws(WireError) -> TestFlightChoice {
        let r = WireReader(value, "testflight")
        guard let clip = try? AppID(try r.string("clip")) else { throw r.fail("clip") }
        let invocations = try (value["invocations"]?.arrayValue ?? []).map { (item) throws(WireError) -> TestFlightInvocation in
            let i = WireReader(item, "invocation")
            let target: TestFlightInvocation.Target
            if case .integer(let id)? = item["experience"] {
                target = .experience(id)
            } else if item["defaultExperience"]?.boolValue == true {
                target = .defaultExperience
            } else {
                target = .unresolved(try i.string("problem"))
            }
            let titles = (item["titles"]?.arrayValue ?? []).map {
                TestFlightInvocation.Title(locale: $0["locale"]?.stringValue ?? "", title: $0["title"]?.stringValue ?? "")
            }
            return TestFlightInvocation(position: try i.int("position"), url: try i.string("url"), target: target, titles: titles)
        }
        return TestFlightChoice(clip: clip, linked: value["linked"]?.boolValue ?? false, invocations: invocations)
    }

    static func host(_ file: Doctor.HostFile) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            (key: "host", value: .string(file.host)), (key: "clips", value: .array(file.clips.map { .string($0.rawValue) })),
        ]
        switch file.bytes {
        case .success(let bytes): members.append((key: "aasa", value: .string(Base64.encode(bytes))))
        case .failure(let tooLarge): members.append((key: "aasaTooLarge", value: .object(["size": .integer(Int64(tooLarge.size))])))
        }
        members.append((key: "applinksMisses", value: .array(file.applinksMisses.map(CatalogJSON.miss))))
        return .object(members)
    }

    static func host(json value: JSONValue) throws(WireError) -> Doctor.HostFile {
        let r = WireReader(value, "host")
        let host = try r.string("host")
        let clips = try (value["clips"]?.arrayValue ?? []).map { (c) throws(WireError) -> AppID in
            guard let text = c.stringValue, let id = try? AppID(text) else { throw r.fail("clips") }
            return id
        }
        let bytes: Result<[UInt8], AASAGenerator.TooLarge>
        if let text = value["aasa"]?.stringValue {
            guard let decoded = Base64.decode(text) else { throw r.fail("aasa") }
            bytes = .success(decoded)
        } else if let tooLarge = value["aasaTooLarge"] {
            bytes = .failure(AASAGenerator.TooLarge(host: host, size: try WireReader(tooLarge, "aasaTooLarge").int("size")))
        } else {
            throw r.fail("aasa")
        }
        let misses = try (value["applinksMisses"]?.arrayValue ?? []).map(CatalogJSON.miss(json:))
        return Doctor.HostFile(host: host, clips: clips, bytes: bytes, applinksMisses: misses)
    }
}

extension RegistryRecord: WireShape {
    public var json: JSONValue { BulkJSON.record(self) }
    public init(json: JSONValue) throws(WireError) { self = try BulkJSON.record(json: json) }
}
