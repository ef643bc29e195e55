import Dispatch
import Locking
import StrictJSON
#if canImport(Glibc)
    import Glibc
#endif

/// The hot routes' access-log lines (`ClipAPI.answerHot`), written as bytes into buffers and handed
/// to the log in batches: a `String` per line, a `JSONValue` tree, a formatted `Date` and a write(2)
/// per request were the access log's cost on the ordinary way.
///
/// Order: a thread's lines go to one buffer (chosen by its thread id), so they stay in the order it
/// wrote them; every line written straight to the log (the ordinary way's, warnings) is preceded by
/// a `flush()` of every buffer, so it never overtakes a line buffered before it. A buffer is handed
/// on when it holds `batchBytes`, by a timer every `interval` (a quiet server's lines show within
/// 50 ms), and by `flush()` (a graceful stop's last step), so no line is lost on a graceful stop.
final class AccessLog: Sendable {
    private final class Buffer: Sendable {
        let bytes = Locked<[UInt8]>([])
    }
    /// Lines a buffer holds before it is handed on: about 40 of them.
    static let batchBytes = 8192
    static let interval = DispatchTimeInterval.milliseconds(50)
    private static let bufferCount = 8
    private let buffers: [Buffer]
    private let write: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    /// Behind a lock only to be Sendable: set once here, cancelled at `deinit`.
    private let timer: Locked<any DispatchSourceTimer>

    /// `write` takes whole lines, each ending in "\n", in their order.
    init(write: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void) {
        buffers = (0..<Self.bufferCount).map { _ in Buffer() }
        self.write = write
        timer = Locked(DispatchSource.makeTimerSource(queue: .global(qos: .utility)))
        timer.withLock { timer in
            timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(10))
            // Weak: the timer must not keep the log (and its API) alive.
            timer.setEventHandler { [weak self] in self?.flush() }
            timer.resume()
        }
    }

    deinit { timer.withLock { $0.cancel() } }

    /// Appends one line (`body` writes it, without its "\n") to the calling thread's buffer.
    func append(_ body: (inout [UInt8]) -> Void) {
        // pthread_self is the thread's descriptor address (no system call); its low bits are alignment.
        let thread = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
        let buffer = buffers[Int((thread >> 12) % UInt(Self.bufferCount))]
        buffer.bytes.withLock { bytes in
            body(&bytes)
            bytes.append(0x0A)
            // Written while the lock is held, so that a later batch of this buffer cannot overtake it.
            guard bytes.count >= Self.batchBytes else { return }
            bytes.withUnsafeBufferPointer { write($0) }
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Hands on every buffered line.
    func flush() {
        for buffer in buffers {
            buffer.bytes.withLock { bytes in
                guard !bytes.isEmpty else { return }
                bytes.withUnsafeBufferPointer { write($0) }
                bytes.removeAll(keepingCapacity: true)
            }
        }
    }

    // MARK: The line's fields as bytes

    /// `Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))` of the current time:
    /// `YYYY-MM-DDThh:mm:ss.sssZ` (RFC 3339 §5.6, UTC).
    static func appendNow(to out: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        appendTime(seconds: Int64(now.tv_sec), milliseconds: Int(now.tv_nsec / 1_000_000), to: &out)
    }

    static func appendTime(seconds: Int64, milliseconds: Int, to out: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        appendDigits(Int(year), count: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, count: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, count: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, count: 2, to: &out)
        out.append(UInt8(ascii: "."))
        appendDigits(milliseconds, count: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01: 400-year eras of 146,097 days,
    /// years counted from March so that the leap day ends the year (ISO 8601 §4.3.2.1's calendar).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468  // days from 0000-03-01 to 1970-01-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `n` ≥ 0 in `count` decimal digits, zero-padded.
    static func appendDigits(_ n: Int, count: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = n
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `JSONWriter`'s text of `.double((seconds * 1e5).rounded() / 100)` (the ordinary line's
    /// `durationMs`): milliseconds to two decimals, without trailing zeros, integral values without a
    /// fraction; for durations under about 29 years (below 2^53 hundredths of a millisecond, where
    /// the shortest round-tripping form is the plain decimal).
    static func appendMilliseconds(_ seconds: Double, to out: inout [UInt8]) {
        let hundredths = Int64((max(0, seconds) * 1e5).rounded())
        JSONWriter.writeInteger(hundredths / 100, into: &out)
        let fraction = Int(hundredths % 100)
        guard fraction != 0 else { return }
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10))
        if fraction % 10 != 0 { out.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }
}
