import Foundation
import XCTest

import SDRifyFuzzing

/// Every parser of untrusted bytes, in-process, on its fuzz seeds (scripts/make-fuzz-seeds.py: cut from the test
/// vectors and the real recordings, and written in each text dialect) and on every input that once made it fail
/// (testvectors/fuzz): each is read to its answer, a value or an error, within the time libFuzzer allows one input.
/// A crash ends the test run. This is the regression half of `scripts/fuzz swift`; its search for new findings
/// (mutations under libFuzzer and ASan) stays in that script.
final class ParserReplayTests: FolderTestCase {
    func testEveryParserReadsItsSeedsAndEveryPastFinding() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let seeds = work.appendingPathComponent("seeds")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["python3", root.appendingPathComponent("scripts/make-fuzz-seeds.py").path, seeds.path]
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        XCTAssertEqual(make.terminationStatus, 0, "make-fuzz-seeds.py")

        let findings = root.appendingPathComponent("testvectors/fuzz")
        var read: [ParserEntryPoint: Int] = [:]
        var pastFindings = 0
        for target in ParserEntryPoint.allCases {
            for (folder, isFinding) in [(seeds, false), (findings, true)] {
                let dir = folder.appendingPathComponent(target.rawValue)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
                for name in names.sorted() {
                    let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
                    let started = Date()
                    target.parse(bytes)
                    let seconds = Date().timeIntervalSince(started)
                    XCTAssertLessThan(seconds, 10, "\(target.rawValue) on \(name): a hang (libFuzzer's limit is 10 s an input)")
                    read[target, default: 0] += 1
                    if isFinding { pastFindings += 1 }
                }
            }
        }
        // Dolby Vision RPUs are cut from the real recordings only: without them that parser is read on its past
        // findings alone, said in one line (a failure where CI requires the recordings).
        let realMediaPresent = RealMedia.path("androidx_dolbyVision-hdr.MOV", test: "the Dolby Vision RPU seeds of \(#function)") != nil
        for target in ParserEntryPoint.allCases where realMediaPresent || target != .doviRPU {
            XCTAssertGreaterThan(read[target] ?? 0, 0, "\(target.rawValue) has no seeds")
        }
        let kept = try FileManager.default.subpathsOfDirectory(atPath: findings.path).filter { $0.contains("/crash-") || $0.contains("/timeout-") }
        XCTAssertEqual(pastFindings, kept.count, "every past finding is read again")
        XCTAssertGreaterThan(pastFindings, 0)
    }
}
