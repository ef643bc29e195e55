public import AppleFormats
public import ClipCore
public import ClipWire

// The API's wire shapes (ClipWire's `WireShape`) are operations' outputs as they are
// (docs/application-layer.md#outputs): one declaration of each shape, read back and written alike.
extension Items: OperationOutput {}
extension Page: OperationOutput {}
extension ChangePage: OperationOutput {}
extension ChangeRecord: OperationOutput {}
extension APIToken: OperationOutput {}
extension Clip: OperationOutput {}
extension PageBanner: OperationOutput {}
extension ImportReport: OperationOutput {}
extension ImportAnswer: OperationOutput {}
extension SyncReport: OperationOutput {}
extension CampaignFlip: OperationOutput {}
extension CampaignRevert: OperationOutput {}
extension CampaignDetail: OperationOutput {}
extension ScheduleListing: OperationOutput {}
extension HostOwnership: OperationOutput {}
extension WebhookEndpoint: OperationOutput {}
extension DoctorAcknowledgement: OperationOutput {}
extension WebhookTestEvent: OperationOutput {}
extension WebhookDeliveryList: OperationOutput {}
extension JSONDocument: OperationOutput {}
extension TestFlightInvocationList: OperationOutput {}
extension AppStoreConnectLinked: OperationOutput {}
extension CodesExported: OperationOutput {}
