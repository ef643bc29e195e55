import ClipApp
import ClipCore
import ClipStore
import Testing

/// A list's page size is one rule (`PageLimit`): a whole number from 1 to 1000 in decimal digits alone, read
/// alike by every paginated operation, each answering its refusal in its own words.
struct PageLimitTests {
    @Test func aPageSizeIsAWholeNumberFromOneToAThousandInDigitsAlone() {
        for (text, value) in [("1", 1), ("1000", 1000), ("0100", 100), ("20", 20)] { #expect(PageLimit.value(text) == value, "\(text)") }
        for text in ["0", "1001", "+5", " 5", "5 ", "", "-1", "1e3", "0x10", "5.0", "99999999999999999999", "\u{0665}"] {
            #expect(PageLimit.value(text) == nil, "\(text)")
        }
        #expect(PageLimit.invalid == FieldError(field: "limit", rule: "range", message: "expected a whole number from 1 to 1000"))
    }

    @Test func everyListRefusesTheSameLimits() throws {
        let registry = try temporaryRegistry()
        let session = Session(registry: registry, caller: .admin(tokenID: 1))
        let refused = InvalidArguments("limit is out of range", [PageLimit.invalid])
        for limit in ["0", "1001", "+5", "ten"] {
            for binding in [ExperienceList.binding, ChangeList.binding, BulkRead.binding] {
                #expect(throws: refused, "\(binding.path) \(limit)") { try binding.perform(Arguments([("limit", limit)]), session) }
            }
            // The history reads its limit with its other arguments: the field error among theirs.
            #expect(throws: RegistryError.invalid([PageLimit.invalid]), "\(limit)") {
                try ExperienceHistory.binding.perform(Arguments([("id", "1"), ("limit", limit)]), session)
            }
        }
        for binding in [ExperienceList.binding, ChangeList.binding, BulkRead.binding] {
            #expect(try binding.perform(Arguments([("limit", "1000")]), session).status == 200, "\(binding.path)")
        }
    }
}
