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
