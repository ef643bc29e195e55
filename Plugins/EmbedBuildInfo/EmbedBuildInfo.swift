import Foundation
import PackagePlugin

/// Build-tool plugin: writes `BuildInfo.swift` (the version from `<package>/VERSION` and the git
/// commit checked out) into the target, so that `clipctl --version` says what it was built from.
/// The inputs are VERSION and the git files naming the commit (HEAD, the branch's ref, packed-refs),
/// so a new commit or checkout rebuilds it. Without a git checkout the commit is "unknown".
@main
struct EmbedBuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        var inputs = [package.appending(path: "VERSION")]
        if let git = GitFiles(package: package) { inputs += git.files }
        return [
            .buildCommand(
                displayName: "Embedding the version and git commit",
                executable: try context.tool(named: "embed-build-info").url,
                arguments: [output.path, package.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}

/// The files of a checkout that decide its commit: `.git` is a directory, or for a worktree a file
/// `gitdir: PATH` (gitrepository-layout(5)); refs live in the common directory (`commondir`).
struct GitFiles {
    let files: [URL]

    init?(package: URL) {
        let dotGit = package.appending(path: ".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        var gitDir = dotGit
        if !isDirectory.boolValue {
            guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else { return nil }
            let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitDir = path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
        }
        var common = gitDir
        if let text = try? String(contentsOf: gitDir.appending(path: "commondir"), encoding: .utf8) {
            let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
            common = path.hasPrefix("/") ? URL(fileURLWithPath: path) : gitDir.appending(path: path)
        }
        var files = [gitDir.appending(path: "HEAD")]
        if let head = try? String(contentsOf: gitDir.appending(path: "HEAD"), encoding: .utf8), head.hasPrefix("ref:") {
            let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespacesAndNewlines)
            files.append(common.appending(path: ref))
        }
        files.append(common.appending(path: "packed-refs"))
        self.files = files.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
