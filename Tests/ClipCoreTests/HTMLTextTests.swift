import Testing
@testable import ClipCore

@Suite struct HTMLTextTests {
    @Test func theFiveMarkupCharactersBecomeReferences() {
        #expect(HTMLText.escaped(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
    }

    @Test func controlsAndNoncharactersBecomeReplacementCharacters() {
        // HTML §13.2.3.5: each of these is a parse error in the input stream; tab and line feed are not.
        // Swift string literals refuse noncharacters, so they are built from their code points.
        let noncharacters = [0xFDD0, 0xFFFF, 0x10FFFE].map { String(Unicode.Scalar($0)!) }
        let input = "a\u{0}b\u{1B}c\u{7F}d\u{85}e" + noncharacters.joined(separator: "f") + "h"
        #expect(HTMLText.escaped(input) == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}f\u{FFFD}h")
        #expect(HTMLText.escaped("tab\there\nline") == "tab\there\nline")
        #expect(HTMLText.escaped("café 東京 🚲") == "café 東京 🚲")
    }
}
