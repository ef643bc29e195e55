import ClipCore
import Testing

/// A bundle ID's check works on bytes; the rule is Apple's CFBundleIdentifier one: dot-separated,
/// non-empty components of A-Z, a-z, 0-9 and '-'. Checked against a Character-based reading of
/// the rule, the form the check had before, on good, bad and hostile strings.
struct BundleIDTests {
    /// The rule read with Characters: split at ".", every component non-empty and of the allowed characters.
    static func byCharacters(_ string: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
        let components = string.split(separator: ".", omittingEmptySubsequences: false)
        return !string.isEmpty && string.utf8.count <= BundleID.maxLength
            && components.allSatisfy { !$0.isEmpty && $0.allSatisfy { allowed.contains($0) } }
    }

    static let cases: [String] = [
        "com.example.app", "com.example.app.Clip", "a", "A-1.b-2", "x.y", "1.2.3", "-.-", "com--x.y-",
        "", ".", "..", ".com", "com.", "com..app", "com.exam ple", "com.exämple", "com.e\u{301}x", "com.\u{301}x", "com.x\u{301}",
        ".\u{301}", "com.\u{200B}app", "com.app\u{0}", "com_app", "com/app", "com.app\n", "\u{FEFF}com.app", "ｃｏｍ.app", "com.app.",
        String(repeating: "a", count: BundleID.maxLength), String(repeating: "a", count: BundleID.maxLength + 1),
        String(repeating: "a.", count: 77) + "a", String(repeating: "a.", count: 78) + "a", "🍕.app", "com.🍕",
    ]

    @Test(arguments: cases) func agreesWithTheRuleReadByCharacters(_ string: String) {
        #expect(((try? BundleID(string)) != nil) == Self.byCharacters(string), "\(string.debugDescription)")
    }

    @Test func agreesOnRandomStringsOfDotsLettersAndOthers() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "9", "-", ".", "..", "_", " ", "é", "\u{301}", "\u{0}", "🍕"]
        for _ in 0..<5_000 {
            let string = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(((try? BundleID(string)) != nil) == Self.byCharacters(string), "\(string.debugDescription)")
        }
    }

    @Test func aRefusalSaysWhy() {
        #expect(throws: ValidationFailure.self) { try BundleID("com..app") }
        do {
            _ = try BundleID("com..app", field: "clip")
        } catch {
            #expect(error.errors.map(\.field) == ["clip"])
            #expect(error.errors.map(\.rule) == ["bundleId.format"])
        }
    }
}
