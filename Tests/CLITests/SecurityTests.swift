import Foundation
import XCTest

/// The sandbox seen from outside, and each service limit tripped: exit code, the one line, nothing left behind.
final class SecurityTests: CLITestCase {
    /// A 1080p clip long enough to watch and to stop midway.
    func longClip(seconds: Int = 6) throws -> String {
        try sharedFile("security-1080p-\(seconds)s", "long.mp4") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds)", "-f", "lavfi", "-i",
                "sine=frequency=440:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30",
                "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path
            ])
        }
    }

    func json(_ r: Support.Result) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    /// Only the files the test made itself are in the folder: no output, no temporary.
    func assertNothingLeft(besides inputs: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(names, inputs.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted(), file: file, line: line)
    }

    func testConvertProbeAndComposeRunSandboxed() throws {
        let input = Support.vector("sdr_h264_aac.mp4")
        let convert = try Support.sdrify(input, file("a.mp4"), "--json")
        XCTAssertEqual(convert.status, 0, convert.stderr)
        XCTAssertEqual(try json(convert)["sandbox"] as? [String: Bool], ["seccomp": true, "landlock": true])
        let probe = try Support.sdrify("probe", file("a.mp4"), "--json")
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertEqual(try json(probe)["sandbox"] as? [String: Bool], ["seccomp": true, "landlock": true])
        let compose = try Support.sdrify("compose", input, "color:#204080:1", "--transition", "fade:0.3", "--output", file("c.mp4"), "--json")
        XCTAssertEqual(compose.status, 0, compose.stderr)
        XCTAssertEqual(try json(compose)["sandbox"] as? [String: Bool], ["seccomp": true, "landlock": true])
        let off = try Support.sdrify(input, file("b.mp4"), "--json", "--no-sandbox")
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(try json(off)["sandbox"] as? [String: Bool], ["seccomp": false, "landlock": false])
        // The outputs are complete and nothing else was left.
        try assertNothingLeft(besides: ["a.mp4", "b.mp4", "c.mp4"])
        XCTAssertEqual(Support.streams(try Support.ffprobe(file("c.mp4")), "video").count, 1)
    }

    /// The kernel's view of a running conversion: no_new_privs and a seccomp filter on every thread.
    /// Inside the sandbox only the job's files (and what the libraries read: fonts, shared data) can be read: a file
    /// beside the input and /etc/hostname are refused, and a playlist input that names a file beside it (what a
    /// decoder exploited by a crafted file would do) cannot reach it.
    func testReadingIsConfinedToTheJobsFiles() throws {
        try Data("beside\n".utf8).write(to: URL(fileURLWithPath: file("beside.txt")))
        let input = Support.vector("sdr_h264_aac.mp4")
        let check = try Support.sdrify("sandbox-check", "--input", input, file("beside.txt"), "/etc/hostname", "/usr/share/fonts/truetype")
        XCTAssertEqual(check.status, 0, check.stderr)
        let report = try json(check)
        XCTAssertEqual(report["sandbox"] as? [String: Bool], ["seccomp": true, "landlock": true])
        let paths = report["paths"] as? [String: String] ?? [:]
        XCTAssertEqual(paths[input], "read")
        XCTAssertEqual(paths[file("beside.txt")], "refused: Permission denied")
        XCTAssertEqual(paths["/etc/hostname"], "refused: Permission denied")
        XCTAssertNotEqual(paths["/usr/share/fonts/truetype"], "refused: Permission denied", "fonts stay readable")

        try FileManager.default.copyItem(atPath: input, toPath: file("beside.mp4"))
        try Data("ffconcat version 1.0\nfile beside.mp4\n".utf8).write(to: URL(fileURLWithPath: file("list.ffconcat")))
        let open = try Support.sdrify(file("list.ffconcat"), file("open.mp4"), "--no-sandbox")
        XCTAssertEqual(open.status, 0, "without the sandbox the playlist reads the file beside it: \(open.stderr)")
        let confined = try Support.sdrify(file("list.ffconcat"), file("confined.mp4"))
        XCTAssertEqual(confined.status, 2, confined.stderr)
        XCTAssertTrue(confined.stderr.contains("Permission denied"), confined.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("confined.mp4")))
    }

    /// Every feature that reads files still works with reading confined: a timeline with relative paths (a clip, a
    /// picture, music), a sticker, captions set in a system font, a background picture; the same output as without.
    func testFeaturesThatReadFilesWorkConfined() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", "libx264", file("clip.mp4")])
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=330:duration=3", "-c:a", "aac", file("song.m4a")])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120", "-frames:v", "1", file("still.png")])
        try Data("1\n00:00:00,000 --> 00:00:02,000\nWörds in a system font\n".utf8).write(to: URL(fileURLWithPath: file("c.srt")))
        try Data(
            #"""
            {"output": {"preset": "640x480", "background": {"image": "still.png", "fit": "cover"}},
             "clips": [{"file": "clip.mp4"}, {"image": "still.png", "duration": 1, "fit": "contain"}],
             "music": {"file": "song.m4a"},
             "overlays": {"stickers": [{"image": "still.png", "x": 10, "y": 10, "width": 40}],
                          "captions": [{"file": "c.srt"}]}}
            """#.utf8
        ).write(to: URL(fileURLWithPath: file("edit.json")))
        let confined = try Support.sdrify("compose", "--timeline", file("edit.json"), "--output", file("confined.mp4"), "--json")
        XCTAssertEqual(confined.status, 0, confined.stderr)
        XCTAssertEqual(try json(confined)["sandbox"] as? [String: Bool], ["seccomp": true, "landlock": true])
        let open = try Support.sdrify("compose", "--timeline", file("edit.json"), "--output", file("open.mp4"), "--no-sandbox")
        XCTAssertEqual(open.status, 0, open.stderr)
        for n in [5, 40] {
            XCTAssertEqual(try Support.lumaFrame(file("confined.mp4"), index: n), try Support.lumaFrame(file("open.mp4"), index: n), "picture \(n)")
        }
        XCTAssertEqual(Support.streams(try Support.ffprobe(file("confined.mp4")), "audio").count, 1)
    }

    func testKernelSeesTheFilterDuringAConversion() throws {
        let input = try longClip()
        let p = Process()
        p.executableURL = Support.binary
        p.arguments = [input, file("out.mp4"), "--preset", "1280x720"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        var seen: [String] = []
        while p.isRunning && seen.isEmpty {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task")) ?? []
            if tasks.count > 2 {  // the pipeline's threads are running: the sandbox closed before they started
                let states = tasks.compactMap { try? String(contentsOfFile: "/proc/\(p.processIdentifier)/task/\($0)/status", encoding: .utf8) }
                if states.count == tasks.count { seen = states }
            }
            usleep(20_000)
        }
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertFalse(seen.isEmpty, "the conversion ended before it could be watched")
        for status in seen {
            XCTAssertTrue(status.contains("Seccomp:\t2\n"), status)
            XCTAssertTrue(status.contains("NoNewPrivs:\t1\n"), status)
        }
    }

    func testMaxPixelsRefusesBeforeDecoding() throws {
        let input = Support.vector("sdr_h264_aac.mp4")  // 640x360
        let r = try Support.sdrify(input, file("out.mp4"), "--max-pixels", "200000")
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertEqual(r.stderr, "sdrify: \(input): picture size 640x360 (230400 pixels) is beyond --max-pixels 200000\n")
        try assertNothingLeft(besides: [])
        // At the limit it converts; compose and probe obey it too.
        XCTAssertEqual(try Support.sdrify(input, file("ok.mp4"), "--max-pixels", "230400").status, 0)
        let compose = try Support.sdrify("compose", input, "--output", file("c.mp4"), "--max-pixels", "200000")
        XCTAssertEqual(compose.status, 3, compose.stderr)
        XCTAssertTrue(compose.stderr.contains("--max-pixels 200000"), compose.stderr)
        XCTAssertEqual(try Support.sdrify("probe", input, "--max-pixels", "1000").status, 3)
        // A sticker is a picture too.
        let sticker = file("big.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=800x600", "-frames:v", "1", sticker])
        let s = try Support.sdrify(input, file("s.mp4"), "--sticker", "\(sticker)@0,0", "--max-pixels", "300000")
        XCTAssertEqual(s.status, 3, s.stderr)
        try assertNothingLeft(besides: ["ok.mp4", "big.png"])
    }

    func testMaxDurationFromHeadersAndWhileReading() throws {
        let input = Support.vector("sdr_h264_aac.mp4")  // 1 s
        let r = try Support.sdrify(input, file("out.mp4"), "--max-duration", "0.5")
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("sdrify: \(input): is 1"), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix(", beyond --max-duration 0.5 s\n"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        // A raw stream says nothing of its length: it is stopped once its pictures pass the limit.
        let raw = file("raw.h264")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3", "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264", raw])
        let running = try Support.sdrify(raw, file("out.mp4"), "--max-duration", "1")
        XCTAssertEqual(running.status, 3, running.stderr)
        XCTAssertTrue(running.stderr.contains("runs past 1 s, beyond --max-duration 1 s"), running.stderr)
        try assertNothingLeft(besides: [raw])
        XCTAssertEqual(try Support.sdrify(raw, file("ok.mp4"), "--max-duration", "3.5").status, 0)
    }

    func testTimeoutStopsCleanly() throws {
        let input = try longClip()
        let r = try Support.sdrify(input, file("out.mp4"), "--timeout", "0.5", "--json")
        XCTAssertEqual(r.status, 124, r.stderr)
        XCTAssertEqual(r.stderr, "sdrify: timed out after 0.5 s (--timeout); stopped, no output written\n")
        try assertNothingLeft(besides: [input])
    }

    func testMaxMemoryStopsCleanly() throws {
        let input = try longClip(seconds: 3)
        let r = try Support.sdrify(input, file("out.mp4"), "--max-memory", "40M")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "sdrify: memory use passed --max-memory (40 MB); stopped, no output written\n")
        try assertNothingLeft(besides: [input])
        // A ceiling with room converts.
        let ok = try Support.sdrify(input, file("ok.mp4"), "--max-memory", "2G", "--preset", "960x540")
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    func testBadLimitValuesAreUsageErrors() throws {
        let input = Support.vector("sdr_h264_aac.mp4")
        for args in [["--max-memory", "lots"], ["--max-pixels", "0"], ["--timeout", "-1"], ["--max-duration", "nan"]] {
            let r = try Support.sdrify([input, file("out.mp4")] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        try assertNothingLeft(besides: [])
    }
}
