/// Every operation's binding, feature by feature: the HTTP API serves each at its route and
/// `clipctl` runs each as its command (docs/architecture.md#the-application-layer).
public enum Application {
    public static let bindings: [Binding] = [
        ExperienceHistory.binding,
        TokenList.binding,
        AppSave.binding,
        AppCreate.binding,
        AppShow.binding,
        AppUpdate.binding,
        AppList.binding,
        ClipList.binding,
        Verification.binding,
        DomainVerification.binding,
        TestFlightInvocationsShow.binding,
        TestFlightInvocationsSet.binding,
        ApplinksSet.binding,
        ApplinksRemove.binding,
        ApplinksSettings.binding,
        ApplinksGeneration.binding,
        WebcredentialsAdd.binding,
        WebcredentialsRemove.binding,
        HostAASA.binding,
    ]
}
