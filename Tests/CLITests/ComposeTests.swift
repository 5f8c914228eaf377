import Foundation
import XCTest

/// `sdrify compose` end to end on generated clips: sizes, rates, which clip shows when, orientation and HDR as
/// convert does them, sound continuity and sync, the timeline file, errors, and the two-open-clips rule.
final class ComposeTests: CLITestCase {
    /// A flat grey clip with a sine tone (or none).
    func clip(_ name: String, grey: Int, size: String = "320x240", rate: Int = 30, seconds: Double = 1, tone: Int? = nil) throws -> String {
        var args = ["-f", "lavfi", "-i", "color=c=0x\(String(format: "%02X%02X%02X", grey, grey, grey)):s=\(size):r=\(rate):d=\(seconds)"]
        if let tone { args += ["-f", "lavfi", "-i", "sine=f=\(tone):r=48000:d=\(seconds)", "-ac", "2", "-c:a", "aac", "-b:a", "128k"] }
        args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", file(name)]
        try ffmpeg(args)
        return file(name)
    }

    /// A clip whose luma counts its frames: frame N has Y' 16 + `step`·N.
    func counter(_ name: String, rate: Int, step: Int) throws -> String {
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=320x240:r=\(rate):d=1,format=yuv420p,geq=lum='16+\(step)*N':cb=128:cr=128",
            "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", file(name)
        ])
        return file(name)
    }

    func compose(_ args: [String]) throws -> [String: Any] {
        let r = try Support.sdrify(["compose"] + args + ["--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    /// Mean luma of output frame `n` in a centred box a quarter of the picture.
    func centreLuma(_ path: String, _ n: Int) throws -> Double { try centreLuma(path, [n])[0] }
    /// The same of each of `pictures`, decoded together.
    func centreLuma(_ path: String, _ pictures: [Int]) throws -> [Double] {
        try Support.lumaFrames(path, indices: pictures, filter: "crop=iw/4:ih/4").map { bytes in
            Double(bytes.reduce(0) { $0 + Int($1) }) / Double(bytes.count)
        }
    }

    /// The output's first audio channel, decoded, as floats.
    func audio(_ path: String) throws -> [Float] {
        let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func rms(_ s: ArraySlice<Float>) -> Double { (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(s.count, 1))).squareRoot() }

    func durations(_ path: String) throws -> (video: Double, audio: Double?) {
        let probe = try Support.ffprobe(path)
        let v = Double(Support.streams(probe, "video").first?["duration"] as? String ?? "") ?? -1
        let a = (Support.streams(probe, "audio").first?["duration"] as? String).flatMap(Double.init)
        return (v, a)
    }

    func testClipsPhotosAndColoursShowInTurnAtTheFirstClipsShape() throws {
        let a = try clip("a.mp4", grey: 64, size: "640x360", tone: 440)
        let b = try clip("b.mp4", grey: 192, size: "320x240", rate: 60)
        try ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=100x200", "-frames:v", "1", file("tall.png")])
        let out = file("out.mp4")
        let report = try compose([
            a, b, "color:#FF0000:0.5", file("tall.png"), "--image-duration", "1", "--output", out, "--preset", "960x540", "--crf", "10"
        ])
        XCTAssertEqual(report["width"] as? Int, 640); XCTAssertEqual(report["height"] as? Int, 360)
        XCTAssertEqual(report["frame_rate"] as? String, "30")
        XCTAssertEqual(report["frames"] as? Int, 30 + 30 + 15 + 30)
        let probe = try Support.ffprobe(out)
        let v = Support.streams(probe, "video")[0]
        XCTAssertEqual(v["width"] as? Int, 640); XCTAssertEqual(v["height"] as? Int, 360)
        XCTAssertEqual(v["nb_frames"] as? String, "105")
        XCTAssertEqual(v["color_transfer"] as? String, "bt709")
        // (ffmpeg's grey is full range: a grey clip reads back as its own level.)
        let centres = try centreLuma(out, [10, 45, 68, 90])
        XCTAssertEqual(centres[0], 64, accuracy: 3)
        XCTAssertEqual(centres[1], 192, accuracy: 3)
        XCTAssertEqual(centres[2], (63 - 16) * 255 / 219.0, accuracy: 3, "red: Y' 63")
        XCTAssertEqual(centres[3], 255, accuracy: 3, "the white photo in the middle")
        // The photo (1:2) contained: black bars at the sides.
        let row = try Support.lumaFrame(out, index: 90, filter: "crop=iw:2:0:ih/2")
        XCTAssertLessThan(Double(row[5]), 20); XCTAssertGreaterThan(Double(row[320]), 225)
        // Sound where the first clip has it, silence after; both tracks end together.
        let samples = try audio(out)
        XCTAssertGreaterThan(rms(samples[4800..<38400]), 0.05, "ffmpeg's sine is at 1/8 of full scale")
        XCTAssertLessThan(rms(samples[52800..<96000]), 0.001)
        let d = try durations(out)
        XCTAssertEqual(d.video, 3.5, accuracy: 0.001)
        XCTAssertEqual(d.audio ?? 0, d.video, accuracy: 1024 / 48000.0)
    }

    func testRatesAreMetByTimestamp() throws {
        // 60 fps into 30: every other picture; 24 fps into 30: the picture nearest to each output time.
        let fast = try counter("c60.mp4", rate: 60, step: 3)
        let slow = try counter("c24.mp4", rate: 24, step: 8)
        let out = file("out.mp4")
        _ = try compose([fast, slow, "--output", out, "--fps", "30", "--crf", "0", "--preset", "640x480"])
        let fastAt = [1, 5, 12, 20], slowAt = [1, 4, 7, 13, 22]
        let slowPictures = slowAt.map { k in Int((Double(k) * 24 / 30).rounded()) }
        let shown = try centreLuma(out, fastAt + slowAt.map { 30 + $0 })
        for (k, (ours, theirs)) in zip(fastAt, zip(shown, try centreLuma(fast, fastAt.map { 2 * $0 }))) {
            XCTAssertEqual(ours, theirs, accuracy: 1.5, "60 fps frame \(2 * k) at output \(k)")
        }
        for (k, (n, (ours, theirs))) in zip(slowAt, zip(slowPictures, zip(shown.dropFirst(fastAt.count), try centreLuma(slow, slowPictures)))) {
            XCTAssertEqual(ours, theirs, accuracy: 1.5, "24 fps frame \(n) at output \(k)")
        }
    }

    func testEveryOrientationComesOutUprightAsConvertDoesIt() throws {
        for exif in 1...8 {
            let out = file("o\(exif).mp4"), single = file("c\(exif).mp4")
            let input = Support.vector("orient_\(exif).mp4")
            _ = try compose([input, "--output", out, "--preset", "640x480", "--crf", "12"])
            let r = try Support.sdrify(input, single, "--preset", "640x480", "--crf", "12")
            XCTAssertEqual(r.status, 0, r.stderr)
            let p = Support.psnr(try Support.lumaFrame(out, index: 3), try Support.lumaFrame(single, index: 3))
            XCTAssertGreaterThan(p, 40, "EXIF \(exif)")
            let upright = try Support.lumaFrame(input, index: 3, filter: "scale=\(exif >= 5 ? "240:320" : "320:240")", autorotate: true)
            XCTAssertGreaterThan(
                Support.psnr(try Support.lumaFrame(out, index: 3, filter: "scale=\(exif >= 5 ? "240:320" : "320:240")"), upright), 25, "EXIF \(exif)")
        }
    }

    func testHDRClipsAreToneMappedLikeConvert() throws {
        for name in ["hlg_portrait.mov", "pq_hevc_hdr10.mp4"] {
            let out = file("compose-\(name).mp4"), single = file("convert-\(name).mp4")
            let report = try compose([Support.vector(name), "--output", out, "--preset", "640x480", "--crf", "12"])
            let clip = (report["clips"] as? [[String: Any]])?.first
            XCTAssertEqual(clip?["hdr"] as? String, name.hasPrefix("hlg") ? "hlg" : "pq")
            let r = try Support.sdrify(Support.vector(name), single, "--preset", "640x480", "--crf", "12")
            XCTAssertEqual(r.status, 0, r.stderr)
            let pictures = [0, 15, 29]
            for (n, (a, b)) in zip(pictures, zip(try Support.lumaFrames(out, indices: pictures), try Support.lumaFrames(single, indices: pictures))) {
                XCTAssertGreaterThan(Support.psnr(a, b), 40, "\(name) frame \(n)")
            }
        }
    }

    func testSoundCrossfadesAndJoinsWithoutGaps() throws {
        let a = try clip("a.mp4", grey: 50, tone: 440), b = try clip("b.mp4", grey: 200, tone: 660), c = try clip("c.mp4", grey: 120, tone: 550)
        let out = file("out.mp4")
        _ = try compose([a, b, "--output", out, "--transition", "fade:0.5"])
        var s = try audio(out)
        let steady = rms(s[4800..<14400])
        XCTAssertGreaterThan(steady, 0.05)
        // Equal power: the level holds through the overlap (0.5–1.0 s), 10 ms windows.
        for w in stride(from: 960, to: s.count - 1920, by: 480) {
            XCTAssertEqual(rms(s[w..<w + 480]) / steady, 1, accuracy: 0.3, "window at \(Double(w) / 48000) s")
        }
        XCTAssertEqual(Double(s.count) / 48000, 1.5, accuracy: 0.03)
        // A cut: no gap and no click (no sample jumps further than the tones ever step).
        let cut = file("cut.mp4")
        _ = try compose([a, c, "--output", cut])
        s = try audio(cut)
        for w in stride(from: 960, to: s.count - 1920, by: 480) {
            XCTAssertGreaterThan(rms(s[w..<w + 480]) / steady, 0.6, "at \(Double(w) / 48000) s")
        }
        var biggest: Float = 0
        for i in 48000 - 2400..<48000 + 2400 { biggest = max(biggest, abs(s[i] - s[i - 1])) }
        XCTAssertLessThan(biggest, 0.05, "step at the cut")
    }

    func testMusicLoopsUnderSilentClipsAtItsVolume() throws {
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=330:r=44100:d=0.7", "-ac", "1", "-c:a", "aac", "-b:a", "128k", file("song.m4a")])
        let out = file("out.mp4")
        let report = try compose(["color:#202020:1", "color:#404040:1", "--output", out, "--music", file("song.m4a"), "--music-volume", "0.5"])
        XCTAssertEqual(report["audio"] as? Bool, true)
        let s = try audio(out)
        XCTAssertEqual(Double(s.count) / 48000, 2, accuracy: 0.03)
        // A full-scale sine at 0.5 of its amplitude: RMS 0.5/√2 × the encoder's level, before and after the loop.
        let song = try audio(file("song.m4a"))
        let reference = rms(song[4410..<26460])
        XCTAssertEqual(rms(s[4800..<28800]) / reference, 0.5, accuracy: 0.06)
        XCTAssertEqual(rms(s[48000..<86400]) / reference, 0.5, accuracy: 0.06, "still playing after it looped")
    }

    /// A retimed clip's `from` and `to` are on its own clock (the part of the file used); `duration` is how long it shows.
    func testARetimedClipsRangeIsReportedOnItsOwnClock() throws {
        _ = try clip("a.mp4", grey: 64, size: "320x180", seconds: 2, tone: 440)
        _ = try clip("b.mp4", grey: 192, size: "320x180")
        let edit = """
            {"output": {"fps": 30}, "clips": [{"file": "a.mp4", "from": 0.5, "to": 1.5, "speed": 0.5,
              "transition": {"type": "fade", "duration": 0.2}}, {"file": "b.mp4"}]}
            """
        try edit.write(toFile: file("slow.json"), atomically: true, encoding: .utf8)
        let report = try compose(["--timeline", file("slow.json"), "--output", file("slow.mp4")])
        let clips = report["clips"] as? [[String: Any]] ?? []
        XCTAssertEqual(clips.first?["from"] as? Double, 0.5)
        XCTAssertEqual(clips.first?["to"] as? Double, 1.5, "the clip's own clock, not the output's 2.5")
        XCTAssertEqual(clips.first?["duration"] as? Double ?? 0, 2.0, accuracy: 1.0 / 30, "one second of it shown at half speed")
    }

    func testTimelineFileRangesFitsMusicAndErrors() throws {
        let a = try clip("a.mp4", grey: 64, size: "640x360", seconds: 2, tone: 440)
        _ = try clip("b.mp4", grey: 192, size: "360x640")
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=330:r=48000:d=3", "-c:a", "aac", file("song.m4a")])
        let edit = """
            {"output": {"preset": "640x480", "fps": 25, "background": "#0000FF"},
             "clips": [{"file": "a.mp4", "from": 0.5, "to": 1.5, "volume": 0.5, "transition": {"type": "wipeup", "duration": 0.2}},
                       {"file": "b.mp4", "fit": "contain"}, {"file": "b.mp4", "fit": "cover"}, {"color": "#00FF00", "duration": 0.4}],
             "music": {"file": "song.m4a", "volume": 0.2, "fade_in": 0.5, "fade_out": 0.5}}
            """
        try edit.write(toFile: file("edit.json"), atomically: true, encoding: .utf8)
        let out = file("out.mp4")
        let report = try compose(["--timeline", file("edit.json"), "--output", out, "--fps", "50"])
        XCTAssertEqual(report["frame_rate"] as? String, "25", "the file's values win")
        XCTAssertEqual(report["frames"] as? Int, 25 + 25 + 25 + 10 - 5)
        let clips = report["clips"] as? [[String: Any]] ?? []
        XCTAssertEqual(clips.first?["from"] as? Double, 0.5); XCTAssertEqual(clips.first?["to"] as? Double, 1.5)
        XCTAssertEqual(clips.first?["file"] as? String, a)
        XCTAssertEqual(clips[3]["kind"] as? String, "color"); XCTAssertTrue(clips[3]["file"] is NSNull)
        XCTAssertEqual(clips[1]["start"] as? Double ?? 0, 0.8, accuracy: 1e-6)
        // contain: the portrait clip on the blue background; cover: it fills the picture.
        let edges = try Support.rawFrames(out, indices: [35, 60], pixelFormat: "rgb24", filter: "crop=8:8:4:ih/2")
        let (contained, covered) = (edges[0], edges[1])
        XCTAssertGreaterThan(Int(contained[2]), 180, "blue background at the left edge")
        XCTAssertGreaterThan(Int(covered[0]), 150); XCTAssertGreaterThan(Int(covered[2]), 150)
        let d = try durations(out)
        XCTAssertEqual(d.audio ?? 0, d.video, accuracy: 1024 / 48000.0)

        // Errors name the file and the JSON path, exit 64, and leave nothing behind.
        let bad: [(String, String)] = [
            (#"{"clips": [{"file": "a.mp4", "tempo": 2}]}"#, "$.clips[0].tempo"),
            (#"{"clips": [{"file": "a.mp4", "speed": 5}]}"#, "$.clips[0].speed"),
            (#"{"clips": [{"file": "missing.mp4"}]}"#, "$.clips[0].file"),
            (#"{"clips": [{"file": "a.mp4", "from": 5}]}"#, "past the end"),
            (#"{"clips": [{"color": "red"}]}"#, "$.clips[0].color"),
            (#"{"clips": [{"file": "a.mp4", "transition": {"type": "spin"}}, {"file": "b.mp4"}]}"#, "$.clips[0].transition.type"),
            (#"{"clips": [{"file": "a.mp4", "transition": {"type": "fade", "duration": 0.8}}, {"file": "b.mp4"}]}"#, "longer than half"),
            (#"{"clips": []}"#, "$.clips")
        ]
        for (text, expected) in bad {
            try text.write(toFile: file("bad.json"), atomically: true, encoding: .utf8)
            let r = try Support.sdrify("compose", "--timeline", file("bad.json"), "--output", file("bad.mp4"))
            XCTAssertEqual(r.status, 64, "\(text): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: ") && r.stderr.contains(expected), "\(text): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
        }
    }

    func testBadClipsFailBeforeAnyOutputWithTheirOwnExitCode() throws {
        let a = try clip("a.mp4", grey: 64)
        let cases: [([String], Int32, String)] = [
            ([a, Support.vector("truncated.mp4")], 2, "truncated.mp4"),
            ([a, file("nothing.mp4")], 2, "nothing.mp4"),
            ([a, Support.vector("matrix_45deg.mp4")], 3, "matrix_45deg.mp4"),
            ([a, "color:#GG0000"], 64, "color:#GG0000"),
            ([a, a, "--transition", "fade:0.6"], 64, "longer than half"),
            ([a, "--fps", "0"], 64, "--fps")
        ]
        for (args, status, mention) in cases {
            let out = file("out.mp4")
            let r = try Support.sdrify(["compose"] + args + ["--output", out])
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(mention), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        // An existing output sdrify did not make is kept without --overwrite-original (exit 4), -y included.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: file("exists.mp4")))
        XCTAssertEqual(try Support.sdrify("compose", a, "--output", file("exists.mp4")).status, 4)
        XCTAssertEqual(try Support.sdrify("compose", a, "--output", file("exists.mp4"), "--overwrite").status, 4)
        XCTAssertEqual(try String(contentsOfFile: file("exists.mp4"), encoding: .utf8), "keep")
        XCTAssertEqual(try Support.sdrify("compose", a, "--output", file("exists.mp4"), "--overwrite-original").status, 0)
        // sdrify made it now: -y replaces it.
        XCTAssertEqual(try Support.sdrify("compose", a, "--output", file("exists.mp4"), "--overwrite").status, 0)
        // A clip that is the output itself is refused.
        let itself = try Support.sdrify("compose", file("exists.mp4"), a, "--output", file("exists.mp4"), "--overwrite-original")
        XCTAssertEqual(itself.status, 4, itself.stderr)
        XCTAssertTrue(itself.stderr.contains("is the input file"), itself.stderr)
    }

    func testHundredClipsKeepTwoOpenAndStayInSync() throws {
        let a = try clip("a.mp4", grey: 64, size: "160x90", seconds: 0.3, tone: 440)
        let b = try clip("b.mp4", grey: 192, size: "90x160", rate: 25, seconds: 0.3)
        let out = file("out.mp4")
        let list = (0..<100).map { $0 % 2 == 0 ? a : b }
        let report = try compose(list + ["--output", out, "--transition", "fade:0.1", "--fps", "30"])
        XCTAssertEqual(report["max_clips_open"] as? Int, 2)
        // Clip a is 9 frames at 30 fps, b (0.32 s: 8 pictures at 25 fps) 10; 99 overlaps of 3.
        XCTAssertEqual(report["frames"] as? Int, 50 * 9 + 50 * 10 - 99 * 3)
        let d = try durations(out)
        XCTAssertEqual(d.video, Double(50 * 9 + 50 * 10 - 99 * 3) / 30, accuracy: 0.001)
        XCTAssertEqual(d.audio ?? 0, d.video, accuracy: 1024 / 48000.0, "A/V in sync after 100 clips")
    }

    func testOverlaysFollowTheOutputClockAndProgressCoversTheWhole() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x00FF00:s=40x40", "-frames:v", "1", file("green.png")])
        try #"{"stickers": [{"image": "green.png", "x": 0, "y": 0, "start": 1.2, "end": 1.6}]}"#
            .write(toFile: file("overlays.json"), atomically: true, encoding: .utf8)
        let out = file("out.mp4")
        let r = try Support.sdrify(
            "compose", "color:#000000:1", "color:#000000:1", "--output", out, "--overlays", file("overlays.json"),
            "--fps", "25", "--preset", "640x480", "--progress", "-")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("progress=end\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("total_us=2000000"), r.stdout)
        XCTAssertTrue(r.stdout.contains("out_time_us=2000000\n"), r.stdout)
        // The sticker shows from 1.2 s to 1.6 s of the output, over the second clip (which starts at 1 s).
        let expected = [(28, false), (32, true), (38, true), (42, false)]
        let corners = try Support.rawFrames(out, indices: expected.map(\.0), pixelFormat: "rgb24", filter: "crop=8:8:16:16")
        for ((n, shown), px) in zip(expected, corners) { XCTAssertEqual(px[1] > 200, shown, "frame \(n): \(px[0...2])") }
    }

    func testASignalStopsACompositionAndLeavesNothing() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", file("big.mp4")])
        let outDir = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = Support.binary
        p.arguments = [
            "compose", file("big.mp4"), file("big.mp4"), file("big.mp4"), "--transition", "fade",
            "--output", outDir.appendingPathComponent("out.mp4").path, "--progress", "-"
        ]
        let progress = Pipe(), errors = Pipe()
        p.standardOutput = progress; p.standardError = errors; p.standardInput = FileHandle.nullDevice
        try p.run()
        XCTAssertTrue(String(decoding: progress.fileHandleForReading.availableData, as: UTF8.self).contains("progress="))
        usleep(300_000)
        kill(p.processIdentifier, SIGTERM)
        DispatchQueue.global().async { _ = progress.fileHandleForReading.readDataToEndOfFile() }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .exit)
        XCTAssertEqual(p.terminationStatus, 128 + SIGTERM)
        XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outDir.path), [])
    }
}
