import Foundation
import XCTest

/// What shows behind a picture that does not fill the frame: a colour, an image, the picture itself blurred; and the
/// still picture of an audio-only input, with its sound and lyrics.
final class BackgroundTests: CLITestCase {
    /// One output frame as planes: luma `w`×`h`, then Cb and Cr at half size.
    func planes(_ path: String, _ index: Int, _ w: Int, _ h: Int) throws -> (y: [UInt8], cb: [UInt8], cr: [UInt8]) {
        let raw = try Support.rawFrame(path, index: index, pixelFormat: "yuv420p")
        XCTAssertEqual(raw.count, w * h * 3 / 2, "\(path): frame \(index) is \(w)x\(h)")
        guard raw.count == w * h * 3 / 2 else { return ([], [], []) }
        let c = w * h / 4
        return (Array(raw.prefix(w * h)), Array(raw[(w * h)..<(w * h + c)]), Array(raw[(w * h + c)...]))
    }

    func mean(_ a: [UInt8], width: Int, x: Range<Int>, y: Range<Int>) -> Double {
        var s = 0
        for r in y { for c in x { s += Int(a[r * width + c]) } }
        return Double(s) / Double(x.count * y.count)
    }

    /// Mean absolute difference between horizontal neighbours: the fine detail of a region.
    func detail(_ a: [UInt8], width: Int, x: Range<Int>, y: Range<Int>) -> Double {
        var s = 0
        for r in y { for c in x.dropLast() { s += abs(Int(a[r * width + c + 1]) - Int(a[r * width + c])) } }
        return Double(s) / Double((x.count - 1) * y.count)
    }

    /// A portrait clip (red noise on the left half, blue noise on the right) after a landscape one: contained in the
    /// 320x240 frame (180x240 at x 70), with its own picture, covering and blurred, in the bars.
    func testBlurredBackgroundFillsTheBarsWithTheClipItselfSmoothed() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=320x240:r=30:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("land.mp4")])
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=red:s=120x320:r=30:d=1", "-f", "lavfi", "-i", "color=c=blue:s=120x320:r=30:d=1",
            "-filter_complex", "[0][1]hstack,noise=alls=80:allf=t,format=yuv420p", "-c:v", "libx264", "-qp", "0", file("portrait.mp4")
        ])
        let r = try Support.sdrify(
            "compose", file("land.mp4"), file("portrait.mp4"), "--output", file("out.mp4"),
            "--background", "blur:24", "--crf", "4")
        XCTAssertEqual(r.status, 0, r.stderr)
        let f = try planes(file("out.mp4"), 45, 320, 240)
        guard !f.y.isEmpty else { return }
        XCTAssertGreaterThan(mean(f.cr, width: 160, x: 2..<30, y: 10..<110), 170, "red from the clip's left half in the left bar")
        XCTAssertGreaterThan(mean(f.cb, width: 160, x: 130..<158, y: 10..<110), 170, "blue from its right half in the right bar")
        let picture = detail(f.y, width: 320, x: 90..<150, y: 20..<220)
        let bars = max(detail(f.y, width: 320, x: 0..<64, y: 0..<240), detail(f.y, width: 320, x: 256..<320, y: 0..<240))
        XCTAssertGreaterThan(picture, 8, "the clip itself keeps its noise")
        XCTAssertLessThan(bars, picture / 6, "the bars are blurred")
        // The first clip fills the frame: no bars, nothing drawn over it.
        let first = try planes(file("out.mp4"), 10, 320, 240)
        XCTAssertEqual(mean(first.y, width: 320, x: 0..<320, y: 0..<240), 126, accuracy: 3)
    }

    /// An image background from the overlay description (stretched, as asked), a colour from the timeline file,
    /// and the bad descriptions refused with their JSON path before any output exists.
    func testImageAndColourBackgroundsFromJSONAndTheirErrors() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=240x320:r=30:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("portrait.mp4")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=320x240:r=30:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("land.mp4")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x00FF00:s=64x16", "-frames:v", "1", file("green.png")])
        func write(_ json: String, _ name: String) throws -> String {
            try Data(json.utf8).write(to: URL(fileURLWithPath: file(name)))
            return file(name)
        }
        let timeline = try write(
            """
            {"output": {"preset": "640x480", "background": {"color": "#0000FF"}},
             "clips": [{"file": "land.mp4"}, {"file": "portrait.mp4"}],
             "overlays": {"background": {"image": "green.png", "fit": "stretch"}}}
            """, "edit.json")
        let t = try Support.sdrify("compose", "--timeline", timeline, "--output", file("edit.mp4"), "--crf", "4")
        XCTAssertEqual(t.status, 0, t.stderr)
        var f = try planes(file("edit.mp4"), 30, 320, 240)
        guard !f.y.isEmpty else { return }
        // Green stretched over the whole frame (the overlays' background wins over the output's blue).
        XCTAssertEqual(mean(f.y, width: 320, x: 0..<64, y: 0..<240), 173, accuracy: 4, "green in the bars")
        XCTAssertLessThan(mean(f.cb, width: 160, x: 0..<32, y: 0..<120), 60)
        XCTAssertEqual(mean(f.y, width: 320, x: 140..<180, y: 100..<140), 126, accuracy: 4, "the clip in the middle")
        let blue = try write(
            """
            {"output": {"preset": "640x480", "background": {"color": "#0000FF"}},
             "clips": [{"file": "land.mp4"}, {"file": "portrait.mp4"}]}
            """, "blue.json")
        XCTAssertEqual(try Support.sdrify("compose", "--timeline", blue, "--output", file("blue.mp4"), "--crf", "4").status, 0)
        f = try planes(file("blue.mp4"), 30, 320, 240)
        guard !f.y.isEmpty else { return }
        XCTAssertEqual(mean(f.y, width: 320, x: 0..<64, y: 0..<240), 32, accuracy: 3, "blue bars (Y' 32)")
        XCTAssertGreaterThan(mean(f.cb, width: 160, x: 0..<32, y: 0..<120), 230)

        for (json, path) in [
            (##"{"background": {"color": "#12"}}"##, "$.background.color"),
            (##"{"background": {"image": "missing.png"}}"##, "$.background.image"),
            (##"{"background": {"blur": 5, "color": "#000000"}}"##, "$.background"),
            (##"{"background": {"blur": -5}}"##, "$.background.blur"),
            (##"{"background": {"color": "#000000", "fit": "cover"}}"##, "$.background.fit"),
            (##"{"background": {"image": "green.png", "fit": "squash"}}"##, "$.background.fit")
        ] {
            let bad = try write(json, "bad.json")
            let e = try Support.sdrify("compose", file("portrait.mp4"), "--output", file("bad.mp4"), "--overlays", bad)
            XCTAssertEqual(e.status, 64, json)
            XCTAssertTrue(e.stderr.contains(path), "\(json): \(e.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
        }
        let missing = try Support.sdrify(file("portrait.mp4"), file("bad.mp4"), "--background", file("none.jpg"))
        XCTAssertEqual(missing.status, 64, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--background"), missing.stderr)
    }

    /// A song with a cover picture and lyrics becomes a video as long as the song: the picture at its own size (never
    /// upscaled), the lyrics in their time, the sound kept. Without a picture: black at the preset's size. Blur has
    /// nothing to blur: refused.
    func testAudioOnlyInputBecomesAVideoOfTheBackground() throws {
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:r=48000:d=3", "-c:a", "aac", "-b:a", "128k", file("song.m4a")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0xC02020:s=400x300", "-frames:v", "1", file("cover.png")])
        try Data("1\n00:00:01,000 --> 00:00:02,000\nSing along\n".utf8).write(to: URL(fileURLWithPath: file("lyrics.srt")))
        let r = try Support.sdrify(
            file("song.m4a"), file("song.mp4"), "--background", file("cover.png"), "--captions", file("lyrics.srt"),
            "--json", "--crf", "4")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        XCTAssertEqual(report["width"] as? Int, 400)
        XCTAssertEqual(report["height"] as? Int, 300)
        XCTAssertEqual(report["duration"] as? Double ?? 0, 3, accuracy: 0.05)
        let probe = try Support.ffprobe(file("song.mp4"))
        let video = try XCTUnwrap(Support.streams(probe, "video").first), audio = try XCTUnwrap(Support.streams(probe, "audio").first)
        XCTAssertEqual(Double(video["duration"] as? String ?? "") ?? 0, 3, accuracy: 0.05)
        XCTAssertEqual(Double(audio["duration"] as? String ?? "") ?? 0, 3, accuracy: 0.05)
        let before = try planes(file("song.mp4"), 15, 400, 300), during = try planes(file("song.mp4"), 45, 400, 300)
        guard !before.y.isEmpty, !during.y.isEmpty else { return }
        XCTAssertGreaterThan(mean(before.cr, width: 200, x: 0..<200, y: 0..<150), 180, "the red cover")
        let changed: [Int] = (0..<300).filter { (y: Int) -> Bool in
            (0..<400).contains { (x: Int) -> Bool in abs(Int(during.y[y * 400 + x]) - Int(before.y[y * 400 + x])) > 20 }
        }
        XCTAssertGreaterThan(changed.count, 5, "the lyric at 1.5 s")
        XCTAssertGreaterThan(changed.min() ?? 0, 200, "at the bottom")
        let sound = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("song.mp4"), "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
        let samples = sound.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let rms = (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
        XCTAssertGreaterThan(rms, 0.07, "the tone is there (ffmpeg's sine: amplitude 1/8, RMS 0.088)")

        let black = try Support.sdrify(file("song.m4a"), file("black.mp4"), "--preset", "640x480", "--start", "1", "--json")
        XCTAssertEqual(black.status, 0, black.stderr)
        let b = try XCTUnwrap(JSONSerialization.jsonObject(with: black.stdoutData) as? [String: Any])
        XCTAssertEqual(b["width"] as? Int, 640)
        XCTAssertEqual(b["height"] as? Int, 480)
        XCTAssertEqual(b["duration"] as? Double ?? 0, 2, accuracy: 0.05, "from 1 s to the end")
        XCTAssertEqual(try planes(file("black.mp4"), 10, 640, 480).y.max(), 16, "black")

        let blur = try Support.sdrify(file("song.m4a"), file("blur.mp4"), "--background", "blur")
        XCTAssertEqual(blur.status, 64, blur.stderr)
        XCTAssertTrue(blur.stderr.contains("no picture to blur"), blur.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("blur.mp4")))
    }
}
