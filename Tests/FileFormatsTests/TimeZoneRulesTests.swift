import FileFormats
import Foundation
import XCTest

/// TZif files as Debian's tzdata installs them, read by `TimeZoneRules`, against dates the tz database gives
/// (`zdump -v`) and, where python3 is on the machine, against its `zoneinfo` (an independent reader of the same files).
final class TimeZoneRulesTests: XCTestCase {
    func rules(_ name: String) throws -> TimeZoneRules {
        let path = "/usr/share/zoneinfo/\(name)"
        guard let data = FileManager.default.contents(atPath: path) else { throw XCTSkip("no tz database at \(path)") }
        return try TimeZoneRules(tzif: Array(data))
    }

    func utc(_ y: Int64, _ mo: Int64, _ d: Int64, _ h: Int64 = 0, _ mi: Int64 = 0) -> Int64 {
        CivilTime.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60
    }

    func testParisSwitchesAtTheLastSundaysOfMarchAndOctober() throws {
        let paris = try rules("Europe/Paris")
        // 2027: clocks go forward on 28 March at 01:00 UTC and back on 31 October at 01:00 UTC.
        XCTAssertEqual(paris.offset(at: utc(2027, 3, 28, 0, 59)), 3600)
        XCTAssertEqual(paris.offset(at: utc(2027, 3, 28, 1, 0)), 7200)
        XCTAssertEqual(paris.offset(at: utc(2027, 10, 31, 0, 59)), 7200)
        XCTAssertEqual(paris.offset(at: utc(2027, 10, 31, 1, 0)), 3600)
        // Local 02:30 on 28 March 2027 does not happen; 02:30 on 31 October happens twice.
        XCTAssertEqual(paris.instants(forLocal: utc(2027, 3, 28, 2, 30)), [])
        XCTAssertEqual(paris.instants(forLocal: utc(2027, 10, 31, 2, 30)), [utc(2027, 10, 31, 0, 30), utc(2027, 10, 31, 1, 30)])
        XCTAssertEqual(paris.instants(forLocal: utc(2027, 6, 1)), [utc(2027, 5, 31, 22)])
    }

    func testTheFootersRuleCarriesOnAfterTheListedTransitions() throws {
        // Debian's files list transitions up to 2037; later years come from the POSIX rule in the footer.
        let paris = try rules("Europe/Paris")
        XCTAssertEqual(paris.offset(at: utc(2100, 3, 28, 0, 59)), 3600)
        XCTAssertEqual(paris.offset(at: utc(2100, 3, 28, 1, 0)), 7200)
        XCTAssertEqual(paris.offset(at: utc(2100, 10, 31, 1, 0)), 3600)
        let sydney = try rules("Australia/Sydney")
        // The southern summer spans New Year: daylight time from the first Sunday of October to the first of April.
        XCTAssertEqual(sydney.offset(at: utc(2099, 1, 1)), 39600)
        XCTAssertEqual(sydney.offset(at: utc(2099, 7, 1)), 36000)
    }

    func testHalfHourDaylightSavingAndAZoneWithout() throws {
        let lordHowe = try rules("Australia/Lord_Howe")
        XCTAssertEqual(lordHowe.offset(at: utc(2027, 1, 15)), 39600)
        XCTAssertEqual(lordHowe.offset(at: utc(2027, 7, 15)), 37800)
        let utc0 = try rules("UTC")
        XCTAssertEqual(utc0.offset(at: utc(2027, 7, 15)), 0)
        XCTAssertEqual(utc0.instants(forLocal: 1_000_000), [1_000_000])
    }

    func testAFileThatIsNotTZifIsRefused() {
        XCTAssertThrowsError(try TimeZoneRules(tzif: Array("not a zone file at all, just some text here......".utf8)))
        XCTAssertThrowsError(try TimeZoneRules(tzif: Array("TZif2".utf8) + [UInt8](repeating: 0xFF, count: 60)))
        XCTAssertThrowsError(try TimeZoneRules(tzif: []))
    }

    func testCivilDatesRoundTripAcrossLeapYears() {
        XCTAssertEqual(CivilTime.days(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(CivilTime.days(year: 2028, month: 2, day: 29) + 1, CivilTime.days(year: 2028, month: 3, day: 1))
        XCTAssertEqual(CivilTime.days(year: 2100, month: 2, day: 28) + 1, CivilTime.days(year: 2100, month: 3, day: 1))
        for days in stride(from: Int64(-1000), to: 3_000_000, by: 997) {
            let d = CivilTime.date(days: days)
            XCTAssertEqual(CivilTime.days(year: d.year, month: d.month, day: d.day), days)
        }
        XCTAssertEqual(CivilTime.weekday(days: 0), 4)
    }

    /// Python's `zoneinfo` reads the same files by code of its own: every hour's offset across two years and a far one agree.
    func testOffsetsAgreeWithPythonsZoneinfo() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { throw XCTSkip("no python3") }
        let zones = ["Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Tehran", "America/Santiago", "Pacific/Chatham"]
        let instants = stride(from: utc(2026, 1, 1), to: utc(2028, 1, 1), by: 3 * 3600).map { $0 } + [utc(2045, 7, 1), utc(2045, 12, 1)]
        let script = """
            import sys, zoneinfo, datetime
            zones = sys.argv[1].split(','); instants = [int(x) for x in sys.argv[2].split(',')]
            for z in zones:
                tz = zoneinfo.ZoneInfo(z)
                print(z, ' '.join(str(int(datetime.datetime.fromtimestamp(t, tz).utcoffset().total_seconds())) for t in instants))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, zones.joined(separator: ","), instants.map(String.init).joined(separator: ",")]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = output.split(separator: "\n")
        XCTAssertEqual(lines.count, zones.count)
        for line in lines {
            let parts = line.split(separator: " ")
            let zone = try rules(String(parts[0]))
            let expected = parts.dropFirst().map { Int32($0)! }
            XCTAssertEqual(instants.map { zone.offset(at: $0) }, expected, String(parts[0]))
        }
    }
}
