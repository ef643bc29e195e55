import Foundation  // NFC with precomposedStringWithCanonicalMapping; no I/O

/// Unicode Normalization Form C (UAX #15): the one spelling of text that compares equal, for values matched byte for
/// byte where they are stored (an experience's label values, docs/sheets.md#labels).
public enum CanonicalComposition {
    /// `text` in NFC; ASCII is its own.
    public static func nfc(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }
}
