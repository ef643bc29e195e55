import ByteScan
import StrictJSON

extension ExperienceIndex {
    // MARK: Answers as bytes

    /// For a plain raw invocation URL (`PlainInvocationURL`), the slot of the active experience it
    /// resolves to, if any; nil when the URL is not plain and the full rules must read it.
    func plainMatch(_ invocationURL: UnsafeBufferPointer<UInt8>, at: Instant) -> Int?? {
        guard let plain = PlainInvocationURL(invocationURL) else { return nil }
        return .some(plainMatch(invocationURL, plain, at: at))
    }

    /// The slot of the active experience a plain URL, already read, resolves to.
    func plainMatch(_ invocationURL: UnsafeBufferPointer<UInt8>, _ plain: PlainInvocationURL, at: Instant) -> Int? {
        let host = UnsafeBufferPointer(rebasing: invocationURL[plain.host])
        let path = plain.path.map { UnsafeBufferPointer(rebasing: invocationURL[$0]) } ?? Self.rootPath
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: PlainInvocationURL.maxQueryItems) { hashes in
            var count = 0
            _ = plain.forEachQueryItem(invocationURL) { n, v in
                hashes[count] = Self.itemHash(
                    name: UnsafeBufferPointer(rebasing: invocationURL[n]), value: UnsafeBufferPointer(rebasing: invocationURL[v]))
                count += 1
                return true
            }
            return bestSlot(host: host, path: path, items: UnsafeBufferPointer(rebasing: hashes[..<count]), at: at) { query in
                // Every required item among the invocation's (at most `maxQueryItems`, compared pair by pair).
                Self.forEachCanonicalItem(query) { name, value in
                    !plain.forEachQueryItem(invocationURL) { n, v in
                        !(invocationURL[n].elementsEqual(query[name]) && invocationURL[v].elementsEqual(query[value]))
                    }
                }
            }
        }
    }

    /// Normalization, probes, nothing more (clip-bench's `lookup`): the id of the experience a raw
    /// invocation URL resolves to (the full rules for a URL that is not plain).
    public func matchID(_ invocationURL: UnsafeBufferPointer<UInt8>, at: Instant) -> Int64? {
        if let plain = plainMatch(invocationURL, at: at) { return plain.map { records[$0].id } }
        guard let url = try? NormalizedURL(String(decoding: invocationURL, as: UTF8.self)) else { return nil }
        return bestSlot(url, at: at).map { records[$0].id }
    }

    /// Appends to `out` the bytes of `Resolution.json(explain: false)` when the raw invocation URL
    /// is plain (`PlainInvocationURL`) and resolves to an advanced experience; false otherwise
    /// (`out` unchanged), and the caller takes `resolve`. Allocates nothing once `out` has room.
    public func writeAdvancedAnswer(
        _ invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], at: Instant, into out: inout [UInt8]
    ) -> Bool {
        guard case .some(.some(let slot)) = plainMatch(invocationURL, at: at) else { return false }
        writeAnswer(slot: slot, invocationURL: invocationURL, preferences: preferences, into: &out)
        return true
    }

    /// What `resolve` answers for a plain raw invocation URL (`PlainInvocationURL`), found from its bytes.
    public enum PlainAnswer: Equatable, Sendable {
        /// An advanced experience: its answer was appended (`writeAdvancedAnswer`).
        case advanced
        /// Nothing: no active experience covers the URL and no clip with a default experience is
        /// associated with its host. `host` is the URL's host within its bytes (to be lower-cased
        /// to be the normalized host); `hostHasExperiences` picks `Resolver`'s reason.
        case noMatch(host: Range<Int>, hostHasExperiences: Bool)
    }

    /// `writeAdvancedAnswer`, and also telling a plain URL that resolves to nothing, so that its
    /// 404 is written from bytes too (the 2% of the bench's URLs that match nothing took the full
    /// `Resolution` and its problem answer: about 40 allocations each). nil: not plain, or a
    /// default experience answers (`out` unchanged), and the caller takes `resolve`. Allocates nothing.
    public func writePlainAnswer(
        _ invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], at: Instant, into out: inout [UInt8]
    ) -> PlainAnswer? {
        guard let plain = PlainInvocationURL(invocationURL) else { return nil }
        if let slot = plainMatch(invocationURL, plain, at: at) {
            writeAnswer(slot: slot, invocationURL: invocationURL, preferences: preferences, into: &out)
            return .advanced
        }
        let host = UnsafeBufferPointer(rebasing: invocationURL[plain.host])
        let hash = Self.hostHash(host)
        // A host with a default experience answers it (rare): the full rules render that.
        guard !fallbackHostHashes.contains(hash) else { return nil }
        return .noMatch(host: plain.host, hostHasExperiences: hostEntry(host, hash: hash) != nil)
    }

    /// The same bytes for an advanced `resolution` this index gave (its experience's version still
    /// current); nil otherwise.
    public func advancedAnswerBytes(_ resolution: Resolution) -> [UInt8]? {
        guard case .advanced(let e, let language) = resolution.match, resolution.notes.isEmpty, let slot = slot(e.id),
            records[Int(slot)].version == Int64(e.version)
        else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var text = resolution.invocationURL
        text.withUTF8 { writeAnswer(slot: Int(slot), invocationURL: $0, preferences: [language], into: &out) }
        return out
    }

    /// `Resolution.advancedAnswerBytes` of `Resolution.experienceJSON`, from the arena: its members
    /// from the same declaration (`ExperienceField.all` by `arenaFields`), the strings escaped by the
    /// same writer.
    func writeAnswer(slot: Int, invocationURL: UnsafeBufferPointer<UInt8>, preferences: [Language], into out: inout [UInt8]) {
        let r = records[slot]
        // The card language (`AdvancedExperience.language(for:)`): the first preferred one it has.
        var language = fieldByte(r, Self.languageByte)
        var card: (title: Range<Int>, subtitle: Range<Int>)?
        for preference in preferences {
            if let found = self.card(r, Self.languageNumber(preference)) {
                language = Self.languageNumber(preference)
                card = found
                break
            }
        }
        if card == nil { card = self.card(r, language) }
        let clip = clipNumber(r), members = Self.answerMembers
        bytes.withUnsafeBufferPointer { arena in
            let slice = { (range: Range<Int>) in UnsafeBufferPointer(rebasing: arena[range]) }
            let url = slice(r.data..<(r.data + Int(r.urlLength)))
            let title = card.map { slice($0.title) } ?? slice(0..<0)
            let subtitle = card.map { slice($0.subtitle) } ?? slice(0..<0)
            // One piece of room for the whole answer: its members' names and enumerations (under 512 bytes),
            // two integers, each string escaped at worst, the runs' bytes (text or JSON) as if all were strings.
            let runBytes = Int(r.dataLength) - Int(r.urlLength) - 4 - Self.arenaByteFields - 4 * Self.arenaRuns
            let room =
                512 + 2 * 20 + JSONWriter.stringRoom(invocationURL.count) + JSONWriter.stringRoom(url.count)
                + JSONWriter.stringRoom(clipTexts[clip].count) + JSONWriter.stringRoom(title.count) + JSONWriter.stringRoom(subtitle.count)
                + JSONWriter.stringRoom(runBytes) + 2 * Self.arenaRuns
            out.append(atMost: room) { out in
                out.write(#"{"matched":"advanced","invocationURL":"#)
                JSONWriter.writeString(utf8: invocationURL, to: &out)
                out.write(#","experience":{"id":"#)
                JSONWriter.writeInteger(r.id, to: &out)
                out.write(#","url":"#)
                JSONWriter.writeString(utf8: url, to: &out)
                out.write(#","clip":"#)
                clipTexts[clip].withUnsafeBufferPointer { JSONWriter.writeString(utf8: $0, to: &out) }
                forEachField(r) { position, field, byte, run in
                    guard field.inAnswer else { return }
                    if position == ExperienceField.languagePosition {
                        out.write(members[field.firstMember + Int(language)])
                        out.write(#","title":"#)
                        JSONWriter.writeString(utf8: title, to: &out)
                        out.write(#","subtitle":"#)
                        JSONWriter.writeString(utf8: subtitle, to: &out)
                    } else if let run {
                        out.write(members[field.firstMember])
                        let value = UnsafeBufferPointer(rebasing: arena[run])
                        if field.kind == .json { out.write(value) } else { JSONWriter.writeString(utf8: value, to: &out) }
                    } else if byte != 0xFF && field.slot != .run {
                        out.write(members[field.firstMember + Int(byte)])
                    }
                }
                out.write(#","version":"#)
                JSONWriter.writeInteger(r.version, to: &out)
                out.write("}}")
            }
        }
    }
}
