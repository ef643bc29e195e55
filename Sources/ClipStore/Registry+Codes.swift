public import ClipCodes
public import ClipCore

/// Which URLs get a QR code or NFC tag (`CodeTarget`), read from the registry.
extension Registry {
    /// The code for an invocation URL, or why there is none. Throws only when the registry cannot be read.
    public func codeTarget(url: String) throws(RegistryError) -> Result<CodeTarget, CodeTarget.Refusal> {
        if let problem = CodeTarget.invisibleCharacterProblem(url) { return .failure(.notInvocable(problem)) }
        let normalized: NormalizedURL
        do { normalized = try NormalizedURL(url) } catch { return .failure(.notInvocable(error.message)) }
        let resolution = try resolve(url)
        let associated = try associations(host: normalized.host)
        return CodeTarget.decide(resolution) { clip, host in associated.contains(AssociationKey(clip: clip, host: host)) }
    }

    /// The code for a registered experience's URL, or why there is none.
    public func codeTarget(experience: AdvancedExperience) throws(RegistryError) -> Result<CodeTarget, CodeTarget.Refusal> {
        let associated = try associations(host: experience.url.host)
        return CodeTarget.decide(experience) { clip, host in associated.contains(AssociationKey(clip: clip, host: host)) }
    }

    /// The codes of every active experience `filter` selects, and why the others get none.
    public func codeTargets(_ filter: ListFilter) throws(RegistryError) -> (targets: [CodeTarget], refusals: [String]) {
        var filter = filter
        filter.status = .active
        let associated = try associations(host: filter.host)
        var targets: [CodeTarget] = []
        var refusals: [String] = []
        try forEachExperience(filter) { experience in
            switch CodeTarget.decide(experience, associated: { associated.contains(AssociationKey(clip: $0, host: $1)) }) {
            case .success(let target): targets.append(target)
            case .failure(let refusal): refusals.append("no code for \(experience.url.canonical): \(refusal)")
            }
        }
        return (targets, refusals)
    }

    private struct AssociationKey: Hashable {
        let clip: AppID
        let host: String
    }

    private func associations(host: String?) throws(RegistryError) -> Set<AssociationKey> {
        Set(try domains(host: host).map { AssociationKey(clip: $0.clip, host: $0.host) })
    }
}
