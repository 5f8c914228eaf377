import Foundation
import SDRifyFuzzing

// The libFuzzer targets for sdrify's own parsers (one binary; SDRIFY_FUZZ_TARGET names the parser, see
// `ParserEntryPoint`). Built by `scripts/fuzz swift` with `-sanitize=fuzzer,address -D SDRIFY_LIBFUZZER`, where
// libFuzzer supplies main. Built plainly (as `swift build` does), it replays files instead:
//   sdrify-fuzz-parsers TARGET FILE...   runs each file through the parser once (a crash is a failure)

func target(named name: String?) -> ParserEntryPoint? {
    guard let name, let target = ParserEntryPoint(rawValue: name) else {
        let names = ParserEntryPoint.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("sdrify-fuzz-parsers: unknown target '\(name ?? "")' (choose from \(names))\n".utf8))
        return nil
    }
    return target
}

#if SDRIFY_LIBFUZZER
    // libFuzzer's driver (libclang_rt.fuzzer_no_main), called from main: SwiftPM gives an executable its own entry
    // point, so libFuzzer's main cannot be used.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    nonisolated(unsafe) var fuzzTarget: ParserEntryPoint = .srt

    @main
    enum Fuzz {
        static func main() {
            guard let chosen = target(named: ProcessInfo.processInfo.environment["SDRIFY_FUZZ_TARGET"]) else { exit(64) }
            fuzzTarget = chosen
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                runFuzzerDriver(&argc, &argv) { data, size in
                    fuzzTarget.parse(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                })
        }
    }
#else
    @main
    enum Replay {
        static func main() {
            let args = CommandLine.arguments
            guard args.count >= 2, let parser = target(named: args[1]) else { exit(64) }
            for path in args.dropFirst(2) {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("sdrify-fuzz-parsers: cannot read \(path)\n".utf8))
                    exit(66)
                }
                parser.parse([UInt8](data))
            }
        }
    }
#endif
