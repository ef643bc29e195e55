import ClipCore
public import DoctorAndPublish

extension SyncPlan {
    /// What `clipctl doctor` says of a plan: drift (changed in App Store Connect's web pages since the last pull or push)
    /// is a warning, since the next apply would overwrite it; pending and refused steps are worth knowing.
    public var doctorFindings: [Doctor.Finding] {
        var findings: [Doctor.Finding] = []
        for step in steps where step.drifted {
            findings.append(
                .init(
                    severity: .warning, code: "asc.drift", subject: step.url,
                    message: "changed in App Store Connect (\(step.ascExperienceID ?? "?")) since the last pull or push; "
                        + "the next apply would overwrite it",
                    fix: "clipctl asc pull --clip \(clip.rawValue) --prefer asc (take it), or clipctl asc apply --yes (push the registry's)"
                ))
        }
        for step in allRefused {
            for refusal in step.refusals {
                findings.append(
                    .init(severity: .warning, code: "asc.\(refusal.rule)", subject: step.url, message: refusal.message, fix: refusal.fix))
            }
        }
        let pendingCount = pending.count + ((defaultExperience?.action ?? .nothing) == .nothing ? 0 : 1)
        if pendingCount > 0 {
            findings.append(
                .init(
                    severity: .info, code: "asc.pending", subject: clip.rawValue,
                    message: "\(pendingCount) change(s) not yet in App Store Connect", fix: "clipctl asc plan, then clipctl asc apply --yes"
                ))
        }
        return findings
    }
}
