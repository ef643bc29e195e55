import Foundation
import Testing
@testable import HTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// `HTTPClient.exchange`, against a peer that answers raw bytes.
struct ClientExchangeTests {
    /// Answers one connection with `answer` once the request's head has arrived, then closes.
    static func answeringOnce(_ answer: String) throws -> Int {
        let listener = try ListeningSocket(host: "127.0.0.1", port: 0)
        Thread.detachNewThread {
            var client: Int32 = -1
            for _ in 0..<500 where client < 0 {
                if let accepted = try? listener.acceptNow() { client = accepted.fd } else { usleep(10_000) }
            }
            guard client >= 0 else { return }
            var request: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1024)
            while HTTPClient.headEnd(request) == nil {
                let n = read(client, &chunk, chunk.count)
                if n > 0 { request += chunk[..<n] } else if n == 0 || errno != EAGAIN { break } else { usleep(1_000) }
            }
            let bytes = Array(answer.utf8)
            _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
            withExtendedLifetime(listener) {}
        }
        return listener.port
    }

    static let request = Array("POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".utf8)

    /// RFC 9110 §15.2: interim answers before the final one are read past.
    @Test func interimAnswersAreReadPast() throws {
        let port = try Self.answeringOnce(
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        let response = try HTTPClient.exchange(address: [127, 0, 0, 1], port: port, request: Self.request, timeoutSeconds: 5)
        #expect(response.status == 204)
    }

    /// 101 is not skipped: nobody asked to switch protocols, so it is the answer (not a 2xx).
    @Test func switchingProtocolsIsTheAnswer() throws {
        let port = try Self.answeringOnce("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nHTTP/1.1 200 OK\r\n\r\n")
        let response = try HTTPClient.exchange(address: [127, 0, 0, 1], port: port, request: Self.request, timeoutSeconds: 5)
        #expect(response.status == 101)
    }
}
