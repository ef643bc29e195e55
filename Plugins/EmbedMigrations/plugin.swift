import Foundation
import PackagePlugin

/// Build-tool plugin: turns `<package>/Migrations/NNNN_name.sql` into a Swift source file in the
/// target, so that a copied binary can migrate a fresh database by itself.
///
/// SwiftPM caches the command list: after adding a migration, `touch Package.swift` (CI builds
/// from a clean clone, and `EmbeddedMigrationsTests` catches a stale list locally).
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "Migrations")
        let sqlFiles = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(sqlFiles.count) migrations",
                executable: try context.tool(named: "embed-migrations").url,
                arguments: [output.path] + sqlFiles.map(\.path),
                inputFiles: sqlFiles,
                outputFiles: [output])
        ]
    }
}
