import Foundation
import XCTest

/// Folders of files: `--output-dir`, `--name`, `--skip-existing`, `--jobs`, JSON Lines, the worst exit status,
/// interruption, and docs/convert.md's GNU parallel recipe for spreading a folder over machines.
final class BatchTests: CLITestCase {
    func lines(_ r: Support.Result) throws -> [[String: Any]] {
        try r.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "one JSON object per line: \(line)")
        }
    }

    func outputs(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    func testFolderJSONLinesWorstStatusAndNothingPartial() throws {
        let inputs = [
            Support.vector("orient_1.mp4"), Support.vector("truncated.mp4"), Support.vector("orient_6.mp4"),
            Support.vector("hlg_portrait.mov")
        ]
        let r = try Support.sdrify(inputs + ["--output-dir", file("out"), "--jobs", "2", "--json", "--preset", "640x480"])
        XCTAssertEqual(r.status, 2, "the worst file's status: \(r.stderr)")
        let reports = try lines(r)
        XCTAssertEqual(reports.count, 5, r.stdout)
        let files = reports.dropLast()
        XCTAssertEqual(Set(files.compactMap { $0["input"] as? String }), Set(inputs))
        for report in files {
            let input = report["input"] as? String ?? ""
            let expected = input.hasSuffix("truncated.mp4") ? 2 : 0
            XCTAssertEqual(report["exit_code"] as? Int, expected, input)
            XCTAssertEqual(report["status"] as? String, expected == 0 ? "converted" : "failed", input)
        }
        let summary = try XCTUnwrap(reports.last?["summary"] as? [String: Any])
        XCTAssertEqual(summary["files"] as? Int, 4)
        XCTAssertEqual(summary["finished"] as? Int, 3)
        XCTAssertEqual(summary["failed"] as? Int, 1)
        XCTAssertEqual(summary["exit_code"] as? Int, 2)
        XCTAssertEqual(try outputs(file("out")), ["hlg_portrait.mp4", "orient_1.mp4", "orient_6.mp4"], "no partial file, no temporary")
        // Each line names the file it is about, in the error line too.
        XCTAssertTrue(r.stderr.contains("sdrify: truncated.mp4: "), r.stderr)
        let portrait = Support.streams(try Support.ffprobe(file("out/orient_6.mp4")), "video")[0]
        XCTAssertEqual(portrait["width"] as? Int, 240, "each file gets the full single-file treatment (upright)")
    }

    /// The JSON lines are part of the result: a stdout that cannot take them makes the batch exit 4, and the files
    /// it converted stay (they are complete).
    func testJSONLinesThatCannotBeWrittenExitFourAndKeepTheFiles() throws {
        let command =
            "'\(Support.binary.path)' '\(Support.vector("orient_1.mp4"))' '\(Support.vector("orient_6.mp4"))' --output-dir '\(file("out"))' --jobs 2 --json >/dev/full"
        let r = try Support.run("/bin/sh", ["-c", command])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertTrue(r.stderr.contains("sdrify: stdout: cannot write the JSON reports; the converted files stay"), r.stderr)
        XCTAssertEqual(try outputs(file("out")), ["orient_1.mp4", "orient_6.mp4"])
    }

    func testSkipExistingSkipsOnlyCompleteOutputs() throws {
        let inputs = [Support.vector("orient_1.mp4"), Support.vector("orient_6.mp4")]
        let first = try Support.sdrify(inputs + ["--output-dir", file("out"), "-q"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let kept = try FileManager.default.attributesOfItem(atPath: file("out/orient_1.mp4"))[.systemFileNumber] as? Int
        // A file cut short where orient_6's output goes (another tool's partial copy, say).
        let full = try Data(contentsOf: URL(fileURLWithPath: file("out/orient_6.mp4")))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: file("out/orient_6.mp4")))

        let again = try Support.sdrify(inputs + ["--output-dir", file("out"), "--skip-existing", "--json"])
        XCTAssertEqual(again.status, 4, "the cut file is not skipped, and without --overwrite it is not replaced: \(again.stderr)")
        let byInput = Dictionary(uniqueKeysWithValues: try lines(again).dropLast().map { ($0["input"] as? String ?? "", $0) })
        XCTAssertEqual(byInput[inputs[0]]?["status"] as? String, "skipped")
        XCTAssertEqual(byInput[inputs[1]]?["exit_code"] as? Int, 4)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: file("out/orient_1.mp4"))[.systemFileNumber] as? Int, kept,
            "the finished file was left alone")

        let replaced = try Support.sdrify(inputs + ["--output-dir", file("out"), "--skip-existing", "--overwrite", "-q"])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file("out/orient_6.mp4"))).count, full.count)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file("out/orient_1.mp4"))[.systemFileNumber] as? Int, kept)

        // One input with an output file: the same rule.
        let single = try Support.sdrify(inputs[0], file("out/orient_1.mp4"), "--skip-existing")
        XCTAssertEqual(single.status, 0)
        XCTAssertTrue(single.stderr.contains("skipped"), single.stderr)
    }

    func testNamePatternsFolderArgumentAndCollisions() throws {
        let inputs = [Support.vector("orient_1.mp4"), Support.vector("orient_3.mp4")]
        let r = try Support.sdrify(inputs + ["--output-dir", file("named"), "--name", "{index}-{stem}-{preset}.mov", "--preset", "640x480", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try outputs(file("named")), ["1-orient_1-640x480.mov", "2-orient_3-640x480.mov"])
        // As with cp, a folder as the last argument is the output folder.
        try FileManager.default.createDirectory(atPath: file("plain"), withIntermediateDirectories: true)
        let cp = try Support.sdrify(inputs + [file("plain"), "-q"])
        XCTAssertEqual(cp.status, 0, cp.stderr)
        XCTAssertEqual(try outputs(file("plain")), ["orient_1.mp4", "orient_3.mp4"])
        // Two inputs with one name would write one file: refused before anything runs.
        try FileManager.default.createDirectory(atPath: file("other"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: inputs[0], toPath: file("other/orient_1.mp4"))
        let clash = try Support.sdrify([inputs[0], file("other/orient_1.mp4"), "--output-dir", file("clash")])
        XCTAssertEqual(clash.status, 64)
        XCTAssertTrue(clash.stderr.contains("would both be written to"), clash.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("clash")))
        for bad in ["{stem}.txt", "sub/{stem}.mp4", ".mp4"] {
            let e = try Support.sdrify([inputs[0], "--output-dir", file("bad"), "--name", bad])
            XCTAssertEqual(e.status, 64, bad)
        }
    }

    /// A signal stops the batch: finished files stay, the running one is removed, the rest never start.
    func testInterruptingABatchLeavesFinishedFilesAndNoPartialOne() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "20", "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", file("long.mp4")
        ])
        let p = Process()
        p.executableURL = Support.binary
        p.arguments = [
            Support.vector("orient_1.mp4"), file("long.mp4"), Support.vector("orient_6.mp4"),
            "--output-dir", file("out"), "--json", "--jobs", "1"
        ]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: file("out/orient_1.mp4")) && Date() < deadline { usleep(20_000) }
        usleep(800_000)  // the long file is under way
        p.interrupt()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130, stderr)
        XCTAssertEqual(try outputs(file("out")), ["orient_1.mp4"], "finished file kept, nothing partial")
        let reports = try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let summary = try XCTUnwrap(reports.last?["summary"] as? [String: Any])
        XCTAssertEqual(summary["interrupted"] as? String, "SIGINT")
        XCTAssertEqual(summary["finished"] as? Int, 1)
        XCTAssertEqual(summary["not_started"] as? Int, 1)
        XCTAssertEqual(summary["exit_code"] as? Int, 130)
        XCTAssertTrue(stderr.contains("batch interrupted (SIGINT): 1 of 3 files finished, 1 not started"), stderr)
    }

    /// docs/convert.md's recipe for many machines, run on this one (`-S 2/:` is two job slots on the local host):
    /// the joblog records each file's exit status, and `--resume-failed` retries only the failures.
    func testGNUParallelRecipeJoblogAndResume() throws {
        let clips = dir.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        for name in ["orient_1.mp4", "orient_6.mp4", "truncated.mp4"] {
            try FileManager.default.copyItem(atPath: Support.vector(name), toPath: clips.appendingPathComponent(name).path)
        }
        let recipe = [
            "--will-cite", "-S", "2/:", "--transferfile", "{}", "--return", "sdr/{/.}.mp4", "--cleanup",
            "--joblog", "jobs.log", "--resume-failed",
            "mkdir -p sdr && \(Support.binary.path) {} sdr/{/.}.mp4 --quiet", ":::", "orient_1.mp4", "orient_6.mp4", "truncated.mp4"
        ]
        let first = try Support.run(Support.tool("parallel"), recipe, in: clips)
        XCTAssertEqual(first.status, 1, "parallel exits with the number of failed jobs: \(first.stderr)")
        func exitValues() throws -> [String: String] {
            let log = try String(contentsOf: clips.appendingPathComponent("jobs.log"), encoding: .utf8)
            var result: [String: String] = [:]
            for row in log.split(separator: "\n").dropFirst() {
                let fields = row.split(separator: "\t").map(String.init)
                let input = fields[8].split(separator: " ").first { $0.hasSuffix(".mp4") && !$0.hasPrefix("sdr/") } ?? "?"
                result[String(input)] = fields[6]
            }
            return result
        }
        XCTAssertEqual(try exitValues(), ["orient_1.mp4": "0", "orient_6.mp4": "0", "truncated.mp4": "2"])
        XCTAssertEqual(try outputs(clips.appendingPathComponent("sdr").path), ["orient_1.mp4", "orient_6.mp4"])

        // The damaged file replaced by a good one: the resumed run retries it alone.
        try FileManager.default.removeItem(at: clips.appendingPathComponent("truncated.mp4"))
        try FileManager.default.copyItem(atPath: Support.vector("orient_3.mp4"), toPath: clips.appendingPathComponent("truncated.mp4").path)
        let resumed = try Support.run(Support.tool("parallel"), recipe, in: clips)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let log = try String(contentsOf: clips.appendingPathComponent("jobs.log"), encoding: .utf8)
        XCTAssertEqual(log.split(separator: "\n").count, 1 + 3 + 1, "one more row: only the failed file ran again")
        XCTAssertEqual(try outputs(clips.appendingPathComponent("sdr").path), ["orient_1.mp4", "orient_6.mp4", "truncated.mp4"])
    }
}
