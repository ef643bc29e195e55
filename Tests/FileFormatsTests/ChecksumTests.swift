import FileFormats
import Testing

struct ChecksumTests {
    @Test func placeholder() {}
}
