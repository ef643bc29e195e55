import ClipCore
import Foundation
import Locking
import SQLiteDB
import StrictJSON
import Testing
@testable import ClipStore

/// Every write transaction ends with one account of what it changed, told to the store's observers
/// after the commit (docs/architecture.md#the-path-of-a-write); a refused or rolled-back one tells nothing.
struct WritePipelineTests {
    final class Recorder: WriteObserver {
        let accounts = Locked<[WriteAccount]>([])
        func registryDidCommit(_ account: WriteAccount) { accounts.withLock { $0.append(account) } }
        /// The accounts told since the last call.
        func take() -> [WriteAccount] {
            accounts.withLock { a in
                defer { a = [] }; return a
            }
        }
    }

    func observed(_ path: String = temporaryDatabasePath()) throws -> (Registry, Recorder) {
        let registry = try Registry(path: path)
        let recorder = Recorder()
        registry.observers = WriteObservers()
        registry.observers?.add(recorder)
        return (registry, recorder)
    }

    /// The database's files, byte for byte, and its rows.
    func state(_ path: String) throws -> [String] {
        try snapshot(path) + [path, path + "-wal"].map { (try? Data(contentsOf: URL(fileURLWithPath: $0)))?.base64EncodedString() ?? "-" }
    }

    func lastChangeID(_ registry: Registry) throws -> Int64 { try registry.changes(limit: 1000).last?.id ?? 0 }

    @Test func oneAccountPerCommittedWriteNamingWhatChanged() throws {
        let (registry, recorder) = try observed()
        let first = try registry.register(try experienceJSON("https://shop.example/a")).value
        var told = recorder.take()
        try #require(told.count == 1)
        #expect(told[0].experiencesChanged == [first.id] && told[0].experiencesRemoved.isEmpty)
        #expect(told[0].aasaHosts == ["shop.example"], "the association the registration implied changed the host's AASA")
        #expect(told[0].otherChanges.contains(.domain) && told[0].otherChanges.contains(.clip) && told[0].events.isEmpty)
        #expect(told[0].lastChange?.id == (try lastChangeID(registry)))

        _ = try registry.update(first.url.canonical, with: try JSONParser.parse(#"{"title":"New title"}"#))
        told = recorder.take()
        #expect(told.count == 1 && told.first?.experiencesChanged == [first.id] && told.first?.aasaHosts == [])
        #expect(told.first?.otherChanges == [])

        // Two writes in one transaction: one account.
        let (b, c) = try registry.write {
            (
                try registry.register(try experienceJSON("https://shop.example/b")).value,
                try registry.register(try experienceJSON("https://other.example/c")).value
            )
        }
        told = recorder.take()
        #expect(told.count == 1 && told.first?.experiencesChanged == [b.id, c.id] && told.first?.aasaHosts == ["other.example"])

        _ = try registry.remove(b.url.canonical)
        told = recorder.take()
        #expect(told.count == 1 && told.first?.experiencesRemoved == [b.id] && told.first?.experiencesChanged == [])
    }

    @Test func aRefusedOrRolledBackWriteTellsNothingAndChangesNoByte() throws {
        let path = temporaryDatabasePath()
        let (registry, recorder) = try observed(path)
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        _ = recorder.take()
        let before = try state(path)
        // Refused by a precondition (the URL is taken).
        #expect(throws: RegistryError.self) { try registry.register(try experienceJSON("https://shop.example/a")) }
        // Refused after its rows and change record were written: by the AASA invariant before the commit.
        let huge = JSONWriter.string(.array([.object([(key: "/", value: .string("/" + String(repeating: "a", count: 140_000)))])]))
        #expect(throws: RegistryError.self) {
            try registry.write {
                _ = try registry.register(try experienceJSON("https://shop.example/b"))
                try registry.db.execute(
                    "INSERT INTO applinks_details(host, app_bundle_id, position, components, updated_at) VALUES (?, ?, 0, ?, 'now')",
                    [.text("shop.example"), .text("com.example.bikes"), .text(huge)])
            }
        }
        // Rolled back by the caller's own failure, half-way.
        struct Halfway: Error {}
        #expect(throws: RegistryError.self) {
            try registry.write {
                _ = try registry.register(try experienceJSON("https://shop.example/c"))
                throw Halfway()
            }
        }
        // A transaction that changes nothing tells nothing either.
        try registry.write {}
        #expect(recorder.take().isEmpty)
        #expect(try state(path) == before)
        // The next write is told alone, with nothing left over from the refused ones.
        let d = try registry.register(try experienceJSON("https://shop.example/d")).value
        let told = recorder.take()
        #expect(told.count == 1 && told.first?.experiencesChanged == [d.id] && told.first?.aasaHosts == [])
    }

    /// The same write twice: the second changes nothing, records nothing and tells nothing.
    @Test func theSameWriteTwiceIsToldOnce() throws {
        let (registry, recorder) = try observed()
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        _ = recorder.take()
        let app = try BundleID("com.example.bikes")
        try registry.addWebcredentials(host: "shop.example", app: app)
        #expect(recorder.take().map(\.aasaHosts) == [["shop.example"]])
        try registry.addWebcredentials(host: "shop.example", app: app)
        #expect(recorder.take().isEmpty)
        _ = try registry.setApplinks(host: "shop.example", app: app, components: [["/": "/a/*"]])
        _ = recorder.take()
        _ = try registry.setApplinks(host: "shop.example", app: app, components: [["/": "/a/*"]])
        #expect(recorder.take().isEmpty)
    }

    @Test func theEventsTheOutboxQueuedAreInTheAccount() throws {
        let (registry, recorder) = try observed()
        _ = try registry.addWebhook(
            url: "http://127.0.0.1:9/hook", events: try WebhookEventPatterns("*"), team: nil, allowPrivateTargets: true)
        var told = recorder.take()
        #expect(told.count == 1 && told.first?.otherChanges == [.webhook] && told.first?.events == [])
        _ = try registry.register(try experienceJSON("https://shop.example/a"))
        told = recorder.take()
        #expect(told.count == 1 && told.first?.events == [.experienceCreated, .aasaChanged])
    }

    @Test func anImportIsOneAccountWithEveryExperienceInOrder() throws {
        let (registry, recorder) = try observed()
        let csv =
            "url,clip,title,subtitle\n" + (0..<100).map { "https://shop.example/\($0),ABCDE12345.com.example.bikes.Clip,T,S\n" }.joined()
        _ = try registry.importExperiences(csv, format: .csv)
        let told = recorder.take()
        let ids = try registry.experiences().sorted { $0.id < $1.id }.map(\.id)
        #expect(told.count == 1 && told.first?.experiencesChanged == ids && ids.count == 100)
        #expect(told.first?.lastChange?.id == (try lastChangeID(registry)))
        // A refused import (one bad line) tells nothing.
        #expect(throws: RegistryError.self) {
            try registry.importExperiences(
                "url,clip,title,subtitle\nhttps://shop.example/x,ABCDE12345.com.example.bikes.Clip,T,S\nbad,,,\n", format: .csv)
        }
        #expect(recorder.take().isEmpty)
    }

    @Test func aPoolTellsItsReadModelAndAnObserverRemovedIsToldNothing() throws {
        let path = temporaryDatabasePath()
        // An hour between checks for other processes' writes: only the pool's own announcements count.
        let pool = try RegistryPool(path: path, checkIntervalNanoseconds: 3_600_000_000_000)
        let recorder: Recorder? = Recorder()
        pool.observers.add(recorder!)
        _ = try pool.with(actor: "test") { try $0.register(try experienceJSON("https://shop.example/a")) }
        #expect(recorder?.take().count == 1)
        #expect(try pool.index.resolve("https://shop.example/a", preferences: [], at: .earliest).match != nil)
        _ = try pool.with(actor: "test") { try $0.register(try experienceJSON("https://shop.example/a2")) }
        #expect(try pool.index.resolve("https://shop.example/a2", preferences: [], at: .earliest).match != nil, "the next write too")
        _ = recorder?.take()
        pool.observers.remove(recorder!)
        _ = try pool.with(actor: "test") { try $0.register(try experienceJSON("https://shop.example/b")) }
        #expect(recorder?.take().isEmpty == true, "a removed observer is told nothing")
        #expect(try pool.index.resolve("https://shop.example/b", preferences: [], at: .earliest).match != nil)
    }
}
