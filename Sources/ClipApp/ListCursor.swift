import Foundation

/// A list's cursor (docs/architecture.md#the-http-api: cursor pagination): base64url without
/// padding (RFC 4648 §5) of the last key of a page, opaque to clients.
public enum ListCursor {
    public static func encode(_ key: String) -> String {
        Data(key.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The key a cursor carries; nil for text that is no cursor.
    public static func decode(_ cursor: String) -> String? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
