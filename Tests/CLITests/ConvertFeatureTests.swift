import Foundation
import XCTest

/// Presets, audio, timing and metadata of the convert command.
final class ConvertFeatureTests: CLITestCase {

    func convert(_ args: String...) throws -> Support.Result {
        let r = try Support.sdrify(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r
    }

    func double(_ v: Any?) -> Double { Double(v as? String ?? "") ?? -1 }

    func testNonAACAudioIsTranscodedAndDownmixed() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=44100:duration=2",
            "-t", "2", "-c:v", "libx264", "-c:a", "pcm_s16le", "-ac", "1", file("pcm.mov")
        ])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "anoisesrc=d=2:r=48000",
            "-t", "2", "-filter_complex", "[1]pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0[a]", "-map", "0", "-map", "[a]",
            "-c:v", "libx264", "-c:a", "ac3", file("surround.mp4")
        ])
        for (name, channels) in [("pcm.mov", 1), ("surround.mp4", 2)] {
            _ = try convert(file(name), file("\(name).out.mp4"))
            let probe = try Support.ffprobe(file("\(name).out.mp4"))
            let audio = Support.streams(probe, "audio")
            XCTAssertEqual(audio.count, 1, name)
            XCTAssertEqual(audio.first?["codec_name"] as? String, "aac", name)
            XCTAssertEqual(audio.first?["profile"] as? String, "LC", name)
            XCTAssertEqual(audio.first?["sample_rate"] as? String, "48000", name)
            XCTAssertEqual(audio.first?["channels"] as? Int, channels, name)
            let v = Support.streams(probe, "video").first ?? [:]
            XCTAssertEqual(double(audio.first?["start_time"]), double(v["start_time"]), accuracy: 1.0 / 30, "\(name): A/V offset kept")
            XCTAssertEqual(double(audio.first?["duration"]), 2, accuracy: 0.05, name)
        }
    }

    func testTheDefaultAudioTrackIsKept() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=duration=1",
            "-f", "lavfi", "-i", "anoisesrc=d=1", "-t", "1", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264",
            "-c:a", "aac", "-ac:a:0", "1", "-ac:a:1", "2", "-disposition:a:0", "0", "-disposition:a:1", "default", file("two.mp4")
        ])
        _ = try convert(file("two.mp4"), file("two.out.mp4"))
        let audio = Support.streams(try Support.ffprobe(file("two.out.mp4")), "audio")
        XCTAssertEqual(audio.count, 1)
        XCTAssertEqual(audio.first?["channels"] as? Int, 2, "the default (stereo) track, not the first (mono) one")
    }

    /// `--audio-track`: a track by index or by language, or all of them (each with its language, the first the
    /// default); what is kept is that track's own sound (440 Hz English AAC copied, 880 Hz French MP3 transcoded);
    /// a track the input does not have is a usage error naming what it has.
    func testAudioTrackChoice() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:d=2", "-f", "lavfi", "-i", "sine=f=440:d=2", "-f", "lavfi", "-i", "sine=f=880:d=2",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a:0", "aac", "-c:a:1", "libmp3lame",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", file("langs.mp4")
        ])
        /// The pitch of an output's audio track: zero crossings of its first second of samples.
        func pitch(_ path: String, track: Int) throws -> Double {
            let r = try Support.run(
                Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:a:\(track)", "-t", "1", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"]
            )
            let samples = r.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let crossings = zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
            return Double(crossings) / 2 / (Double(samples.count) / 48000)
        }
        func tracks(_ path: String) throws -> [(language: String?, isDefault: Bool)] {
            Support.streams(try Support.ffprobe(path), "audio").map { s in
                ((s["tags"] as? [String: Any])?["language"] as? String, (s["disposition"] as? [String: Any])?["default"] as? Int == 1)
            }
        }
        for (choice, language, hz) in [("fra", "fra", 880.0), ("2", "fra", 880), ("eng", "eng", 440), ("1", "eng", 440)] {
            let out = file("langs.\(choice).mp4")
            let r = try Support.sdrify(file("langs.mp4"), out, "--audio-track", choice)
            XCTAssertEqual(r.status, 0, r.stderr)
            let kept = try tracks(out)
            XCTAssertEqual(kept.count, 1, choice)
            XCTAssertEqual(kept.first?.language, language, choice)
            XCTAssertEqual(try pitch(out, track: 0), hz, accuracy: hz * 0.02, "\(choice): that track's own sound")
        }
        let all = file("langs.all.mp4")
        XCTAssertEqual(try Support.sdrify(file("langs.mp4"), all, "--audio-track", "all").status, 0)
        let both = try tracks(all)
        XCTAssertEqual(both.map(\.language), ["eng", "fra"])
        XCTAssertEqual(both.map(\.isDefault), [true, false])
        XCTAssertEqual(try pitch(all, track: 0), 440, accuracy: 9)
        XCTAssertEqual(try pitch(all, track: 1), 880, accuracy: 18)
        for (bad, says) in [("deu", "1 (eng), 2 (fra)"), ("7", "no such audio track"), ("x1", "expected a track number")] {
            let r = try Support.sdrify(file("langs.mp4"), file("bad.mp4"), "--audio-track", bad)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
    }

    /// A default audio track in a codec this libavcodec cannot decode (a sample entry renamed to an unknown
    /// four-character code, as with Apple's APAC) gives way to the next track, or to no audio, with a warning.
    func testUndecodableDefaultAudioGivesWay() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=duration=1",
            "-f", "lavfi", "-i", "sine=f=880:duration=1", "-t", "1", "-map", "0", "-map", "1", "-map", "2",
            "-c:v", "libx264", "-c:a:0", "pcm_s16le", "-c:a:1", "aac", "-ac:a:0", "2", "-ac:a:1", "1",
            "-disposition:a:0", "default", "-disposition:a:1", "0", file("two.mov")
        ])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=duration=1", "-t", "1",
            "-c:v", "libx264", "-c:a", "pcm_s16le", file("one.mov")
        ])
        for name in ["two.mov", "one.mov"] {
            var data = try Data(contentsOf: URL(fileURLWithPath: file(name)))
            let entry = try XCTUnwrap(data.range(of: Data("sowt".utf8)), "\(name): PCM sample entry")
            data.replaceSubrange(entry, with: Data("apac".utf8))
            try data.write(to: URL(fileURLWithPath: file("apac-\(name)")))
        }
        let two = try convert(file("apac-two.mov"), file("two.mp4"))
        XCTAssertTrue(two.stderr.contains("'apac') cannot be decoded"), two.stderr)
        let kept = Support.streams(try Support.ffprobe(file("two.mp4")), "audio")
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(kept.first?["channels"] as? Int, 1, "the decodable (mono AAC) track")
        let one = try convert(file("apac-one.mov"), file("one.mp4"), "--json", "--quiet")
        XCTAssertEqual(one.stderr, "", "--quiet")
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: one.stdoutData) as? [String: Any])
        let warnings = report["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.contains("the output has no audio") }, "\(warnings)")
        XCTAssertEqual(Support.streams(try Support.ffprobe(file("one.mp4")), "audio").count, 0)
        XCTAssertEqual(Support.streams(try Support.ffprobe(file("one.mp4")), "video").count, 1)
    }

    /// A stream whose picture size changes mid-stream (concatenated clips, some screen recorders): later
    /// pictures are fitted inside the first one's output size and centred on black, never read as the old size.
    func testPictureSizeChangingMidStreamIsLetterboxed() throws {
        for (first, second, name) in [("640x360", "160x120", "shrink"), ("320x240", "640x360", "grow")] {
            // No B-frames: remuxing a raw stream with them gives timestamps that run backwards (damaged timing).
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(first):rate=30", "-t", "1", "-c:v", "libx264", "-bf", "0", "-f", "h264", file("a.h264")]
            )
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=\(second):rate=30", "-t", "1", "-c:v", "libx264", "-bf", "0", "-f", "h264", file("b.h264")
            ])
            let joined = try Data(contentsOf: URL(fileURLWithPath: file("a.h264"))) + Data(contentsOf: URL(fileURLWithPath: file("b.h264")))
            try joined.write(to: URL(fileURLWithPath: file("\(name).h264")))
            try ffmpeg(["-r", "30", "-i", file("\(name).h264"), "-c", "copy", file("\(name).mp4")])
            let r = try convert(file("\(name).mp4"), file("\(name).out.mp4"), "--crf", "0")  // lossless: exact borders
            XCTAssertTrue(r.stderr.contains("fitted inside \(first)"), r.stderr)
            let size = first.split(separator: "x").map { Int($0)! }, (w, h) = (size[0], size[1])
            let frame = try Support.rawFrame(file("\(name).out.mp4"), index: 45, pixelFormat: "yuv420p")
            XCTAssertEqual(frame.count, w * h * 3 / 2, name)
            guard frame.count == w * h * 3 / 2 else { continue }
            let picture = Array(frame.prefix(w * h))  // luma, limited range: black is 16
            // The second clip's picture, fitted and centred: 160x120 unscaled in 640x360; 640x360 → 320x180 in 320x240.
            let inner = name == "shrink" ? (x: 240, y: 120, w: 160, h: 120) : (x: 0, y: 30, w: 320, h: 180)
            var notBlack = 0
            for y in 0..<h {
                for x in 0..<w {
                    let inside = x >= inner.x && x < inner.x + inner.w && y >= inner.y && y < inner.y + inner.h
                    if !inside, abs(Int(picture[y * w + x]) - 16) > 2 { notBlack += 1 }
                }
            }
            XCTAssertEqual(notBlack, 0, "\(name): black outside the picture")
            let insideLevels = Set((inner.y..<inner.y + inner.h).map { y in picture[y * w + inner.x + inner.w / 2] })
            XCTAssertGreaterThan(insideLevels.count, 5, "\(name): the test pattern inside")
            // --background: the bars take its colour (blue: Y' 32, Cb 240).
            let blue = try convert(file("\(name).mp4"), file("\(name).blue.mp4"), "--crf", "0", "--background", "#0000FF")
            XCTAssertEqual(blue.status, 0, blue.stderr)
            let b = try Support.rawFrame(file("\(name).blue.mp4"), index: 45, pixelFormat: "yuv420p")
            guard b.count == w * h * 3 / 2 else { XCTFail(name); continue }
            XCTAssertEqual(Int(b[2 * w + 2]), 32, accuracy: 1, "\(name): blue bars")
            XCTAssertEqual(Int(b[w * h + 1]), 240, accuracy: 1, "\(name): blue bars (Cb)")
        }
    }

    /// Interlaced video is deinterlaced: a bar moving 6 pixels per field, woven two fields to a frame (top first),
    /// combs in every frame; sdrify's frames must not, and must show the first field's moment.
    func testInterlacedVideoIsDeinterlaced() throws {
        try ffmpeg([
            "-f", "lavfi", "-i",
            "color=black:size=320x240:rate=60,format=yuv420p,"
                + "geq=lum='if(between(X\\,mod(N*6\\,280)\\,mod(N*6\\,280)+39)\\,235\\,16)':cb=128:cr=128",
            "-t", "1", "-vf", "tinterlace=mode=interleave_top,setfield=tff", "-flags", "+ildct+ilme",
            "-c:v", "libx264", "-crf", "4", "-pix_fmt", "yuv420p", file("woven.mp4")
        ])
        let r = try convert(file("woven.mp4"), file("progressive.mp4"), "--crf", "4")
        XCTAssertTrue(r.stderr.contains("interlaced video"), r.stderr)
        func comb(_ path: String, _ index: Int) throws -> Double {
            let y = try Support.rawFrame(path, index: index, pixelFormat: "yuv420p").prefix(320 * 240).map(Double.init)
            guard y.count == 320 * 240 else { XCTFail("\(path): no picture \(index)"); return .infinity }
            var sum = 0.0
            for row in 1..<239 { for x in 0..<320 { sum += abs(y[row * 320 + x] - (y[(row - 1) * 320 + x] + y[(row + 1) * 320 + x]) / 2) } }
            return sum / Double(238 * 320)
        }
        for index in [5, 17] {
            let before = try comb(file("woven.mp4"), index), after = try comb(file("progressive.mp4"), index)
            XCTAssertGreaterThan(before, 5, "the source combs")
            XCTAssertLessThan(after, before / 20, "frame \(index): combing gone")
        }
        // Frame 5 holds fields 10 (top, first) and 11: the bar of field 10 spans x 60–99, of field 11 x 66–105.
        let y = try Support.rawFrame(file("progressive.mp4"), index: 5, pixelFormat: "yuv420p")
        guard y.count == 320 * 240 * 3 / 2 else { return XCTFail("no picture 5") }
        XCTAssertGreaterThan(y[120 * 320 + 62], 200, "the first field's bar")
        XCTAssertLessThan(y[120 * 320 + 103], 40, "not the second field's")

        // Still areas keep both fields: a still pattern woven into fields comes out as its progressive frames do.
        let still = "testsrc=size=320x240:rate=60"
        try ffmpeg([
            "-f", "lavfi", "-i", still, "-t", "0.5", "-vf", "tinterlace=mode=interleave_top,setfield=tff", "-flags",
            "+ildct+ilme", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("still_woven.mp4")
        ])
        try ffmpeg([
            "-f", "lavfi", "-i", still, "-t", "0.5", "-vf", "select='not(mod(n\\,2))'", "-vsync", "0", "-c:v", "libx264",
            "-qp", "0", "-pix_fmt", "yuv420p", file("still.mp4")
        ])
        _ = try convert(file("still_woven.mp4"), file("still_woven.out.mp4"), "--crf", "0")
        _ = try convert(file("still.mp4"), file("still.out.mp4"), "--crf", "0")
        let woven = try Support.rawFrame(file("still_woven.out.mp4"), index: 3, pixelFormat: "gray")
        let progressive = try Support.rawFrame(file("still.out.mp4"), index: 3, pixelFormat: "gray")
        XCTAssertEqual(woven.count, progressive.count)
        if woven.count == progressive.count, !woven.isEmpty {
            XCTAssertGreaterThan(Support.psnr(woven, progressive), 36, "still detail kept (interpolating every line scores ~29 dB)")
        }
    }

    /// Colour tags zimg cannot convert from (SMPTE 2085, ICtCp on an SDR transfer: damaged or exotic VUIs, found by
    /// fuzzing as exit 1) are read with the least guessing that works, with a warning; tags it can convert stay.
    func testUnconvertibleColourTagsAreGuessed() throws {
        for (matrix, guessed) in [("smpte2085", true), ("ictcp", true), ("ycgco", false), ("bt709", false)] {
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.3", "-c:v", "libx264", "-colorspace", matrix,
                "-color_primaries", "bt709", "-color_trc", "bt709", file("\(matrix).mp4")
            ])
            let r = try convert(file("\(matrix).mp4"), file("\(matrix).out.mp4"), "--json")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
            let warnings = report["warnings"] as? [String] ?? []
            XCTAssertEqual(warnings.contains { $0.contains("cannot be converted") }, guessed, "\(matrix): \(warnings)")
            XCTAssertEqual(report["frames"] as? Int, 9, matrix)
        }
    }

    /// Frame n of this clip has luma 16 + (5·n mod 200), so a decoded picture says which source frame it is.
    func makeNumberedClip(_ path: String, seconds: Int = 4) throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:size=320x240:rate=30", "-f", "lavfi", "-i", "sine=duration=\(seconds)",
            "-t", "\(seconds)", "-vf", "geq=lum='16+mod(N*5\\,200)':cb=128:cr=128", "-c:v", "libx264", "-qp", "0",
            "-c:a", "aac", path
        ])
    }

    func numberedLuma(_ n: Int) -> Double { Double(16 + (n * 5) % 200) }

    /// RGB, palette and packed Y'CbCr sources (GIF, QuickTime Animation, x264 RGB, 16-bit RGB, UYVY) are made
    /// planar Y'CbCr before the colour stage. Checked losslessly against a reference made by ffmpeg's accurate
    /// BT.709 conversion and zimg's 4:2:0 (zscale with sdrify's filter, siting and dither). The UYVY source is
    /// tagged BT.709 in Matroska, which keeps the tag, so only its packing changes.
    func testRGBPaletteAndPackedSourcesConvert() throws {
        let pattern = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "0.5"]
        let sources: [(name: String, args: [String], layout: String)] = [
            ("anim.gif", [], "yuv444p"), ("qtrle.mov", ["-c:v", "qtrle"], "yuv444p"),
            ("x264rgb.mp4", ["-c:v", "libx264rgb", "-qp", "0"], "yuv444p"),
            ("rgb48.mkv", ["-c:v", "ffv1", "-pix_fmt", "rgb48le"], "yuv444p16le"),
            ("uyvy.mkv", ["-c:v", "rawvideo", "-pix_fmt", "uyvy422", "-colorspace", "bt709", "-color_range", "tv"], "yuv422p")
        ]
        for (name, args, layout) in sources {
            try ffmpeg(pattern + args + [file(name)])
            _ = try convert(file(name), file("\(name).mp4"), "--crf", "0")
            let ours = try Support.rawFrame(file("\(name).mp4"), index: 2, pixelFormat: "yuv420p")
            let reference = try Support.rawFrame(
                file(name), index: 2, pixelFormat: "yuv420p",
                filter:
                    "scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd+bitexact,format=\(layout),"
                    + "zscale=f=bicubic:param_a=0:param_b=0.5:cin=left:c=left:d=ordered")
            let luma = 160 * 120
            XCTAssertEqual(ours.count, reference.count, name)
            guard ours.count == reference.count else { continue }
            XCTAssertGreaterThan(Support.psnr(Array(ours[..<luma]), Array(reference[..<luma])), 45, "\(name): luma")
            XCTAssertGreaterThan(Support.psnr(Array(ours[luma...]), Array(reference[luma...])), 45, "\(name): chroma")
        }
    }

    func testCRFZeroIsLossless() throws {
        // x264 refuses lossless in the High profile; CRF 0 must switch to High 4:4:4 Predictive, not fail. An SDR
        // source at its own size passes through the pipeline unchanged, so the decoded pictures must be identical.
        try makeNumberedClip(file("n.mp4"), seconds: 1)
        _ = try convert(file("n.mp4"), file("lossless.mp4"), "--crf", "0")
        let video = Support.streams(try Support.ffprobe(file("lossless.mp4")), "video").first ?? [:]
        XCTAssertEqual(video["profile"] as? String, "High 4:4:4 Predictive")
        for index in [0, 17] {
            XCTAssertEqual(
                try Support.rawFrame(file("lossless.mp4"), index: index, pixelFormat: "yuv420p"),
                try Support.rawFrame(file("n.mp4"), index: index, pixelFormat: "yuv420p"), "frame \(index)")
        }
    }

    /// Mean of the Y plane, as stored (no range conversion).
    func meanLuma(_ path: String, index: Int) throws -> Double {
        let yuv = try Support.rawFrame(path, index: index, pixelFormat: "yuv420p")
        let y = yuv.prefix(320 * 240)
        return Double(y.reduce(0) { $0 + Int($1) }) / Double(max(y.count, 1))
    }

    func testStartAndDurationCutFrameAccurately() throws {
        try makeNumberedClip(file("numbered.mp4"))
        let r = try convert(file("numbered.mp4"), file("cut.mp4"), "--start", "1", "--duration", "2", "--crf", "10", "--json")
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["frames"] as? Int, 60)
        let probe = try Support.ffprobe(file("cut.mp4"))
        let v = Support.streams(probe, "video").first ?? [:]
        XCTAssertEqual(double(v["duration"]), 2.0, accuracy: 1.0 / 30, "2.00 s ± 1 frame")
        XCTAssertEqual(double(v["start_time"]), 0, accuracy: 1e-6)
        let a = Support.streams(probe, "audio").first ?? [:]
        XCTAssertEqual(double(a["duration"]), 2.0, accuracy: 0.05, "audio trimmed to match")
        // The first picture is source frame 30 (t = 1.00 s), the last frame 89; neighbours differ by 5 codes.
        XCTAssertEqual(try meanLuma(file("cut.mp4"), index: 0), numberedLuma(30), accuracy: 2)
        XCTAssertEqual(try meanLuma(file("cut.mp4"), index: 59), numberedLuma(89), accuracy: 2)
    }

    func testVariableFrameRateTimestampsFollowTheSource() throws {
        // 10 frames at 30 fps, then 10 at 10 fps.
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "20",
            "-vf", "setpts='if(lt(N\\,10)\\,N/30\\,10/30+(N-10)/10)/TB'", "-fps_mode", "vfr", "-c:v", "libx264", file("vfr.mp4")
        ])
        _ = try convert(file("vfr.mp4"), file("vfr.out.mp4"))
        func times(_ path: String) throws -> [Double] {
            let r = try Support.run(
                Support.tool("ffprobe"),
                [
                    "-v", "error", "-select_streams", "v", "-show_entries",
                    "frame=pts_time", "-of", "csv=p=0", path
                ])
            // ffprobe may end a line with a comma (an empty side-data column): keep the first field.
            return r.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").first?.trimmingCharacters(in: .whitespaces) ?? "") }
        }
        let source = try times(file("vfr.mp4")), output = try times(file("vfr.out.mp4"))
        XCTAssertEqual(source.count, 20)
        XCTAssertEqual(output.count, source.count)
        for (s, o) in zip(source, output) { XCTAssertEqual(o, s, accuracy: 0.002) }
        XCTAssertEqual(output[11] - output[10], 0.1, accuracy: 0.002, "the slow part stays slow")
    }

    func testALateStartIsMovedToZeroKeepingTheAVOffset() throws {
        try ffmpeg(["-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-output_ts_offset", "10", file("late.mp4")])
        let source = try Support.ffprobe(file("late.mp4"))
        let sv = double(Support.streams(source, "video").first?["start_time"]), sa = double(Support.streams(source, "audio").first?["start_time"])
        XCTAssertGreaterThan(sv, 9)
        for preset in ["960x540", "Passthrough"] {
            _ = try convert(file("late.mp4"), file("late-\(preset).mp4"), "--preset", preset)
            let out = try Support.ffprobe(file("late-\(preset).mp4"))
            let ov = double(Support.streams(out, "video").first?["start_time"]), oa = double(Support.streams(out, "audio").first?["start_time"])
            XCTAssertLessThan(min(ov, oa), 0.001, "\(preset): starts at 0")
            XCTAssertEqual(ov - oa, sv - sa, accuracy: 0.01, "\(preset): A/V offset kept")
        }
    }

    /// --threads 1 runs the stages inline on one thread: same frames and the same picture (within what x264's
    /// own thread count changes), with audio and overlays.
    func testSingleThreadedConversionMatchesTheThreadedOne() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=40x30", "-frames:v", "1", file("m.png")])
        var outputs: [String] = []
        for threads in ["1", "0"] {
            let out = file("t\(threads).mp4")
            _ = try convert(Support.vector("hlg_portrait.mov"), out, "--threads", threads, "--crf", "12", "--sticker", "\(file("m.png"))@10,10")
            outputs.append(out)
            let probe = try Support.ffprobe(out)
            XCTAssertEqual(Support.streams(probe, "video").first?["nb_frames"] as? String, "30")
            XCTAssertEqual(Support.streams(probe, "audio").count, 1)
        }
        XCTAssertGreaterThan(Support.psnr(try Support.lumaFrame(outputs[0], index: 15), try Support.lumaFrame(outputs[1], index: 15)), 38)
    }

    func testHEVCPresetWritesTaggedMain() throws {
        _ = try convert(Support.vector("hlg_portrait.mov"), file("hevc.mp4"), "--preset", "HEVC1920x1080")
        let v = Support.streams(try Support.ffprobe(file("hevc.mp4")), "video").first ?? [:]
        XCTAssertEqual(v["codec_name"] as? String, "hevc")
        XCTAssertEqual(v["codec_tag_string"] as? String, "hvc1")
        XCTAssertEqual(v["profile"] as? String, "Main")
        XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p")
        for key in ["color_primaries", "color_transfer", "color_space"] { XCTAssertEqual(v[key] as? String, "bt709", key) }
        XCTAssertEqual(v["width"] as? Int, 360)
        XCTAssertEqual(v["height"] as? Int, 640)
        XCTAssertNil(v["side_data_list"])
    }

    func testPassthroughRemuxesOnlyWhatIsAlreadyRight() throws {
        _ = try convert(Support.vector("sdr_h264_aac.mp4"), file("pass.mp4"), "--preset", "Passthrough")
        func md5(_ path: String) throws -> String {
            try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "md5", "-"]).stdout
        }
        XCTAssertEqual(try md5(file("pass.mp4")), try md5(Support.vector("sdr_h264_aac.mp4")), "video packets copied bit for bit")
        for input in ["hlg_portrait.mov", "orient_6.mp4"] {
            let r = try Support.sdrify(Support.vector(input), file("no.mp4"), "--preset", "Passthrough")
            XCTAssertEqual(r.status, 3, r.stderr)
            XCTAssertTrue(r.stderr.contains("Passthrough only remuxes"), r.stderr)
        }
        let cut = try Support.sdrify(Support.vector("sdr_h264_aac.mp4"), file("no.mp4"), "--preset", "Passthrough", "--start", "0.5")
        XCTAssertEqual(cut.status, 64)
    }

    func testCreationTimeKeptLocationDroppedUnlessAsked() throws {
        try ffmpeg([
            "-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-metadata", "creation_time=2024-05-06T07:08:09Z",
            "-metadata", "location=+48.8577+002.2950/", file("tagged.mov")
        ])
        _ = try convert(file("tagged.mov"), file("plain.mp4"))
        _ = try convert(file("tagged.mov"), file("located.mov"), "--keep-location")
        func tags(_ path: String) throws -> [String: Any] {
            (try Support.ffprobe(path)["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]
        }
        XCTAssertEqual((try tags(file("plain.mp4"))["creation_time"] as? String)?.prefix(19), "2024-05-06T07:08:09")
        XCTAssertNil(try tags(file("plain.mp4"))["location"], "GPS dropped by default")
        XCTAssertNotNil(try tags(file("located.mov"))["location"], "kept with --keep-location")
        XCTAssertEqual(
            try Support.ffprobe(file("located.mov"))["format"].flatMap { ($0 as? [String: Any])?["format_name"] as? String }?.contains("mov"), true)
    }

    /// `--metadata keep`: the phone's own keys (make, model, software, location, Apple's and Android's) come through
    /// as the keys they were, in MP4 and MOV; the container's bookkeeping does not; the default keeps only the
    /// creation time; an unknown policy is a usage error.
    func testMetadataKeepCarriesThePhonesKeys() throws {
        let keys = [
            "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 14 Pro", "com.apple.quicktime.software": "16.4.1",
            "com.apple.quicktime.location.ISO6709": "+51.5334-000.1255+026.756/", "com.android.version": "14"
        ]
        try ffmpeg(
            ["-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-metadata", "creation_time=2024-05-06T07:08:09Z"]
                + keys.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
                + ["-movflags", "use_metadata_tags", file("phone.mov")])
        func tags(_ path: String) throws -> [String: String] {
            ((try Support.ffprobe(path)["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        }
        XCTAssertEqual(try tags(file("phone.mov"))["com.apple.quicktime.make"], "Apple", "the vector carries the keys")
        for name in ["kept.mp4", "kept.mov"] {
            let r = try Support.sdrify(file("phone.mov"), file(name), "--metadata", "keep")
            XCTAssertEqual(r.status, 0, r.stderr)
            let got = try tags(file(name))
            for (key, value) in keys { XCTAssertEqual(got[key], value, "\(name): \(key)") }
            XCTAssertEqual(got["creation_time"]?.prefix(19), "2024-05-06T07:08:09")
        }
        _ = try convert(file("phone.mov"), file("minimal.mp4"))
        let minimal = try tags(file("minimal.mp4"))
        XCTAssertEqual(minimal["creation_time"]?.prefix(19), "2024-05-06T07:08:09")
        for key in keys.keys { XCTAssertNil(minimal[key], "\(key) dropped by default") }
        let bad = try Support.sdrify(file("phone.mov"), file("bad.mp4"), "--metadata", "all")
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'all'"), bad.stderr)
    }

    /// `--max-bitrate` caps the video (x264 and x265, convert and compose): no second of it holds more than the rate
    /// plus the two seconds of buffer the VBV allows, where the same conversion uncapped takes far more; bad rates
    /// are usage errors naming the value.
    func testMaxBitRateCapsTheVideo() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3,noise=alls=30:allf=t", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
            file("noisy.mp4")
        ])
        /// The most bits any one-second window of the output's video holds.
        func peak(_ path: String) throws -> Int {
            let r = try Support.run(
                Support.tool("ffprobe"), ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,size", "-of", "csv=p=0", path])
            let packets = r.stdout.split(whereSeparator: \.isNewline).compactMap { line -> (Double, Int)? in
                let f = line.split(separator: ",")
                return f.count == 2 ? Double(f[0]).flatMap { t in Int(f[1]).map { (t, $0) } } : nil
            }
            return stride(from: 0.0, to: 2.0, by: 0.1).map { x in packets.filter { $0.0 >= x && $0.0 < x + 1 }.reduce(0) { $0 + $1.1 * 8 } }.max()
                ?? 0
        }
        _ = try convert(file("noisy.mp4"), file("free.mp4"), "--crf", "18")
        XCTAssertGreaterThan(try peak(file("free.mp4")), 3_000_000, "uncapped, this picture takes megabits a second")
        for preset in ["1920x1080", "HEVC1920x1080"] {
            _ = try convert(file("noisy.mp4"), file("\(preset).mp4"), "--crf", "18", "--max-bitrate", "300k", "--preset", preset)
            XCTAssertLessThanOrEqual(try peak(file("\(preset).mp4")), 300_000 + 600_000, preset)
        }
        let c = try Support.sdrify("compose", file("noisy.mp4"), "-o", file("composed.mp4"), "--crf", "18", "--max-bitrate", "0.3M")
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertLessThanOrEqual(try peak(file("composed.mp4")), 900_000)
        for bad in ["0", "abc", "40k", "2G", "-1M"] {
            let r = try Support.sdrify(file("noisy.mp4"), file("bad.mp4"), "--max-bitrate", bad)
            XCTAssertEqual(r.status, 64, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("'\(bad)'"), r.stderr)
        }
        XCTAssertEqual(try Support.sdrify(file("noisy.mp4"), file("p.mp4"), "--preset", "Passthrough", "--max-bitrate", "4M").status, 64)
    }

    func testPresetsTableListsEveryPreset() throws {
        let r = try Support.sdrify("presets", "--json")
        let rows = try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]] ?? []
        let names = Set(rows.compactMap { $0["name"] as? String })
        XCTAssertEqual(
            names,
            [
                "640x480", "960x540", "1280x720", "1920x1080", "3840x2160", "HEVC1920x1080", "HEVC3840x2160",
                "LowQuality", "MediumQuality", "HighestQuality", "Passthrough"
            ])
        XCTAssertEqual(rows.first { $0["name"] as? String == "HEVC1920x1080" }?["video_codec"] as? String, "hevc")
    }
}
