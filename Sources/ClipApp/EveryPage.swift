import ClipWire
import StrictJSON

extension Binding {
    /// The answer `send` gets for the arguments, or with `readsEveryPage` the items of every page (1000 at a time,
    /// each page from the cursor of the one before) as one list answer, with the first page's status.
    public func everyPage(_ arguments: Arguments, send: OperationRunner) throws -> OperationAnswer {
        guard readsEveryPage else { return try send(self, arguments) }
        var items: [JSONValue] = [], cursor: String?, first: OperationAnswer?
        repeat {
            var page = arguments
            page.append("limit", String(PageLimit.largest))
            page.append("cursor", cursor)
            let answer = try send(self, page)
            first = first ?? answer
            // A page is a list answer; a 2xx without items is another server's JSON, not an empty list.
            items += (200..<300).contains(answer.status) ? try ListJSON.items(json: answer.json) : []
            cursor = ListJSON.nextCursor(json: answer.json)
        } while cursor != nil
        return OperationAnswer(json: ListJSON.page(items, nextCursor: nil), status: first?.status ?? 200)
    }
}
