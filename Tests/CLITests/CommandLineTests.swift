import Foundation
import XCTest

/// The command line as a new user meets it: version, help, typos, numbers and times, short flags, JSON on every
/// failure, repeated options, the encoder preset option.
final class CommandLineTests: CLITestCase {
    func testVersionNamesSdrifyAndTheLibrariesItRunsWith() throws {
        let r = try Support.sdrify("--version")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertNotNil(lines.first?.range(of: #"^sdrify \d+\.\d+\.\d+$"#, options: .regularExpression), r.stdout)
        for library in ["FFmpeg 5.1", "libavcodec 59.", "zimg 3.", "libass 0."] {
            XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(library) }, "\(library) in \(r.stdout)")
        }
    }

    func testHelpAndBareCommandLeadWithTheMainFormAndExamples() throws {
        let help = try Support.sdrify("--help")
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("USAGE: sdrify IN OUT [--preset NAME]"), help.stdout)
        XCTAssertEqual(help.stdout.components(separatedBy: "\n  sdrify ").count - 1, 3, "three examples: \(help.stdout)")
        XCTAssertTrue(help.stdout.contains("SUBCOMMANDS:"))
        let bare = try Support.sdrify([])
        XCTAssertEqual(bare.status, 64)
        XCTAssertTrue(bare.stderr.hasPrefix("USAGE: sdrify IN OUT"), bare.stderr)
        XCTAssertEqual(bare.stdout, "")
    }

    func testAMisspelledCommandGetsDidYouMean() throws {
        for (typo, command) in [("prob", "probe"), ("compse", "compose"), ("caption", "captions"), ("presset", "presets")] {
            let r = try Support.sdrify(typo, Support.vector("orient_1.mp4"))
            XCTAssertEqual(r.status, 64, typo)
            XCTAssertEqual(r.stderr, "sdrify: unknown command '\(typo)'; did you mean '\(command)'? (see sdrify --help)\n")
        }
        // A real file with such a name is an input, not a typo.
        try FileManager.default.copyItem(atPath: Support.vector("orient_1.mp4"), toPath: file("prob"))
        let r = try Support.run(Support.binary.path, ["prob", "out.mp4", "--quiet"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("out.mp4")))
    }

    func testNegativeNumbersGetRangeErrorsNotMissingValue() throws {
        let input = Support.vector("orient_1.mp4"), out = file("o.mp4")
        let cases: [([String], String)] = [
            (["--start", "-1"], "--start must be 0 or more seconds"),
            (["--threads", "-1"], "--threads must be 0 or more"),
            (["--duration", "-0:02"], "--duration must be more than 0 seconds"),
            (["--crf", "-3"], "--crf must be between 0 and 51"),
            (["--jobs", "-2"], "--jobs must be from 1 to 64"),
            (["--max-pixels", "-5"], "--max-pixels must be more than 0"),
            (["--start", "1:75"], "The value '1:75' is invalid for '--start <TIME>'")
        ]
        for (args, message) in cases {
            let r = try Support.sdrify([input, out] + args)
            XCTAssertEqual(r.status, 64, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Missing value"), "\(args): \(r.stderr)")
        }
    }

    func testTimesAcceptClockFormAndEndIsBesideDuration() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "4", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("in.mp4")])
        let clock = try Support.sdrify(file("in.mp4"), "-o", file("clock.mp4"), "--start", "00:00:01.000", "--end", "0:02.5", "-q")
        XCTAssertEqual(clock.status, 0, clock.stderr)
        XCTAssertEqual(clock.stderr, "", "-q says nothing")
        let seconds = try Support.sdrify(file("in.mp4"), file("seconds.mp4"), "--start", "1", "--duration", "1.5", "--quiet")
        XCTAssertEqual(seconds.status, 0, seconds.stderr)
        let frames = try ["clock.mp4", "seconds.mp4"].map { name in
            Int(Support.streams(try Support.ffprobe(file(name)), "video")[0]["nb_frames"] as? String ?? "") ?? 0
        }
        XCTAssertEqual(frames[0], frames[1], "both spellings cut the same range")
        XCTAssertTrue((37...38).contains(frames[0]), "1.5 s at 25 fps: \(frames[0]) frames")
        XCTAssertEqual(try Support.lumaFrame(file("clock.mp4"), index: 0), try Support.lumaFrame(file("seconds.mp4"), index: 0))
        // --to is --end's other name; an end before the start is refused.
        let to = try Support.sdrify(file("in.mp4"), file("to.mp4"), "--start", "2", "--to", "1", "-q")
        XCTAssertEqual(to.status, 64)
        XCTAssertTrue(to.stderr.contains("--end must be after --start"), to.stderr)
        let both = try Support.sdrify(file("in.mp4"), file("both.mp4"), "--duration", "1", "--end", "2")
        XCTAssertEqual(both.status, 64)
    }

    func testShortFlagsOverwriteAndOutput() throws {
        let input = Support.vector("orient_1.mp4")
        XCTAssertEqual(try Support.sdrify(input, "-o", file("out.mp4"), "-q").status, 0)  // an earlier run's output
        let refused = try Support.sdrify(input, "-o", file("out.mp4"))
        XCTAssertEqual(refused.status, 4, refused.stderr)
        let replaced = try Support.sdrify(input, "-o", file("out.mp4"), "-y", "-q")
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertEqual(replaced.stderr, "")
        XCTAssertEqual(Support.streams(try Support.ffprobe(file("out.mp4")), "video").count, 1)
        let twoOutputs = try Support.sdrify(input, file("a.mp4"), "-o", file("b.mp4"))
        XCTAssertEqual(twoOutputs.status, 64)
        XCTAssertTrue(twoOutputs.stderr.contains("-o names one output"), twoOutputs.stderr)
        // compose's output option has the same short form.
        let compose = try Support.sdrify("compose", input, "color:#FF0000:0.5", "-o", file("c.mp4"), "-q")
        XCTAssertEqual(compose.status, 0, compose.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("c.mp4")))
    }

    /// stdout under --json is one JSON document, whatever fails and however early.
    func testEveryFailureUnderJSONPrintsTheErrorObject() throws {
        let input = Support.vector("orient_1.mp4")
        let cases: [([String], Int)] = [
            ([input, file("a.mp4"), "--json", "--no-such-option"], 64),
            ([input, "--json"], 64),
            ([input, file("a.mp4"), "--json", "--progress", "-"], 64),
            ([input, file("a.mp4"), "--json", "--start", "-1"], 64),
            ([file("missing.mov"), file("a.mp4"), "--json"], 2),
            ([Support.vector("truncated.mp4"), file("a.mp4"), "--json"], 2),
            (["compose", "--json", "-o", file("c.mp4")], 64),
            (["probe", "--json", file("missing.mov")], 2)
        ]
        for (args, status) in cases {
            let r = try Support.sdrify(args)
            XCTAssertEqual(r.status, Int32(status), "\(args): \(r.stderr)")
            let object = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
            XCTAssertEqual(object?["exit_code"] as? Int, status, "\(args): \(r.stdout)")
            XCTAssertEqual(object?["status"] as? String, "failed")
            let line = r.stderr.split(separator: "\n").last.map(String.init) ?? ""
            XCTAssertEqual("sdrify: " + (object?["error"] as? String ?? "?"), line, "the same words on both")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("a.mp4")))
    }

    func testRepeatedCaptionsBurnEveryFile() throws {
        try makeGreyClip()
        try Data("1\n00:00:00,000 --> 00:00:00,900\nFirst file\n".utf8).write(to: URL(fileURLWithPath: file("a.srt")))
        try Data("1\n00:00:01,000 --> 00:00:02,000\nSecond file\n".utf8).write(to: URL(fileURLWithPath: file("b.srt")))
        let r = try Support.sdrify(file("grey.mp4"), file("out.mp4"), "--captions", file("a.srt"), "--captions", file("b.srt"), "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        for index in [10, 45] {  // 0.33 s: the first file's cue; 1.5 s: the second's
            let plain = try Support.lumaFrame(file("grey.mp4"), index: index), burned = try Support.lumaFrame(file("out.mp4"), index: index)
            let changed = zip(plain, burned).filter { abs(Int($0) - Int($1)) > 40 }.count
            XCTAssertGreaterThan(changed, 200, "frame \(index) carries a caption")
        }
    }

    /// --encoder-preset drives the preset's encoder (x264 here: its settings string is in the stream);
    /// --x264-preset is the same option under its old name.
    func testEncoderPresetAndItsOldName() throws {
        let input = Support.vector("orient_1.mp4")
        for (flag, preset, subme) in [("--encoder-preset", "ultrafast", "subme=0"), ("--x264-preset", "veryslow", "subme=10")] {
            let out = file("\(preset).mp4")
            let r = try Support.sdrify(input, out, flag, preset, "-q")
            XCTAssertEqual(r.status, 0, r.stderr)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            XCTAssertNotNil(bytes.range(of: Data((subme + " ").utf8)), "\(flag) \(preset): x264 ran with \(subme)")
        }
        let bad = try Support.sdrify(input, file("x.mp4"), "--encoder-preset", "warp")
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("(x264)"), bad.stderr)
        let help = try Support.sdrify("convert", "--help")
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(words.contains("x264 (H.264) or x265 (HEVC)"), "help names the encoders")
    }

    /// Every command's help says each option's default once (the parser adds "(default: …)" itself where the
    /// property has one: a help text that says it too doubles it).
    func testHelpSaysEachDefaultOnce() throws {
        let commands = ["convert", "compose", "hls", "thumbnail", "sheet", "sprites", "captions", "tap", "probe", "presets", "sandbox-check"]
        for command in commands {
            let r = try Support.sdrify(command, "--help")
            XCTAssertEqual(r.status, 0, command)
            XCTAssertTrue(r.stdout.contains("OPTIONS:"), command)
            // Each option's block: from its line starting with "  -" to the next.
            let blocks = r.stdout.components(separatedBy: "\n  -").dropFirst()
            for block in blocks {
                let text = block.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                XCTAssertLessThanOrEqual(text.components(separatedBy: "default").count - 1, 1, "\(command): -\(text)")
            }
        }
    }
}
