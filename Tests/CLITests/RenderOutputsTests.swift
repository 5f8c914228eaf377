import Foundation
import XCTest

/// The one render path's outputs: a constant frame rate on convert (`--fps`) and a poster from the same render
/// (`--poster`), on convert and compose.
final class RenderOutputsTests: CLITestCase {
    /// A variable-rate clip: 1 s at 15 fps (black), then 1 s at 60 fps (white from exactly 1.0 s), with 2 s of AAC.
    func variableRateClip() throws -> String {
        let path = file("vfr.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=75", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-filter_complex",
            "[0]settb=1/600,setpts='if(lt(N,15),N*40,600+(N-15)*10)',drawbox=color=black:t=fill:enable='lt(t,1)',"
                + "drawbox=color=white:t=fill:enable='gte(t,1)'[v]",
            "-map", "[v]", "-map", "1", "-frames:v", "75", "-fps_mode", "passthrough", "-video_track_timescale", "600",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", path
        ])
        return path
    }

    /// Video packets' presentation times (s), in order.
    func videoTimes(_ path: String) throws -> [Double] {
        let r = try Support.run(
            Support.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time",
                "-of", "csv=p=0", path
            ])
        return r.stdout.split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    /// The MD5 of a stream's packets, copied out by ffmpeg.
    func streamMD5(_ path: String, _ stream: String) throws -> String {
        let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:\(stream)", "-c", "copy", "-f", "md5", "-"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func testFPSGivesAConstantRateInSyncWithTheSoundUntouched() throws {
        let input = try variableRateClip()
        let source = try videoTimes(input)
        XCTAssertEqual(source.count, 75)
        XCTAssertNotEqual(source[1] - source[0], source[20] - source[19], accuracy: 1e-3, "the source's rate varies")
        let out = file("cfr.mp4")
        let r = try Support.sdrify(input, out, "--fps", "24", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let times = try videoTimes(out)
        XCTAssertEqual(times.count, 48, "2 s at 24 fps")
        for i in 1..<times.count { XCTAssertEqual(times[i] - times[i - 1], 1.0 / 24, accuracy: 1e-3, "frame \(i) lasts one frame") }
        let probe = try Support.ffprobe(out)
        let video = Support.streams(probe, "video").first ?? [:]
        XCTAssertEqual(video["r_frame_rate"] as? String, "24/1")
        XCTAssertEqual(Double(video["duration"] as? String ?? "") ?? 0, 2, accuracy: 1.0 / 24, "duration kept within a frame")
        // Sync: the cut to white at 1.0 s lands on output frame 24 (1.0 s), not a frame early or late.
        let before = try Support.lumaFrame(out, index: 23), at = try Support.lumaFrame(out, index: 24)
        XCTAssertLessThan(Double(before.reduce(0) { $0 + Int($1) }) / Double(before.count), 40, "0.958 s shows the black part")
        XCTAssertGreaterThan(Double(at.reduce(0) { $0 + Int($1) }) / Double(at.count), 200, "1.0 s shows the white part")
        // The sound is copied as it was.
        XCTAssertEqual(try streamMD5(out, "a"), try streamMD5(input, "a"), "AAC copied bit-exact")
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(json["frames"] as? Int, 48)
    }

    func testFPSTakesNTSCRatesAndRefusesNonsense() throws {
        let input = try variableRateClip()
        let r = try Support.sdrify(input, file("ntsc.mp4"), "--fps", "29.97")
        XCTAssertEqual(r.status, 0, r.stderr)
        let video = Support.streams(try Support.ffprobe(file("ntsc.mp4")), "video").first ?? [:]
        XCTAssertEqual(video["r_frame_rate"] as? String, "30000/1001")
        XCTAssertEqual(try videoTimes(file("ntsc.mp4")).count, 60, "2 s at 29.97 fps, to the nearest frame")
        for bad in ["0", "1000", "abc", "30/0"] {
            let r = try Support.sdrify(input, file("bad.mp4"), "--fps", bad)
            XCTAssertEqual(r.status, 64, bad)
            XCTAssertTrue(r.stderr.contains("--fps"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
        }
    }

    /// RGB of one decoded picture (of an image file, or of a video's frame `index`).
    func rgb(_ path: String, index: Int = 0) throws -> [UInt8] {
        try Support.rawFrame(path, index: index, pixelFormat: "rgb24")
    }

    func testThePosterIsTheVideosOwnPictureAtItsTime() throws {
        // Portrait HLG: the poster must come out upright and tone mapped like the video. Lossless video, so the
        // picture the poster was made from is the video's frame exactly.
        let input = Support.vector("hlg_portrait.mov")
        let out = file("v.mp4"), poster = file("p.png")
        let r = try Support.sdrify(input, out, "--crf", "0", "--encoder-preset", "ultrafast", "--poster", poster, "--poster-at", "0.5", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let video = Support.streams(try Support.ffprobe(out), "video").first ?? [:]
        let image = Support.streams(try Support.ffprobe(poster), "video").first ?? [:]
        XCTAssertEqual(image["width"] as? Int, video["width"] as? Int)
        XCTAssertEqual(image["height"] as? Int, video["height"] as? Int)
        XCTAssertGreaterThan(video["height"] as? Int ?? 0, video["width"] as? Int ?? 0, "upright portrait")
        let still = try rgb(poster)
        let atTime = try Support.psnr(still, rgb(out, index: 15))  // 0.5 s at 30 fps
        XCTAssertGreaterThan(atTime, 40, "the poster is the video's picture at 0.5 s")
        XCTAssertGreaterThan(atTime, try Support.psnr(still, rgb(out, index: 5)) + 3, "and not another one")
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let report = json["poster"] as? [String: Any] ?? [:]
        XCTAssertEqual(report["path"] as? String, poster)
        XCTAssertEqual(report["time"] as? Double ?? -1, 0.5, accuracy: 1e-9)
    }

    func testPosterFormatsAndTheDefaultTime() throws {
        let input = Support.vector("hlg_portrait.mov")  // 1 s long: the default is its middle
        for ext in ["jpg", "webp"] {
            let out = file("\(ext).mp4"), poster = file("p.\(ext)")
            let r = try Support.sdrify(input, out, "--crf", "0", "--encoder-preset", "ultrafast", "--poster", poster, "--json")
            XCTAssertEqual(r.status, 0, r.stderr)
            let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            XCTAssertEqual((json["poster"] as? [String: Any])?["time"] as? Double ?? -1, 0.5, accuracy: 1e-9, ext)
            XCTAssertGreaterThan(try Support.psnr(rgb(poster), rgb(out, index: 15)), 30, "\(ext): the picture at 0.5 s")
        }
    }

    func testComposeWritesAPosterOfTheComposedPicture() throws {
        let out = file("c.mp4"), poster = file("c.png")
        let r = try Support.sdrify(
            "compose", Support.vector("sdr_h264_aac.mp4"), Support.vector("hlg_portrait.mov"), "-o", out,
            "--transition", "fade:0.4", "--crf", "0", "--encoder-preset", "ultrafast",
            "--poster", poster, "--poster-at", "1.2", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let rate = try XCTUnwrap((try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["fps"] as? Double)
        let index = Int((1.2 * rate).rounded(.down))
        XCTAssertGreaterThan(try Support.psnr(rgb(poster), rgb(out, index: index)), 40, "the composed picture at 1.2 s")
    }

    func testPosterOutputsAreAllOrNothing() throws {
        let input = Support.vector("sdr_h264_aac.mp4")
        FileManager.default.createFile(atPath: file("taken.png"), contents: Data("mine".utf8))
        let r = try Support.sdrify(input, file("v.mp4"), "--poster", file("taken.png"))
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("v.mp4")), "no video without its poster")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file("taken.png"))), Data("mine".utf8))
        for (args, needle) in [
            (["--poster", file("p.gif")], "--poster"), (["--poster-at", "1"], "--poster-at"),
            (["--poster", file("p.png"), "--poster-at", "5"], "past the end")
        ] {
            let r = try Support.sdrify([input, file("w.mp4")] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("w.mp4")))
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("p.png")))
        }
    }
}
