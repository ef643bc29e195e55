import Foundation

/// The first line ("\r\n" is a single Character in Swift, so split on it).
func statusLine(_ response: String) -> String { response.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? "" }

func body(_ response: String) -> String {
    guard let r = response.range(of: "\r\n\r\n") else { return "" }
    return String(response[r.upperBound...])
}
