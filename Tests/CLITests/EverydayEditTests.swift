import Foundation
import XCTest

/// The edits people make on their first day (a trim to the end, a flip, a variable-rate phone clip), each once a
/// defect found on real footage; ffmpeg's own result on the same file is the oracle for lengths and counts.
final class EverydayEditTests: CLITestCase {
    /// A 6 s clip with a keyframe every second and sound, as phones and action cameras write them.
    private func longGOPClip() throws -> String {
        try sharedFile("long-gop-6s", "gop.mp4") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000",
                "-t", "6", "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path
            ])
        }
    }

    private func videoFrames(_ path: String) throws -> (count: Int, duration: Double) {
        let r = try Support.run(
            Support.tool("ffprobe"),
            ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames,duration", "-of", "csv=p=0", path])
        let f = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (Int(f.count > 1 ? f[1] : "") ?? -1, Double(f.first ?? "") ?? -1)
    }

    /// A start inside the clip, to its end: the samples before the seek's keyframe were never meant to be read.
    /// (It was "damaged sample table: only 90 of the 180 video samples could be read", exit 2.)
    func testStartToTheEndReadsOnlyWhatFollowsTheSeek() throws {
        let clip = try longGOPClip()
        let out = file("out.mp4")
        let r = try Support.sdrify(clip, out, "--start", "2.5", "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "no warning on a valid file")
        // ffmpeg's trim keeps the pictures from 2.5 s on: 105 of them, 3.5 s.
        let oracle = file("oracle.mp4")
        try ffmpeg(["-i", clip, "-vf", "trim=start=2.5,setpts=PTS-STARTPTS", "-an", oracle])
        let (count, duration) = try videoFrames(out)
        XCTAssertEqual(count, try videoFrames(oracle).count)
        XCTAssertEqual(duration, 3.5, accuracy: 0.002)
        // The first picture is the source's picture at 2.5 s (the 76th), as the whole clip's conversion shows it.
        let whole = file("whole.mp4")
        XCTAssertEqual(try Support.sdrify(clip, whole, "-q").status, 0)
        let first = try Support.lumaFrame(out, index: 0)
        let atStart = Support.psnr(first, try Support.lumaFrame(whole, index: 75))
        XCTAssertGreaterThan(atStart, 35)
        for neighbour in [74, 76] { XCTAssertLessThan(Support.psnr(first, try Support.lumaFrame(whole, index: neighbour)), atStart - 10) }

        // The same for a compose clip's "from" without "to", and hls --start.
        let timeline = file("edit.json")
        try Data(#"{"clips": [{"file": "\#(clip)", "from": 2.5}]}"#.utf8).write(to: URL(fileURLWithPath: timeline))
        let composed = try Support.sdrify("compose", "--timeline", timeline, "-o", file("composed.mp4"))
        XCTAssertEqual(composed.status, 0, composed.stderr)
        XCTAssertEqual(try videoFrames(file("composed.mp4")).count, count)
        let hls = try Support.sdrify("hls", clip, file("ladder"), "--start", "2.5", "--ladder", "240", "-q")
        XCTAssertEqual(hls.status, 0, hls.stderr)
    }

    /// A start at or past the end: the range is empty, said as the request's fault, and no output is left.
    func testStartPastTheEndSaysTheRangeIsEmpty() throws {
        let clip = try longGOPClip()
        for start in ["6", "30"] {
            let r = try Support.sdrify(clip, file("out.mp4"), "--start", start)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("past the end of the video (6.000 s): the range is empty"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.mp4")))
        }
    }

    /// A variable-rate clip with B-frames (a Live Photo's movie): a packet's duration is its decoding step, not how
    /// long its picture shows, so the last picture lasted one tick and the video ended early. It lasts until the
    /// track's end now, as in the source.
    func testTheLastPictureOfAVariableRateClipKeepsItsDuration() throws {
        let clip = file("vfr.mov")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3", "-vf", "select='not(eq(mod(n\\,5)\\,2))'",
            "-fps_mode", "vfr", "-video_track_timescale", "600", "-c:v", "libx264", "-pix_fmt", "yuv420p", clip
        ])
        let (sourceCount, sourceDuration) = try videoFrames(clip)
        let out = file("out.mp4")
        let r = try Support.sdrify(clip, out)
        XCTAssertEqual(r.status, 0, r.stderr)
        let (count, duration) = try videoFrames(out)
        XCTAssertEqual(count, sourceCount)
        XCTAssertEqual(duration, sourceDuration, accuracy: 0.002)
        // The same clip cut before its end: the last picture lasts to the cut.
        let cut = try Support.sdrify(clip, file("cut.mp4"), "--duration", "2")
        XCTAssertEqual(cut.status, 0, cut.stderr)
        XCTAssertEqual(try videoFrames(file("cut.mp4")).duration, 2, accuracy: 0.002)
    }

    /// PSNR (average over R, G and B) of `a` against `b` through `filter`, both read as RGB by zimg with their chroma
    /// siting as tagged.
    private func rgbPSNR(_ a: String, _ b: String, filter: String) throws -> Double {
        let rgb = "zscale=f=spline36,format=gbrp"
        let r = try Support.run(
            Support.tool("ffmpeg"), ["-i", a, "-i", b, "-lavfi", "[0]\(rgb)[a];[1]\(rgb),\(filter)[b];[a][b]psnr", "-f", "null", "-"])
        guard let range = r.stderr.range(of: #"average:[0-9.]+"#, options: .regularExpression) else {
            XCTFail(r.stderr)
            return 0
        }
        return Double(r.stderr[range].dropFirst("average:".count)) ?? 0
    }

    /// A horizontal mirror of a 4:2:0 picture keeps chroma where it belongs: sited on the left of its block once
    /// upright, as tagged (it was half a luma pixel off: 26.9 dB against the mirrored conversion, where a quarter
    /// turn, exact, gives 32.8).
    func testMirroringKeepsTheColourInPlace() throws {
        let clip = file("colour.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", clip
        ])
        let plain = file("plain.mp4")
        XCTAssertEqual(try Support.sdrify(clip, plain).status, 0)
        let turned = try Support.sdrify(clip, file("turned.mp4"), "--rotate", "90")
        XCTAssertEqual(turned.status, 0, turned.stderr)
        let exact = try rgbPSNR(file("turned.mp4"), plain, filter: "transpose=1")
        for (option, value, filter) in [("--flip", "h", "hflip"), ("--rotate", "180", "hflip,vflip")] {
            let out = file("\(value).mp4")
            let r = try Support.sdrify(clip, out, option, value)
            XCTAssertEqual(r.status, 0, r.stderr)
            let mirrored = try rgbPSNR(out, plain, filter: filter)
            XCTAssertGreaterThan(mirrored, exact - 1, "\(option) \(value): \(mirrored) dB, a quarter turn \(exact) dB")
        }
    }

    /// An SDR clip tagged Display P3 (iPhone clips and Live Photo movies) is converted into BT.709's gamut, as ffmpeg's
    /// zscale converts it, not shown as if its primaries were BT.709's (it was, as photos were not).
    func testWideGamutSDRVideoIsConvertedIntoBT709() throws {
        let rgb = "zscale=p=709:t=709:m=709,format=rgb24,crop=8:8:100:100,scale=1:1"
        func mean(_ path: String, _ chain: String = rgb) throws -> [Int] {
            let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-vf", "select=eq(n\\,0),\(chain)", "-f", "rawvideo", "-"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdoutData.map { Int($0) }
        }
        for colour in ["0x9A6A50", "0x40A060"] {  // a warm beige, a green: inside BT.709 once converted
            let clip = file("p3.mov")
            try ffmpeg([
                "-f", "lavfi", "-i", "color=c=\(colour):size=320x240:rate=30,format=gbrp", "-t", "0.5", "-vf",
                "zscale=m=709:r=tv:p=709:t=709:min=709:pin=709:tin=709:rin=full,format=yuv420p", "-c:v", "libx264",
                "-color_primaries", "smpte432", "-color_trc", "bt709", "-colorspace", "bt709", clip
            ])
            let out = file("out.mp4")
            let r = try Support.sdrify(clip, out, "-y", "-q")
            XCTAssertEqual(r.status, 0, r.stderr)
            let ours = try mean(out), oracle = try mean(clip),
                asIf709 = try mean(clip, "zscale=p=709:pin=709:t=709:m=709,format=rgb24,crop=8:8:100:100,scale=1:1")
            XCTAssertEqual(ours.count, 3)
            for c in 0..<3 { XCTAssertEqual(Double(ours[c]), Double(oracle[c]), accuracy: 2, "\(colour): ours \(ours), ffmpeg's \(oracle)") }
            XCTAssertGreaterThan(zip(asIf709, oracle).map { abs($0 - $1) }.max() ?? 0, 5, "the colour tells the two apart")
        }
    }

    /// A composition runs at the rate its first clip was recorded at, not at that clip's average: a 29.97 fps phone
    /// clip that dropped pictures (averaging 16.7 fps here) gives 29.97 fps, not a resampled 16.7.
    func testComposeTakesTheRecordedRateNotTheAverage() throws {
        let clip = file("dropped.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30000/1001", "-t", "4", "-vf",
            "select='not(eq(mod(n\\,4)\\,1))*not(between(n\\,40\\,70))'", "-fps_mode", "vfr", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", clip
        ])
        let out = file("out.mp4")
        let r = try Support.sdrify("compose", clip, "-o", out, "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        let video = Support.streams(try Support.ffprobe(out), "video").first
        XCTAssertEqual(video?["r_frame_rate"] as? String, "30000/1001")
        XCTAssertEqual(video?["avg_frame_rate"] as? String, "30000/1001")

        // A single-valued option given twice with different values is refused, not last-wins.
        let twice = try Support.sdrify("compose", clip, clip, "-o", out, "--transition", "fade", "--transition", "wipe", "-y")
        XCTAssertEqual(twice.status, 64)
        XCTAssertEqual(twice.stderr, "sdrify: --transition is given twice ('fade', then 'wipe'): give it once\n")
    }

    /// A photo given to convert says what it is and what makes a video of it (a HEIC was "not a readable media
    /// file", a JPEG "a still image"): exit 3, the input is valid but no video.
    func testAPhotoGivenToConvertSaysWhatToDo() throws {
        var photos = [file("still.png")]
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", photos[0]])
        if RealMediaTests.present() {
            photos += ["applephoto2uhdr_IMG_3853.HEIC", "mishaal_Ultra_HDR_Samples_Originals_05.jpg"].map {
                RealMediaTests.folder.appendingPathComponent($0).path
            }
        }
        for photo in photos {
            for (command, output) in [([String](), "out.mp4"), (["hls"], "ladder")] {
                let r = try Support.sdrify(command + [photo, file(output)])
                XCTAssertEqual(r.status, 3, r.stderr)
                XCTAssertTrue(r.stderr.contains("a photo ("), r.stderr)
                XCTAssertTrue(r.stderr.contains("not a video: to make a video of it, sdrify compose \(photo) -o OUT.mp4"), r.stderr)
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            }
        }
    }

    /// A QuickTime reference movie (its video in another file, named by an alias record): convert names the cause and
    /// the file, probe warns of it (they said "damaged sample table: only 0 of the 30 video samples", and nothing).
    func testAReferenceMovieNamesWhereItsVideoIs() throws {
        let source = file("source.mov"), reference = file("reference.mov")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", source])
        let made = try Support.run(
            "/usr/bin/python3", [Support.packageRoot.appendingPathComponent("scripts/make-reference-movie.py").path, source, reference])
        XCTAssertEqual(made.status, 0, made.stderr)
        let r = try Support.sdrify(reference, file("out.mp4"))
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("a reference movie: its video samples are in other files ('/Volumes/Media/Capture Scratch/clip.mov')"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.mp4")))
        let probe = try Support.sdrify("probe", reference)
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertTrue(probe.stderr.contains("warning: \(reference): a reference movie"), probe.stderr)
        // A self-contained movie says nothing of the kind.
        XCTAssertFalse(try Support.sdrify("probe", source).stderr.contains("reference movie"))
    }

    /// An output named without an extension says so (it said "unsupported output extension '.'").
    func testAnOutputWithoutAnExtensionSaysSo() throws {
        let r = try Support.sdrify(Support.vector("sdr_h264_aac.mp4"), file("out"))
        XCTAssertEqual(r.status, 64)
        XCTAssertEqual(r.stderr, "sdrify: \(file("out")): the output has no extension (use .mp4, .m4v, .mov)\n")
    }

    /// A contact sheet is as wide as asked (3 columns at --width 1200 made 1196) and its JSON's size is the sheet's,
    /// the tile's as its own fields; sprites' last cue ends with the video and the last sprite has no empty tile
    /// where a grid that fits allows.
    func testSheetWidthAndTheLastSprite() throws {
        let clip = try longGOPClip()
        let sheet = file("sheet.jpg")
        let r = try Support.sdrify("sheet", clip, sheet, "--width", "1200", "--grid", "3x3", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let image = Support.streams(try Support.ffprobe(sheet), "video").first ?? [:]
        XCTAssertEqual(image["width"] as? Int, 1200)
        XCTAssertEqual(report["width"] as? Int, 1200)
        XCTAssertEqual(report["height"] as? Int, image["height"] as? Int)
        XCTAssertEqual(report["tile_width"] as? Int, 320)

        let sprites = file("sprites")
        let s = try Support.sdrify("sprites", clip, sprites, "--every", "1", "--tile", "4x4", "-q")
        XCTAssertEqual(s.status, 0, s.stderr)
        let vtt = try String(contentsOfFile: sprites + "/thumbnails.vtt", encoding: .utf8)
        XCTAssertTrue(vtt.contains("00:00:05.000 --> 00:00:06.000"), vtt)  // the last of 6 tiles ends at 6 s
        XCTAssertFalse(vtt.contains("--> 00:00:07"), vtt)
        let sprite = Support.streams(try Support.ffprobe(sprites + "/sprite-1.jpg"), "video").first ?? [:]
        XCTAssertEqual(sprite["width"] as? Int, 3 * 120)  // 6 tiles as 3×2, not 4×2 with two black
        XCTAssertEqual(sprite["height"] as? Int, 2 * 90)
    }

    /// A long caption to SCC after a short one: its load is sent around the short one's erase, so it starts as late as
    /// the 608 rate makes it (0.23 s), not 2.17 s (the load waited for the erase).
    func testALongSCCCaptionLoadsAroundThePreviousErase() throws {
        let srt = file("long.srt"), scc = file("long.scc"), back = file("back.srt")
        try Data(
            """
            1
            00:00:03,000 --> 00:00:05,000
            Hello there

            2
            00:00:05,500 --> 00:00:09,000
            This is a much longer caption
            and here is the second line
            third line of the caption text
            fourth and last line of this one

            """.utf8
        ).write(to: URL(fileURLWithPath: srt))
        let r = try Support.sdrify("captions", srt, scc, "--fix")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Support.sdrify("captions", scc, back).status, 0)
        let cues = try String(contentsOfFile: back, encoding: .utf8).components(separatedBy: "\n\n")
        XCTAssertEqual(cues.count, 2, "\(cues)")
        let second = cues.count > 1 ? cues[1] : ""
        // 608 loads two bytes a frame: the 4 rows need about 2.5 s after the first caption shows at 3 s.
        let start = second.split(separator: "\n").dropFirst().first.map { String($0.prefix(12)) } ?? ""
        let seconds = (Double(start.dropFirst(6).prefix(2)) ?? 0) + (Double(start.dropFirst(9).prefix(3)) ?? 0) / 1000
        XCTAssertGreaterThanOrEqual(seconds, 5.5, start)
        XCTAssertLessThan(seconds, 5.9, "\(start): \(r.stderr)")
    }

    /// A fast-start file cut right after its media data's header, with --tolerate-errors: one line, the error (it
    /// warned "converting what it holds" and then failed).
    func testAFileCutBeforeItsFirstSampleIsOneLine() throws {
        let faststart = file("faststart.mp4")
        try ffmpeg(["-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-movflags", "+faststart", faststart])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: faststart))
        let mdat = bytes.range(of: Data("mdat".utf8))!
        try bytes[..<mdat.upperBound].write(to: URL(fileURLWithPath: file("cut.mp4")))
        for tolerate in [[], ["--tolerate-errors"]] {
            let r = try Support.sdrify([file("cut.mp4"), file("out.mp4")] + tolerate)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("truncated"), r.stderr)
        }
    }

    /// Runs `command` in a shell (for pipes and FIFOs), with a time limit: a stream that is never read would hang.
    private func shell(_ command: String) throws -> Support.Result {
        try Support.run("/usr/bin/timeout", ["120", "/bin/sh", "-c", command], in: dir)
    }

    /// Pipelines hand over streams: `-` (stdin) and a FIFO are read (it hung on a FIFO until killed; `-` was "No such
    /// file"), an MP4 with its movie box at the end too, MPEG-TS and Matroska; what is no media stream is refused at
    /// once, even one that never ends; messages and the report name the input as given.
    func testStreamsFromPipesAndFIFOs() throws {
        let clip = try longGOPClip()
        let sdrify = Support.binary.path
        // An MP4 as ffmpeg writes it (movie box last), through stdin: the whole video, named "-".
        let piped = try shell("cat '\(clip)' | '\(sdrify)' - piped.mp4 --json")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let report = try JSONSerialization.jsonObject(with: piped.stdoutData) as? [String: Any]
        XCTAssertEqual(report?["input"] as? String, "-")
        XCTAssertFalse(piped.stdout.contains("/proc/self/fd"), piped.stdout)
        XCTAssertEqual(try videoFrames(file("piped.mp4")).count, 180)
        // A FIFO.
        XCTAssertEqual(mkfifo(file("fifo"), 0o600), 0)
        let fifo = try shell("cat '\(clip)' > fifo & '\(sdrify)' fifo fifo.mp4 -q")
        XCTAssertEqual(fifo.status, 0, fifo.stderr)
        XCTAssertEqual(try videoFrames(file("fifo.mp4")).count, 180)
        // MPEG-TS and Matroska on stdin.
        for format in ["mpegts", "matroska"] {
            let r = try shell("ffmpeg -v error -i '\(clip)' -c copy -f \(format) - | '\(sdrify)' - \(format).mp4 -q")
            XCTAssertEqual(r.status, 0, "\(format): \(r.stderr)")
            XCTAssertEqual(try videoFrames(file("\(format).mp4")).count, 180, format)
        }
        // probe of a stream names it as given.
        let probe = try shell("cat '\(clip)' | '\(sdrify)' probe -")
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertTrue(probe.stdout.hasPrefix("-: mov,mp4"), probe.stdout)
        // No media: refused at once, even a stream without end; an empty one says so.
        let noise = try shell("cat /dev/urandom | '\(sdrify)' - noise.mp4")
        XCTAssertEqual(noise.status, 2, noise.stderr)
        XCTAssertEqual(noise.stderr, "sdrify: -: not a media stream (its first bytes begin no format sdrify reads)\n")
        let empty = try shell("'\(sdrify)' - empty.mp4 < /dev/null")
        XCTAssertEqual(empty.status, 2, empty.stderr)
        XCTAssertEqual(empty.stderr, "sdrify: -: the stream is empty\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("noise.mp4")))
    }

    /// A start in an MPEG-TS whose only keyframe is its first picture: the seek (by time, no index) lands past it, so
    /// the stream is read from its start (every start failed: "no video frames in the requested range").
    func testAStartInAnMPEGTSWithOneKeyframe() throws {
        let ts = file("one-keyframe.ts")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-g", "300", "-bf", "2", "-pix_fmt",
            "yuv420p", "-f", "mpegts", ts
        ])
        for (start, pictures) in [("0.1", 87), ("1.2", 54), ("2.5", 15)] {
            let r = try Support.sdrify(ts, file("out.mp4"), "--start", start, "-y", "-q")
            XCTAssertEqual(r.status, 0, "\(start): \(r.stderr)")
            XCTAssertEqual(r.stderr, "", start)
            XCTAssertEqual(try videoFrames(file("out.mp4")).count, pictures, start)
        }
    }

    /// A thumbnail's time is the video's as it plays: a slow-motion capture flattened is shorter than its file, and the
    /// render is cut in the file's own time (--at 0.9 of Samsung's capture, 0.99 s as played, said the time was past
    /// the end of a 0.40 s output).
    func testAThumbnailOfASlowMotionCaptureIsAtItsPlayedTime() throws {
        guard RealMediaTests.present() else { return }
        let capture = RealMediaTests.folder.appendingPathComponent("androidx_sample_sef_slow_motion.mp4").path
        let whole = file("whole.mp4")
        XCTAssertEqual(try Support.sdrify(capture, whole, "-q").status, 0)
        XCTAssertLessThan(try videoFrames(whole).duration, 1.2, "played flattened")
        let r = try Support.sdrify("thumbnail", capture, file("t.png"), "--at", "0.9", "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        // The picture shown at 0.9 s of the conversion.
        let times = try Support.run(
            Support.tool("ffprobe"), ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", whole]
        ).stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        XCTAssertGreaterThan(times.count, 20)
        let index = times.lastIndex { $0 <= 0.9 } ?? 0
        let thumb = try Support.lumaFrame(file("t.png"), index: 0), shown = try Support.lumaFrame(whole, index: index)
        XCTAssertGreaterThan(Support.psnr(thumb, shown), 30)
    }

    /// A start in an open-GOP H.264 stream (broadcast and camcorder encoders): the decoder, read from a keyframe, is
    /// told to drop a reference it never had ("mmco: unref short failure", as ffmpeg -ss says too), which is no
    /// damage (it refused the file, exit 2).
    func testAStartInAnOpenGOPStream() throws {
        let clip = file("open-gop.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "4", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-x264-params",
            "open-gop=1:keyint=25:bframes=3", clip
        ])
        let r = try Support.sdrify(clip, file("out.mp4"), "--start", "1.5", "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(try videoFrames(file("out.mp4")).count, 63)  // 2.5 s at 25 fps, as ffmpeg's trim
    }

    /// HLS from an MPEG-TS capture: its ADTS AAC has no AudioSpecificConfig for a fragmented MP4 to copy, so the audio
    /// rendition is transcoded (it failed: "audio_init.mp4: writing: Operation not permitted", exit 4).
    func testHLSFromAnMPEGTS() throws {
        let ts = file("capture.ts")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000", "-t", "3", "-c:v",
            "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-f", "mpegts", ts
        ])
        let ladder = file("ladder")
        let r = try Support.sdrify("hls", ts, ladder, "--ladder", "240", "--start", "1", "-q")
        XCTAssertEqual(r.status, 0, r.stderr)
        let read = try Support.run(
            Support.tool("ffprobe"), ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", ladder + "/master.m3u8"])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stderr, "")
        XCTAssertTrue(read.stdout.contains("audio") && read.stdout.contains("video"), read.stdout)
    }

    /// A range of a variable-rate clip is rounded by its pictures' own spacing, not by the average rate: a clip that
    /// paused (as Android's slow-motion sample does: one picture, then 0.3 s later thirty a second) averages far fewer
    /// pictures a second, whose half interval took in the picture before a start and left out the one before an end.
    /// ffmpeg's trim is the oracle.
    func testARangeOfAVariableRateClipIsRoundedByItsOwnPictures() throws {
        let clip = file("pause.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2", "-vf", "select='not(between(n\\,1\\,44))'", "-fps_mode", "vfr",
            "-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", clip
        ])
        // Pictures at 0, then 1.5 s, 1.533 s, … (8 a second on average): a start and an end on some of them (it
        // kept 13, 9 and 11 pictures where ffmpeg keeps 12, 10 and 12).
        for (args, trim) in [
            (["--start", "1.6"], "trim=start=1.6"), (["--end", "1.8"], "trim=end=1.8"), (["--start", "1.5", "--end", "1.9"], "trim=start=1.5:end=1.9")
        ] {
            let out = file("out.mp4"), oracle = file("oracle.mp4")
            let r = try Support.sdrify([clip, out, "-y", "-q"] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            try ffmpeg(["-i", clip, "-vf", trim + ",setpts=PTS-STARTPTS", "-fps_mode", "passthrough", oracle])
            XCTAssertEqual(try videoFrames(out).count, try videoFrames(oracle).count, "\(args)")
        }
    }
}
