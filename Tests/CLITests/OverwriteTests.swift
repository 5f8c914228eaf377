import Foundation
import XCTest

/// A slip never costs a file (docs/convert.md, "An existing output"): `-y` replaces only what sdrify made, an original
/// only `--overwrite-original` does; a glob's second file is read as an input; every writing command keeps the rule.
final class OverwriteTests: CLITestCase {
    /// Two real phone clips copied into a folder, as a person's camera folder holds them.
    func cameraFolder() throws -> (a: String, b: String)? {
        guard RealMediaTests.present() else { return nil }
        let a = file("IMG_0001.MP4"), b = file("IMG_0002.MOV")
        try FileManager.default.copyItem(
            atPath: RealMediaTests.folder.appendingPathComponent("androidx_pixel7_videoOnly_cleaned.mp4").path, toPath: a)
        try FileManager.default.copyItem(atPath: RealMediaTests.folder.appendingPathComponent("androidx_bt601.mov").path, toPath: b)
        return (a, b)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// `sdrify convert dir/*.MOV -y --duration 1` with two clips there: nothing is written, the second clip is kept,
    /// and the message says how to convert both.
    func testGlobOfTwoCameraClipsNeverReplacesTheSecond() throws {
        guard let (a, b) = try cameraFolder() else { return }
        let original = try bytes(b)
        for flags in [[], ["-y"], ["--overwrite"], ["-y", "--json"]] {
            let r = try Support.sdrify(["convert", a, b, "--duration", "1"] + flags)
            XCTAssertEqual(r.status, 64, "\(flags): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("two inputs? Convert both with --output-dir DIR"), r.stderr)
            XCTAssertEqual(try bytes(b), original, "\(flags): the original is untouched")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["IMG_0001.MP4", "IMG_0002.MOV"])
        // What the message advises converts both, originals untouched.
        let both = try Support.sdrify("convert", a, b, "--output-dir", file("sdr"), "--duration", "1", "-y", "-q")
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("sdr")).count, 2)
        XCTAssertEqual(try bytes(b), original)
    }

    /// Every command that writes, with -y, aimed at a camera original (a video, or a photo): refused, the original kept.
    func testEveryWritingCommandKeepsAnOriginalUnderY() throws {
        guard let (a, b) = try cameraFolder() else { return }
        let photo = file("PXL_0003.jpg")
        try FileManager.default.copyItem(atPath: RealMediaTests.folder.appendingPathComponent("libavif_apple_gainmap_old.jpg").path, toPath: photo)
        let lyrics = file("song.srt")
        try "1\r\n00:00:00,500 --> 00:00:01,000\r\nmy own words\r\n".write(toFile: lyrics, atomically: true, encoding: .utf8)
        let camera = file("DCIM")  // a folder of originals given as hls's or sprites' output
        try FileManager.default.createDirectory(atPath: camera, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: b, toPath: "\(camera)/IMG_0004.MOV")
        let originals = try [b, photo, lyrics, "\(camera)/IMG_0004.MOV"].map { ($0, try bytes($0)) }
        let runs: [[String]] = [
            ["convert", a, "-o", b, "-y", "--duration", "1"],
            ["convert", a, file("x.mp4"), "--poster", photo, "-y", "--duration", "1"],
            ["convert", a, file("y.mp4"), "--hdr-output", b, "-y", "--duration", "1"],
            ["compose", a, "-o", b, "-y"],
            ["thumbnail", a, photo, "-y"],
            ["sheet", a, photo, "-y"],
            ["hls", a, camera, "-y", "--duration", "1"],
            ["sprites", a, camera, "-y"],
            ["captions", file("cues.vtt"), lyrics, "-y"]
        ]
        try "WEBVTT\n\n00:00.000 --> 00:01.000\nnew\n".write(toFile: file("cues.vtt"), atomically: true, encoding: .utf8)
        for args in runs {
            let r = try Support.sdrify(args)
            XCTAssertNotEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("sdrify did not make it"), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--overwrite-original"), "\(args): \(r.stderr)")
        }
        for (path, before) in originals { XCTAssertEqual(try bytes(path), before, path) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.mp4")), "one refused output: none written")
        // The batch form over a folder that holds an original of the same name.
        try FileManager.default.createDirectory(atPath: file("out"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: b, toPath: file("out/IMG_0001.mp4"))
        let batch = try Support.sdrify("convert", a, "--output-dir", file("out"), "-y", "--duration", "1", "-q")
        XCTAssertEqual(batch.status, 4, batch.stderr)
        XCTAssertEqual(try bytes(file("out/IMG_0001.mp4")), try bytes(b))
        // --overwrite-original does what it says.
        let meant = try Support.sdrify("thumbnail", a, photo, "--overwrite-original", "-q")
        XCTAssertEqual(meant.status, 0, meant.stderr)
        XCTAssertNotEqual(try bytes(photo), originals[1].1)
    }

    /// -y replaces what sdrify wrote, in every format it writes: a second identical run succeeds.
    func testYReplacesEverythingSdrifyWrote() throws {
        let input = Support.vector("orient_6.mp4")
        try "1\n00:00:01,000 --> 00:00:02,000\nHello\n\n2\n00:00:03,000 --> 00:00:04,500\n<i>again</i>\n".write(
            toFile: file("in.srt"), atomically: true, encoding: .utf8)
        var runs: [[String]] = [
            [input, file("o.mp4")], [input, file("o.mov")], ["convert", input, file("p.mp4"), "--poster", file("p.webp")],
            ["compose", input, "-o", file("c.m4v")], ["thumbnail", input, file("t.jpg")], ["thumbnail", input, file("t.png")],
            ["thumbnail", input, file("t.webp")], ["sheet", input, file("s.jpg")], ["hls", input, file("h")], ["sprites", input, file("sp")]
        ]
        runs += ["srt", "vtt", "ass", "ttml", "itt", "scc", "lrc"].map { ["captions", file("in.srt"), file("c.\($0)")] }
        for args in runs {
            let first = try Support.sdrify(args + ["-q"])
            XCTAssertEqual(first.status, 0, "\(args): \(first.stderr)")
            let refused = try Support.sdrify(args + ["-q"])
            XCTAssertEqual(refused.status, 4, "\(args) again without -y: \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("sdrify made it: -y replaces it"), "\(args): \(refused.stderr)")
            let again = try Support.sdrify(args + ["-y", "-q"])
            XCTAssertEqual(again.status, 0, "\(args) with -y: \(again.stderr)")
        }
        // The marked pictures still read everywhere (ffmpeg decodes each).
        for still in ["t.jpg", "t.png", "t.webp", "p.webp", "s.jpg"] {
            let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file(still), "-f", "null", "-"])
            XCTAssertEqual(r.status, 0, "\(still): \(r.stderr)")
            XCTAssertEqual(r.stderr, "", still)
        }
        XCTAssertTrue(try Support.ffprobe(file("o.mp4")).description.contains("sdrify "), "the movie names sdrify as its encoder")
    }

    /// Every value is checked before an existing output is considered: one run names the first real problem.
    func testValuesAreCheckedBeforeTheOutputsExistence() throws {
        let input = Support.vector("orient_1.mp4")
        try Data("occupied".utf8).write(to: URL(fileURLWithPath: file("e1.mp4")))
        let crop = try Support.sdrify(input, "-o", file("e1.mp4"), "--crop", "0,0,5000,5000")
        XCTAssertEqual(crop.status, 64, crop.stderr)
        XCTAssertTrue(crop.stderr.contains("outside"), crop.stderr)
        let start = try Support.sdrify(input, "-o", file("e1.mp4"), "--start", "100")
        XCTAssertEqual(start.status, 64, start.stderr)
        XCTAssertTrue(start.stderr.contains("past the end"), start.stderr)
        let hls = try Support.sdrify("hls", input, file("e1.mp4"), "--ladder", "abc")
        XCTAssertEqual(hls.status, 64, hls.stderr)
        XCTAssertEqual(try String(contentsOfFile: file("e1.mp4"), encoding: .utf8), "occupied")
    }

    /// compose takes its output with -o only: a last CLIP that looks like one is named in the message.
    func testComposeWithoutOutputAsksForMinusO() throws {
        let input = Support.vector("orient_1.mp4")
        let r = try Support.sdrify("compose", input, file("film.mp4"))
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("did you mean -o \(file("film.mp4"))?"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("film.mp4")))
    }
}
