import Foundation
import XCTest

/// `--speed`, a clip's `"speed"` and phone slow motion (`--slow-motion`), end to end: the pictures' times, the
/// sound's pitch and length, the real Samsung and Android slow-motion files, damage and bad values.
final class SpeedAndSlowMotionTests: CLITestCase {
    static let sef = RealMediaTests.folder.appendingPathComponent("androidx_sample_sef_slow_motion.mp4").path
    static let android = RealMediaTests.folder.appendingPathComponent("androidx_sample_android_slow_motion.mp4").path

    func sdrify(_ args: String..., status: Int32 = 0) throws -> Support.Result {
        let r = try Support.sdrify(args)
        XCTAssertEqual(r.status, status, r.stderr)
        return r
    }

    /// A 320x240 clip with a 1 kHz tone, `seconds` long.
    func toneClip(_ name: String, seconds: Int = 4) throws -> String {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=\(seconds)", "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", file(name)
        ])
        return file(name)
    }

    /// The first audio track, mono float.
    func samples(_ path: String) throws -> [Float] {
        let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The strongest frequency from 200 to 4000 Hz (2 Hz steps) of half a second from the middle (a Hann window).
    /// Found near where the strongest 20 Hz step of its middle 50 ms is (a tone there is within 10 Hz of a step, so
    /// within 30 Hz of it), then in 2 Hz steps: the whole 2 Hz grid was 45 million sines and cosines a call, most of
    /// what this test's CPU went to in the debug build.
    func spectralPeak(_ s: [Float]) -> Double {
        let n = 24_000, from = max(0, s.count / 2 - n / 2)
        guard s.count >= n else { return 0 }
        func windowed(_ length: Int) -> [Double] {
            let start = from + (n - length) / 2
            return (0..<length).map { (i: Int) -> Double in Double(s[start + i]) * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(length))) }
        }
        func strongest(_ w: [Double], _ grid: StrideThrough<Double>) -> Double {
            var best = (hz: 0.0, power: 0.0)
            for hz in grid {
                let step = 2 * Double.pi * hz / 48_000
                var re = 0.0, im = 0.0
                for i in 0..<w.count { re += w[i] * cos(step * Double(i)); im += w[i] * sin(step * Double(i)) }
                if re * re + im * im > best.power { best = (hz, re * re + im * im) }
            }
            return best.hz
        }
        let near = strongest(windowed(n / 10), stride(from: 200.0, through: 4000, by: 20))
        return strongest(windowed(n), stride(from: max(200, near - 30), through: min(4000, near + 30), by: 2))
    }

    func duration(_ path: String, _ type: String) throws -> Double {
        Double(Support.streams(try Support.ffprobe(path), type).first?["duration"] as? String ?? "") ?? -1
    }

    func frameTimes(_ path: String) throws -> [Double] {
        let r = try Support.run(
            Support.tool("ffprobe"), ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
    }

    /// Twice as fast: half as long, the tone still 1 kHz (±2 %); a quarter as fast at a constant 30 fps: four
    /// times as long, 1 kHz; muted: no sound at all.
    func testSpeedKeepsThePitch() throws {
        let tone = try toneClip("tone.mp4")
        _ = try sdrify(tone, file("fast.mp4"), "--speed", "2")
        XCTAssertEqual(try duration(file("fast.mp4"), "video"), 2, accuracy: 0.04)
        XCTAssertEqual(try duration(file("fast.mp4"), "audio"), 2, accuracy: 0.06)
        XCTAssertEqual(spectralPeak(try samples(file("fast.mp4"))), 1000, accuracy: 20)
        _ = try sdrify(tone, file("slow.mp4"), "--speed", "0.25", "--fps", "30")
        XCTAssertEqual(try duration(file("slow.mp4"), "video"), 16, accuracy: 0.05)
        XCTAssertEqual(try duration(file("slow.mp4"), "audio"), 16, accuracy: 0.1)
        XCTAssertEqual(spectralPeak(try samples(file("slow.mp4"))), 1000, accuracy: 20)
        let slowFrames = try frameTimes(file("slow.mp4"))
        XCTAssertEqual(slowFrames.count, 480, "30 fps of a 16-second output")
        _ = try sdrify(tone, file("mute.mp4"), "--speed", "1.5", "--speed-audio", "mute")
        XCTAssertTrue(Support.streams(try Support.ffprobe(file("mute.mp4")), "audio").isEmpty)
        XCTAssertEqual(try duration(file("mute.mp4"), "video"), 4 / 1.5, accuracy: 0.04)
        // Sound alone (a song becomes a video of the background) is sped up the same way.
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=1000:r=48000:d=4", "-c:a", "aac", file("song.m4a")])
        _ = try sdrify(file("song.m4a"), file("song.mp4"), "--speed", "2")
        XCTAssertEqual(try duration(file("song.mp4"), "video"), 2, accuracy: 0.05)
        XCTAssertEqual(spectralPeak(try samples(file("song.mp4"))), 1000, accuracy: 20)
    }

    /// A start and a duration are the input's own times; the speed retimes what they select. Captions given in
    /// the input's time follow the pictures.
    func testCutThenSpeed() throws {
        let tone = try toneClip("tone.mp4")
        try "1\n00:00:02,000 --> 00:00:03,000\nhello\n".write(toFile: file("c.srt"), atomically: true, encoding: .utf8)
        _ = try sdrify(tone, file("cut.mp4"), "--start", "1", "--duration", "2", "--speed", "2", "--subtitles", file("c.srt"))
        XCTAssertEqual(try duration(file("cut.mp4"), "video"), 1, accuracy: 0.04)
        let cues = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("cut.mp4"), "-map", "0:s:0", "-f", "srt", "-"])
        XCTAssertTrue(cues.stdout.contains("00:00:00,500 --> 00:00:01,000"), "the cue at input 2–3 s shows at 0.5–1 s: \(cues.stdout)")
    }

    func testBadSpeedsAreUsageErrors() throws {
        let tone = try toneClip("tone.mp4", seconds: 1)
        for bad in ["0", "10", "-1", "abc", "0.2"] {
            let r = try sdrify(tone, file("x.mp4"), "--speed", bad, status: 64)
            XCTAssertTrue(r.stderr.contains("speed"), r.stderr)
        }
        XCTAssertEqual(try sdrify(tone, file("x.mp4"), "--speed-audio", "loud", status: 64).status, 64)
        XCTAssertEqual(try sdrify(tone, file("x.mp4"), "--slow-motion", "maybe", status: 64).status, 64)
        let edit = #"{"clips": [{"file": "\#(tone)", "speed": 10}]}"#
        try edit.write(toFile: file("e.json"), atomically: true, encoding: .utf8)
        let r = try sdrify("compose", "--timeline", file("e.json"), "--output", file("e.mp4"), status: 64)
        XCTAssertTrue(r.stderr.contains("speed"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("e.mp4")))
    }

    /// A clip's `"speed"` in a composition: it shows for its length divided by the speed, its sound stretched
    /// with the pitch kept, the next clip after it.
    func testComposeClipSpeed() throws {
        let tone = try toneClip("tone.mp4", seconds: 2)
        let edit = ##"{"clips": [{"file": "\##(tone)", "speed": 0.5}, {"color": "#808080", "duration": 1}]}"##
        try edit.write(toFile: file("e.json"), atomically: true, encoding: .utf8)
        let r = try sdrify("compose", "--timeline", file("e.json"), "--output", file("e.mp4"), "--json")
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["duration"] as? Double ?? 0, 5, accuracy: 0.05)
        let s = try samples(file("e.mp4"))
        XCTAssertEqual(spectralPeak(Array(s.prefix(4 * 48_000))), 1000, accuracy: 20)
        let loud = s[(2 * 48_000)..<(3 * 48_000)].map { Double($0 * $0) }.reduce(0, +) / 48_000
        let quiet = s[(4 * 48_000 + 2400)..<(5 * 48_000 - 2400)].map { Double($0 * $0) }.reduce(0, +) / 43_200
        XCTAssertGreaterThan(loud, 1e-3, "the slowed tone sounds through its 4 seconds")
        XCTAssertLessThan(quiet, 1e-6, "the colour clip after it is silent")
    }

    /// The Samsung file (240 fps capture, segments 88–879 ms slowed 2× and 1255–1970 ms slowed 8×): probe says
    /// so; convert plays it as the gallery does. Every output picture is a source picture (same content), in
    /// order, none repeated, at the time the map gives (within a frame); the sound follows the same map.
    func testSamsungSlowMotionIsFlattened() throws {
        guard RealMediaTests.present() else { return }
        let sef = SpeedAndSlowMotionTests.sef
        let probe = try JSONSerialization.jsonObject(with: try sdrify("probe", sef, "--json").stdoutData) as? [String: Any] ?? [:]
        let sm = try XCTUnwrap(probe["slow_motion"] as? [String: Any])
        XCTAssertEqual(sm["capture_fps"] as? Int, 240)
        XCTAssertEqual(sm["temporal_layers"] as? Int, 4)
        let segments = sm["segments"] as? [[String: Any]] ?? []
        XCTAssertEqual(segments.map { $0["slowed"] as? Int ?? 0 }, [2, 8])
        XCTAssertEqual(segments.map { $0["start_time"] as? Double ?? 0 }, [0.088, 1.255])
        XCTAssertTrue(try sdrify("probe", sef).stdout.contains("slow motion: captured at 240 fps"))

        _ = try sdrify(sef, file("flat.mp4"))
        // The gallery's map: real time (an eighth of file time) outside the segments, slowed by each divisor inside.
        func map(_ t: Double) -> Double {
            var extra = 0.0
            for (s, e, d) in [(0.088, 0.879, 2.0), (1.255, 1.970, 8.0)] where t > s { extra += (min(t, e) - s) * (d - 1) }
            return (t + extra) * 30 / 240
        }
        let source = try frameTimes(sef).sorted()
        let output = try frameTimes(file("flat.mp4"))
        XCTAssertEqual(output.count, 31, "the layers that give about 30 pictures a second")
        XCTAssertEqual(output, output.sorted(), "in order")
        XCTAssertEqual(Set(output.map { Int(($0 * 1000).rounded()) }).count, output.count, "none repeated")
        var matched: [Int] = []
        for t in output {
            // Each output time is where the map puts one of the source's pictures (within a frame of 240 fps).
            let n = source.indices.min { abs(map(source[$0]) - t) < abs(map(source[$1]) - t) }!
            XCTAssertEqual(map(source[n]), t, accuracy: 1.0 / 240, "output picture at \(t) s")
            matched.append(n)
        }
        XCTAssertEqual(matched, matched.sorted(), "source pictures in order")
        // The pictures themselves: output picture k is the source picture it was mapped from.
        let checked = [1, 8, 20, 30].filter { $0 < output.count }
        let ours = try Support.lumaFrames(file("flat.mp4"), indices: checked)
        let theirs = try Support.lumaFrames(sef, indices: checked.map { matched[$0] }, filter: "scale=320:240")
        for (k, (a, b)) in zip(checked, zip(ours, theirs)) {
            XCTAssertGreaterThan(Support.psnr(a, b), 30, "output picture \(k) is source picture \(matched[k])")
        }
        XCTAssertEqual(try duration(file("flat.mp4"), "audio"), map(2.133), accuracy: 0.05, "the sound follows the same map")

        // As a compose clip it plays the same way: it shows for the map's length.
        try #"{"clips": [{"file": "\#(sef)"}]}"#.write(toFile: file("sef.json"), atomically: true, encoding: .utf8)
        let composed = try sdrify("compose", "--timeline", file("sef.json"), "-o", file("composed.mp4"), "--json")
        let report = try JSONSerialization.jsonObject(with: composed.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["duration"] as? Double ?? 0, map(2.1), accuracy: 1.0 / 30 + 0.001)

        // Off: the file's own timing, every picture.
        _ = try sdrify(sef, file("off.mp4"), "--slow-motion", "off")
        XCTAssertEqual(try frameTimes(file("off.mp4")).count, 63)
        XCTAssertEqual(try duration(file("off.mp4"), "video"), 2.1, accuracy: 0.04)
    }

    /// A layered HEVC capture (x265's temporal layers: non-reference pictures in layer 1) made into a Samsung-style
    /// 120 fps slow-motion file (scripts/make-slow-motion.py): the layers above what a part plays are left out before
    /// decoding (HEVC's layers are nested by the standard), and what is kept decodes without damage, each picture
    /// its source's at the mapped time.
    func testLayeredHEVCIsThinnedBeforeDecoding() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-vf", "scale=out_color_matrix=bt709", "-colorspace", "bt709",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-c:v", "libx265", "-x265-params",
            "log-level=error:temporal-layers=1:bframes=3:b-pyramid=0", "-tag:v", "hvc1", file("layered.mp4")
        ])
        let made = try Support.run(
            Support.tool("python3"),
            [
                Support.packageRoot.appendingPathComponent("scripts/make-slow-motion.py").path, file("layered.mp4"), file("slow.mp4"), "120", "2",
                "1000:2000:3"
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let r = try sdrify(file("slow.mp4"), file("flat.mp4"))
        XCTAssertFalse(r.stderr.contains("warning"), r.stderr)
        func map(_ t: Double) -> Double { (t + max(0, min(t, 2) - 1) * 3) * 30 / 120 }
        let source = try frameTimes(file("slow.mp4")).sorted(), output = try frameTimes(file("flat.mp4"))
        XCTAssertLessThan(output.count, source.count, "pictures left out outside the segment")
        XCTAssertEqual(output.filter { $0 >= map(1) - 0.001 && $0 < map(2) - 0.001 }.count, 30, "every picture of the slowed second")
        var matched: [Int] = []
        for t in output {
            let n = source.indices.min { abs(map(source[$0]) - t) < abs(map(source[$1]) - t) }!
            XCTAssertEqual(map(source[n]), t, accuracy: 0.001)
            matched.append(n)
        }
        let checked = [2, 12, 40].filter { $0 < output.count }
        let ours = try Support.lumaFrames(file("flat.mp4"), indices: checked)
        let theirs = try Support.lumaFrames(file("slow.mp4"), indices: checked.map { matched[$0] })
        for (k, (a, b)) in zip(checked, zip(ours, theirs)) {
            XCTAssertGreaterThan(Support.psnr(a, b), 30, "output picture \(k) is source picture \(matched[k])")
        }
    }

    /// The Android file states only a capture rate: it keeps its own timing (probe says why).
    func testACaptureRateAloneKeepsItsTiming() throws {
        guard RealMediaTests.present() else { return }
        let android = SpeedAndSlowMotionTests.android
        let probe = try JSONSerialization.jsonObject(with: try sdrify("probe", android, "--json").stdoutData) as? [String: Any] ?? [:]
        let sm = try XCTUnwrap(probe["slow_motion"] as? [String: Any])
        XCTAssertEqual(sm["capture_fps"] as? Int, 240)
        XCTAssertTrue((sm["plays"] as? String ?? "").hasPrefix("file timing"))
        _ = try sdrify(android, file("a.mp4"))
        XCTAssertEqual(try frameTimes(file("a.mp4")).count, 7)
        XCTAssertEqual(try duration(file("a.mp4"), "video"), 0.525, accuracy: 0.04)
    }

    /// A damaged SEF trailer (the Samsung file with its segment text overwritten, made here): exit 2 naming it;
    /// with --tolerate-errors a warning and the file's own timing.
    func testDamagedSEFTrailer() throws {
        guard RealMediaTests.present() else { return }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SpeedAndSlowMotionTests.sef)))
        let marker = Array("88:879:2".utf8)
        let at = try XCTUnwrap((0...(bytes.count - marker.count)).last { Array(bytes[$0..<($0 + marker.count)]) == marker })
        bytes.replaceSubrange(at..<(at + 2), with: Array("x8".utf8))
        FileManager.default.createFile(atPath: file("damaged.mp4"), contents: Data(bytes))
        let r = try sdrify(file("damaged.mp4"), file("d.mp4"), status: 2)
        XCTAssertTrue(r.stderr.contains("SEF trailer"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("d.mp4")))
        let t = try sdrify(file("damaged.mp4"), file("d.mp4"), "--tolerate-errors")
        XCTAssertTrue(t.stderr.contains("SEF trailer") && t.stderr.contains("file's own timing"), t.stderr)
        XCTAssertEqual(try frameTimes(file("d.mp4")).count, 63)
        XCTAssertTrue(try sdrify("probe", file("damaged.mp4")).stdout.contains("damaged"))
    }
}
