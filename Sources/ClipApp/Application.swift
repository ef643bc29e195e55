/// Every operation's binding, feature by feature: the HTTP API serves each at its route and
/// `clipctl` runs each as its command (docs/architecture.md#the-application-layer).
public enum Application {
    public static let bindings: [Binding] = [
        ExperienceHistory.binding,
        ChangeList.binding,
        TokenCreate.binding,
        TokenRevoke.binding,
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
        WebhookAdd.binding,
        WebhookList.binding,
        WebhookRemove.binding,
        WebhookTest.binding,
        WebhookEnable.binding,
        WebhookDeliveries.binding,
    ]
}
