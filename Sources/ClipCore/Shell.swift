/// Commands printed for people to paste into a POSIX shell (doctor's fixes, hints in messages).
public enum Shell {
    /// One word, quoted only when the shell would otherwise split or expand it (POSIX XCU §2.2:
    /// inside single quotes every character is literal; a single quote is written as '\'').
    public static func quote(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || "@%+=:,./_-".utf8.contains(b)
            }
        if plain { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// The words as one command line.
    public static func command(_ words: [String]) -> String { words.map(quote).joined(separator: " ") }
}

/// Lists in text for people: a long one shows its first items and how many more there are, so that a
/// line about 10,000 experiences stays a line (the full list is in the `--json` answer).
public enum ShownList {
    /// Items shown before "and N more".
    public static let atMost = 5

    public static func text(_ items: [String], separator: String = ", ", atMost: Int = atMost) -> String {
        guard items.count > atMost else { return items.joined(separator: separator) }
        return items.prefix(atMost).joined(separator: separator) + "\(separator)… and \(items.count - atMost) more (--json lists them all)"
    }
}
