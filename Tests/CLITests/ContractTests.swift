import Foundation
import XCTest

/// The unattended-use contract: signals, concurrent runs, machine-readable output.
final class ContractTests: CLITestCase {
    /// A 4K clip long enough to be interrupted mid-conversion.
    static let clip4K: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-tests-4k-\(getpid()).mp4").path
        _ = try? Support.run(Support.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=3840x2160:rate=30",
                                                     "-frames:v", "90", "-c:v", "libx264", "-preset", "ultrafast", path])
        return path
    }()

    func testSignalsStopTheConversionAndLeaveNothing() throws {
        for (sig, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let outDir = dir.appendingPathComponent("sig\(sig)")
            try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = Support.binary
            p.arguments = [Self.clip4K, outDir.appendingPathComponent("out.mp4").path, "--preset", "1920x1080"]
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            // Wait until the temporary output exists: the conversion is under way.
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, (try FileManager.default.contentsOfDirectory(atPath: outDir.path)).isEmpty { usleep(20_000) }
            XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: outDir.path).isEmpty, "conversion started")
            usleep(300_000)
            kill(p.processIdentifier, sig)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit, "exits by itself, not killed by the signal")
            XCTAssertEqual(p.terminationStatus, code, "signal \(sig)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outDir.path), [], "empty output directory")
        }
    }

    func runConcurrently(_ count: Int, outputs: (Int) -> String, extra: [String] = []) -> [Support.Result] {
        let results = Results(count)
        let paths = (0..<count).map(outputs)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            results.set(i, try? Support.sdrify([Support.vector("sdr_h264_aac.mp4"), paths[i]] + extra))
        }
        return results.all
    }

    func testEightConcurrentConversionsToEightOutputs() throws {
        let results = runConcurrently(8, outputs: { self.dir.appendingPathComponent("out\($0).mp4").path })
        XCTAssertEqual(results.map(\.status), Array(repeating: 0, count: 8), results.map(\.stderr).joined())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).count, 8)
    }

    func testEightConcurrentConversionsToOneOutputExactlyOneWins() throws {
        let output = dir.appendingPathComponent("same.mp4").path
        let results = runConcurrently(8, outputs: { _ in output })
        XCTAssertEqual(results.filter { $0.status == 0 }.count, 1, results.map(\.stderr).joined())
        XCTAssertEqual(results.filter { $0.status == 4 }.count, 7)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["same.mp4"], "no temporaries left")
        let decode = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", output, "-f", "null", "-"])
        XCTAssertEqual(decode.stderr, "", "the winner is a complete, valid MP4")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, "30")
    }

    /// On a terminal, a one-line bar redraws in place and is cleared at the end (run under `script`, a pty).
    func testProgressBarOnlyOnATerminal() throws {
        let output = file("tty.mp4")
        let command = "'\(Support.binary.path)' '\(Support.vector("sample_hlg_portrait.mov"))' '\(output)' --preset 640x480"
        let r = try Support.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("\r\u{1B}[2K"), "redraws in place on a terminal")
        XCTAssertTrue(r.stdout.contains("sdrify: wrote"), r.stdout)
    }

    func testJSONAndProgressOutput() throws {
        let output = dir.appendingPathComponent("p.mp4").path
        let progressFile = dir.appendingPathComponent("progress.txt")
        FileManager.default.createFile(atPath: progressFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: progressFile)
        // The child inherits the file as descriptor 3 through a shell redirection.
        let r = try Support.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" 3>>'\(progressFile.path)'", Support.binary.path,
                                            Support.vector("sdr_h264_aac.mp4"), output, "--json", "--progress", "3"])
        try handle.close()
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        for key in ["input", "output", "preset", "width", "height", "duration", "frames", "hdr", "orientation", "tonemap", "elapsed_s"] {
            XCTAssertNotNil(report[key], "JSON key \(key)")
        }
        let text = try String(contentsOf: progressFile, encoding: .utf8)
        let blocks = text.components(separatedBy: "progress=").dropFirst()
        XCTAssertFalse(blocks.isEmpty)
        XCTAssertTrue(text.hasSuffix("progress=end\n"), "progress=end comes last")
        for key in ["frame=", "fps=", "out_time_us=", "total_us=", "percent=", "speed="] { XCTAssertTrue(text.contains(key), key) }
        XCTAssertTrue(text.contains("frame=30\n"), text)
        XCTAssertFalse(r.stderr.contains("\u{1B}"), "no escape codes when stderr is not a terminal")
        // --quiet: nothing at all on success.
        let q = try Support.sdrify(Support.vector("sdr_h264_aac.mp4"), dir.appendingPathComponent("q.mp4").path, "--quiet")
        XCTAssertEqual(q.status, 0)
        XCTAssertEqual(q.stderr, "")
        XCTAssertEqual(q.stdout, "")
    }
}

/// Results gathered from concurrent workers.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Support.Result?]
    init(_ n: Int) { items = Array(repeating: nil, count: n) }
    func set(_ i: Int, _ r: Support.Result?) { lock.lock(); items[i] = r; lock.unlock() }
    var all: [Support.Result] { items.map { $0 ?? Support.Result(status: -1, stdout: "", stderr: "did not run", stdoutData: Data(), signalled: false) } }
}
