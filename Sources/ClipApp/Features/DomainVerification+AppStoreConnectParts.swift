import ClipWire

extension HostVerification {
    /// The App Store Connect comparison and Apple's verdict as `verify` prints them, under the site and CDN checks.
    static func presentAppStoreConnect(_ host: HostVerification, _ printer: Printer) {
        if let asc = host.appStoreConnect {
            printer.line("  asc        \(asc.verdict)")
            printer.line("             \(asc.evidence)")
            for step in asc.pending { printer.line("             \(step.action) \(step.url) (\(step.clip)): \(step.summary)") }
            if let fix = asc.fix { printer.line("             fix: \(fix)") }
        }
        if let apple = host.appleVerdict {
            printer.line("  apple      \(apple.verdict)")
            printer.line("             \(apple.evidence)")
            for build in apple.builds {
                let name = build.buildID.map { "build \(build.buildVersion ?? "?") (\($0))" } ?? "no build with an App Clip"
                printer.line("             \(build.clip), \(name)")
                for r in build.readings {
                    var head = "               \(r.source) (\(describes(r.source))): \(r.state)"
                    if let code = r.errorCode { head += " \(code)" }
                    if let date = r.lastUpdatedDate { head += ", updated \(date)" }
                    printer.line(head)
                    if let meaning = r.meaning { printer.line("                 means: \(meaning)") }
                    if let cause = r.likelyCause { printer.line("                 cause: \(cause)") }
                    if let fix = r.fix { printer.line("                 fix: \(fix)") }
                    if let agreement = r.agreement { printer.line("                 here: \(agreement)") }
                }
            }
            if let fix = apple.fix { printer.line("             fix: \(fix)") }
        }
    }

    /// `describes` of `AppleVerdict`, for the printed lines.
    private static func describes(_ source: String) -> String { AppleVerdict.describes(source) }
}
