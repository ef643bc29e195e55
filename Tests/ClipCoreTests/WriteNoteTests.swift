import ClipCore
import Testing

@Suite struct WriteNoteTests {
    /// A remote clipctl reads the server's notes back from their text: every note must.
    @Test func everyNoteReadsBackFromItsText() throws {
        let team = try TeamID("ABCDE12345"), other = try TeamID("FGHIJ67890")
        let app = try BundleID("com.example.bikes"), clip = try AppID("ABCDE12345.com.example.bikes.Clip")
        let notes: [WriteNote] = [
            .createdTeam(team), .createdApp(app, team: team), .createdApp(app, team: nil), .updatedApp(app), .createdClip(clip),
            .appWithoutName(app, team: team),
            .associated(host: "bikes.example", clip: clip), .hostOwned(host: "bikes.example", team: team),
            .hostReleased(host: "bikes.example", team: other), .hostShared(host: "bikes.example", team: other),
            .hostShareConfirmed(host: "bikes.example", team: other), .hostShareEnded(host: "bikes.example", team: other),
            .createdDefaultExperience(clip), .updatedDefaultExperience(clip), .deactivated(clip, linkedToAppStoreConnect: true),
            .deactivated(clip, linkedToAppStoreConnect: false),
        ]
        for note in notes { #expect(WriteNote(text: note.text) == note, "\(note.text)") }
        #expect(Set(notes.map(\.text)).count == notes.count, "two notes render the same text")
    }

    @Test func aNoteFromANewerServerIsKeptAsText() {
        #expect(WriteNote(text: "recolored the clip") == .other("recolored the clip"))
        // Almost a known note, but not one this client renders the same way.
        #expect(WriteNote(text: "created team not-a-team") == .other("created team not-a-team"))
        #expect(WriteNote(text: "created  team ABCDE12345") == .other("created  team ABCDE12345"))
    }
}
