import ClipCore
import StrictJSON
import Testing
@testable import AppleFormats

struct AASAComparisonTests {
    static let registry = try! JSONParser.parse(
        #"{"appclips":{"apps":["T.a.Clip","T.b.Clip"]},"applinks":{"apps":[],"details":[{"appIDs":["T.a","T.b"],"components":[{"/":"/x/*"}]}]},"webcredentials":{"apps":["T.a"]}}"#
    )

    @Test func memberOrderAndTheLegacyAppIDFormAreNotDifferences() throws {
        let served = try JSONParser.parse(
            #"{"webcredentials":{"apps":["T.a"]},"applinks":{"details":[{"components":[{"/":"/x/*"}],"appID":"T.a"},{"appIDs":["T.b"],"components":[{"/":"/x/*"}]}],"apps":[]},"appclips":{"apps":["T.b.Clip","T.a.Clip"]}}"#
        )
        #expect(AASAComparison.compare(expected: Self.registry, served: served) == [])
    }

    @Test func eachSectionSaysWhatIsMissingExtraOrChanged() throws {
        let served = try JSONParser.parse(
            #"{"appclips":{"apps":["T.a.Clip","T.old.Clip"]},"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/y/*"}]}]}}"#)
        let differences = AASAComparison.compare(expected: Self.registry, served: served).map(\.description)
        #expect(
            differences == [
                "appclips.apps T.b.Clip: in the registry, not served", "appclips.apps T.old.Clip: served, no longer in the registry",
                "applinks.details T.b: in the registry, not served", "applinks.details T.a: served with other content",
                "webcredentials.apps T.a: in the registry, not served",
            ])
    }

    @Test func detailsInAnotherOrderDifferBecauseTheFirstMatchWins() throws {
        let expected = try JSONParser.parse(
            #"{"applinks":{"details":[{"appIDs":["T.a"],"components":[]},{"appIDs":["T.b"],"components":[]}]}}"#)
        let served = try JSONParser.parse(
            #"{"applinks":{"details":[{"appIDs":["T.b"],"components":[]},{"appIDs":["T.a"],"components":[]}]}}"#)
        #expect(AASAComparison.compare(expected: expected, served: served).map(\.change) == [.order])
    }
}
