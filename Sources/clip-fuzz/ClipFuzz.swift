import FuzzTargets
#if canImport(Glibc)
    import Glibc
#endif
#if !FUZZING
    import Foundation
#endif

// libFuzzer entry point; the target is chosen by the environment variable CLIP_FUZZ_TARGET:
//   swift build --scratch-path .build-fuzz --sanitize=fuzzer -Xswiftc -DFUZZING --product clip-fuzz
//   CLIP_FUZZ_TARGET=url SWIFT_BACKTRACE=enable=no .build-fuzz/debug/clip-fuzz -max_total_time=60 CORPUS_DIR
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let target = getenv("CLIP_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    FuzzTargets.run(target, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
    /// Without libFuzzer this is a replay driver: `clip-fuzz TARGET FILE...` runs each file once.
    @main
    struct ReplayDriver {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let target = arguments.first, FuzzTargets.names.contains(target) else {
                FileHandle.standardError.write(
                    Data("usage: clip-fuzz TARGET FILE...  (targets: \(FuzzTargets.names.joined(separator: ", ")))\n".utf8))
                exit(64)
            }
            for path in arguments.dropFirst() {
                let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
                bytes.withUnsafeBytes { FuzzTargets.run(target, $0) }
            }
            print("replayed \(arguments.count - 1) inputs on \(target)")
        }
    }
#endif
