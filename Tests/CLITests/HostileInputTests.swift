import Foundation
import XCTest

/// Every hostile input of the pipeline contract, generated here: the exit code, exactly one `sdrify:` line,
/// no signal death, and nothing left in the output directory (neither output nor temporary).
final class HostileInputTests: CLITestCase {
    var corpus: URL!  // inputs live apart from `dir`, which must stay empty after every failure

    override func setUpWithError() throws {
        try super.setUpWithError()
        corpus = try Support.tempDir()
    }

    override func tearDownWithError() throws {
        try super.tearDownWithError()
        try? FileManager.default.removeItem(at: corpus)
    }

    func path(_ name: String) -> String { corpus.appendingPathComponent(name).path }

    func data(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: Support.vector(name))) }

    /// The first occurrence of a 4-byte ASCII tag after `from`.
    func offset(of tag: String, in d: Data, from: Int = 0) -> Int? {
        let t = Array(tag.utf8)
        return d.withUnsafeBytes { b in
            (from..<(b.count - 4)).first { i in b[i] == t[0] && b[i + 1] == t[1] && b[i + 2] == t[2] && b[i + 3] == t[3] }
        }
    }

    /// Writes the corpus and returns (file, expected exit code, words the message must contain).
    func makeCorpus() throws -> [(String, Int32, String)] {
        var cases: [(String, Int32, String)] = []
        FileManager.default.createFile(atPath: path("zero.mp4"), contents: Data())
        cases.append(("zero.mp4", 2, "not a readable media file"))
        try Data("#!/bin/sh\necho not a video\n".utf8).write(to: URL(fileURLWithPath: path("text.mov")))
        cases.append(("text.mov", 2, "not a readable media file"))
        var seed: UInt64 = 42
        let random = Data(
            (0..<65536).map { _ in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407; return UInt8(seed >> 56)
            })
        try random.write(to: URL(fileURLWithPath: path("random.mp4")))
        cases.append(("random.mp4", 2, "random.mp4"))

        let whole = try data("sdr_h264_aac.mp4")  // moov at the end
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path("no_moov.mp4")))
        cases.append(("no_moov.mp4", 2, "no_moov.mp4"))
        try ffmpeg(["-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-movflags", "+faststart", path("faststart.mp4")])
        let fast = try Data(contentsOf: URL(fileURLWithPath: path("faststart.mp4")))
        try fast.prefix(fast.count * 2 / 3).write(to: URL(fileURLWithPath: path("short_mdat.mp4")))
        cases.append(("short_mdat.mp4", 2, "truncated"))
        var corrupt = whole
        var s: UInt64 = 7
        for i in (whole.count / 2)..<(whole.count / 2 + 3000) { s = s &* 6364136223846793005 &+ 1; corrupt[i] = UInt8(s >> 56) }
        try corrupt.write(to: URL(fileURLWithPath: path("corrupt_middle.mp4")))
        cases.append(("corrupt_middle.mp4", 2, " s"))  // names the time of the damage

        // (Sound alone makes a video of the background: BackgroundTests. Subtitles alone make nothing.)
        try Data("1\n00:00:00,000 --> 00:00:01,000\nhi\n".utf8).write(to: URL(fileURLWithPath: path("subs.srt")))
        try ffmpeg(["-i", path("subs.srt"), "-c:s", "mov_text", path("subtitles_only.mp4")])
        try FileManager.default.removeItem(atPath: path("subs.srt"))
        cases.append(("subtitles_only.mp4", 2, "no video stream"))
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", path("still.png")])
        cases.append(("still.png", 3, "a photo (png), not a video: to make a video of it, sdrify compose"))

        var unknown = try data("orient_1.mp4")
        let stsd = offset(of: "stsd", in: unknown)!
        let avc1 = offset(of: "avc1", in: unknown, from: stsd)!
        unknown.replaceSubrange(avc1..<avc1 + 4, with: Array("zzzz".utf8))
        try unknown.write(to: URL(fileURLWithPath: path("unknown_codec.mp4")))
        cases.append(("unknown_codec.mp4", 3, "unknown codec"))

        var huge = try data("orient_1.mp4")  // sample entry claims 30000x30000
        let entry = offset(of: "avc1", in: huge, from: offset(of: "stsd", in: huge)!)!
        huge.replaceSubrange(entry + 28..<entry + 32, with: [0x75, 0x30, 0x75, 0x30])
        try huge.write(to: URL(fileURLWithPath: path("huge.mp4")))
        cases.append(("huge.mp4", 3, "30000x30000"))

        let dv = Support.packageRoot.appendingPathComponent("scripts/set-dolby-vision-config.py").path
        let r = try Support.run(Support.tool("python3"), [dv, Support.vector("pq_hevc_hdr10.mp4"), path("dv_profile5.mp4"), "5", "6", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        cases.append(("dv_profile5.mp4", 3, "Dolby Vision profile 5"))

        return cases
    }

    /// A file cut short (an interrupted upload) is refused by default and, with --tolerate-errors, converted as
    /// far as it goes.
    func testTruncatedFileConvertsAsFarAsItGoesWhenTolerated() throws {
        try ffmpeg(["-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy", "-movflags", "+faststart", path("faststart.mp4")])
        let fast = try Data(contentsOf: URL(fileURLWithPath: path("faststart.mp4")))
        try fast.prefix(fast.count * 2 / 3).write(to: URL(fileURLWithPath: path("cut.mp4")))
        let all = Support.streams(try Support.ffprobe(path("faststart.mp4")), "video").first?["nb_frames"] as? String
        let refused = try Support.sdrify(path("cut.mp4"), path("refused.mp4"))
        XCTAssertEqual(refused.status, 2, refused.stderr)
        let r = try Support.sdrify(path("cut.mp4"), path("salvaged.mp4"), "--tolerate-errors", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("truncated"), r.stderr)
        let frames = Int(Support.streams(try Support.ffprobe(path("salvaged.mp4")), "video").first?["nb_frames"] as? String ?? "") ?? 0
        let total = Int(all ?? "") ?? 0
        XCTAssertGreaterThan(frames, total / 3, "most of what the file holds")
        XCTAssertLessThan(frames, total, "not more than it holds")
    }

    /// A fragmented file cut exactly between fragments is a valid, shorter file to the demuxer; its segment index
    /// (sidx) still lists the missing fragments, so the cut is found: exit 2, or converted as far as it goes.
    func testFragmentedFileCutBetweenFragmentsIsFoundByItsIndex() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=f=440", "-t", "4",
            "-c:v", "libx264", "-g", "15", "-c:a", "aac", "-movflags", "dash+global_sidx", path("fragmented.mp4")
        ])
        let whole = try Data(contentsOf: URL(fileURLWithPath: path("fragmented.mp4")))
        var fragments: [Int] = [], at = 0
        while at + 8 <= whole.count {
            let size = whole[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            if whole[(at + 4)..<(at + 8)].elementsEqual("moof".utf8) { fragments.append(at) }
            guard size >= 8 else { break }
            at += size
        }
        XCTAssertGreaterThan(fragments.count, 4)
        try whole.prefix(fragments[fragments.count - 3]).write(to: URL(fileURLWithPath: path("cut.mp4")))
        XCTAssertEqual(try Support.sdrify(path("fragmented.mp4"), file("whole.mp4")).status, 0, "the intact file converts")
        let refused = try Support.sdrify(path("cut.mp4"), file("refused.mp4"))
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("truncated: its fragment index (sidx) lists"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("refused.mp4")))
        let salvaged = try Support.sdrify(path("cut.mp4"), file("salvaged.mp4"), "--tolerate-errors")
        XCTAssertEqual(salvaged.status, 0, salvaged.stderr)
        XCTAssertTrue(salvaged.stderr.contains("warning"), salvaged.stderr)
        let frames = Int(Support.streams(try Support.ffprobe(file("salvaged.mp4")), "video").first?["nb_frames"] as? String ?? "") ?? 0
        XCTAssertTrue((60...105).contains(frames), "the fragments the file holds: \(frames) of 120")
    }

    /// A corrupt sample table that spaces frames 70 hours apart (found by fuzzing: the encoder was given an absurd
    /// frame rate and the muxer refused the output, exit 4). It is the input's damage (exit 2); with
    /// --tolerate-errors the frames get the nominal interval.
    func testDamagedSampleTimingIsTheInputsFault() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1", "-c:v", "libx264", "-bf", "0", "-an", path("clean.mp4")])
        var d = try Data(contentsOf: URL(fileURLWithPath: path("clean.mp4")))
        let stts = try XCTUnwrap(offset(of: "stts", in: d))
        d.replaceSubrange(stts + 16..<stts + 20, with: [0xE6, 0, 0, 0])  // the first entry's sample delta
        let edts = try XCTUnwrap(offset(of: "edts", in: d))  // no edit list to hide the damage
        d.replaceSubrange(edts..<edts + 4, with: Array("free".utf8))
        let tolerant = try refusedThenTolerated(d, named: "stts.mp4", saying: "damaged timestamps")
        let video = Support.streams(try Support.ffprobe(tolerant), "video").first ?? [:]
        XCTAssertEqual(video["nb_frames"] as? String, "30")
        XCTAssertEqual(Double(video["duration"] as? String ?? "") ?? 0, 1, accuracy: 0.05)

        // The same damage in a copied AAC track: packets ~24 s long.
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i", "sine=duration=1", "-t", "1",
            "-c:v", "libx264", "-bf", "0", "-c:a", "aac", path("av.mp4")
        ])
        var a = try Data(contentsOf: URL(fileURLWithPath: path("av.mp4")))
        let audioStts = try XCTUnwrap(offset(of: "stts", in: a, from: try XCTUnwrap(offset(of: "stts", in: a)) + 4))
        a.replaceSubrange(audioStts + 16..<audioStts + 20, with: [0, 0x10, 0, 0])
        while let e = offset(of: "edts", in: a) { a.replaceSubrange(e..<e + 4, with: Array("free".utf8)) }
        _ = try refusedThenTolerated(a, named: "audio.mp4", saying: "damaged audio")
    }

    /// Writes `damaged`, checks it is refused as damaged input (exit 2, naming `words`) and converted under
    /// --tolerate-errors; returns that output's path.
    func refusedThenTolerated(_ damaged: Data, named name: String, saying words: String) throws -> String {
        try damaged.write(to: URL(fileURLWithPath: path(name)))
        let strict = try Support.sdrify(path(name), path("strict-\(name)"))
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains(words), strict.stderr)
        let r = try Support.sdrify(path(name), path("tolerant-\(name)"), "--tolerate-errors")
        XCTAssertEqual(r.status, 0, r.stderr)
        return path("tolerant-\(name)")
    }

    func testEveryHostileInputFailsCleanly() throws {
        for (name, code, words) in try makeCorpus() {
            let output = dir.appendingPathComponent("\(name).out.mp4").path
            let r = try Support.sdrify(path(name), output, "--json")
            XCTAssertEqual(r.status, code, "\(name): \(r.stderr)")
            XCTAssertFalse(r.signalled, "\(name) crashed")
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, 1, "\(name): exactly one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: "), "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(name): '\(words)' in \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
            XCTAssertEqual(report?["exit_code"] as? Int, Int(code), "\(name): JSON report")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "\(name): nothing left behind")
            // probe reads headers and the first picture: it refuses what those show, and describes (exit 0)
            // files whose problem only conversion meets (damage mid-stream, a profile, a codec not decodable here),
            // and photos (a still is no video to convert, but probe says what it is).
            let probeCode: Int32 = ["corrupt_middle.mp4", "dv_profile5.mp4", "unknown_codec.mp4", "still.png"].contains(name) ? 0 : code
            let p = try Support.sdrify("probe", path(name), "--json")
            XCTAssertEqual(p.status, probeCode, "\(name): probe: \(p.stderr)")
            if name == "still.png" {
                let photo = (try JSONSerialization.jsonObject(with: p.stdoutData) as? [String: Any])?["photo"] as? [String: Any]
                XCTAssertEqual(photo?["format"] as? String, "png")
            }
            if name == "unknown_codec.mp4" {
                let video = (try JSONSerialization.jsonObject(with: p.stdoutData) as? [String: Any])?["video"] as? [String: Any]
                XCTAssertEqual(video?["decodable"] as? Bool, false)
                XCTAssertEqual(video?["codec"] as? String, "'zzzz'")
                XCTAssertTrue(p.stderr.contains("no decoder here"), p.stderr)
            }
            XCTAssertFalse(p.signalled)
        }
    }

    /// Side inputs are hostile too: a damaged picture, caption or GPX file is invalid input (exit 2, one line naming
    /// it; 64 stays for a wrong command line), and a caption file asking too much is cut to the limits with one
    /// warning instead of holding the conversion for minutes.
    func testHostileSideInputsFailCleanlyOrAreCapped() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "30", path("v.mp4")])
        var seed: UInt64 = 9
        let random = Data(
            (0..<3000).map { _ in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407; return UInt8(seed >> 56)
            })
        try random.write(to: URL(fileURLWithPath: path("random.png")))
        try Data("nothing timed here\n".utf8).write(to: URL(fileURLWithPath: path("nothing.srt")))
        // What made Foundation's XML parser end the process: an attribute name that is not UTF-8.
        var ttml = Data(#"<?xml version="1.0" encoding="UTF-8"?><tt xmlns="http://www.w3.org/ns/ttml"><body><p a"#.utf8)
        ttml += Data([0xFF, 0xFF]) + Data(#"="1" begin="1s" end="2s">x</p></body></tt>"#.utf8)
        try ttml.write(to: URL(fileURLWithPath: path("name.ttml")))
        // … and one whose declared encoding libxml2 does not know, so it reads the bytes as they are.
        try Data(ttml.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "?") : $0 }).write(to: URL(fileURLWithPath: path("encoding.ttml")))
        try Data("Scenarist_SCC V1.0\n\n99999999999999999999:00:00:00\t9420 9420\n".utf8).write(to: URL(fileURLWithPath: path("hours.scc")))
        try Data("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>".utf8).write(to: URL(fileURLWithPath: path("cut.gpx")))
        try Data(#"{"titles": [{"text": "{speed_kmh}", "source": "gpx:cut.gpx"}]}"#.utf8).write(to: URL(fileURLWithPath: path("t.json")))
        let cases: [([String], Int32, String)] = [
            (["--sticker", "\(path("random.png"))@1,1"], 2, "random.png"),
            (["--captions", path("nothing.srt")], 2, "nothing.srt: no captions"),
            (["--captions", path("name.ttml")], 2, "name.ttml: damaged TTML"),
            (["--captions", path("encoding.ttml")], 2, "encoding.ttml: damaged TTML"),
            (["--captions", path("hours.scc")], 2, "hours.scc"),
            (["--overlays", path("t.json")], 2, "cut.gpx")
        ]
        for (flags, code, words) in cases {
            let r = try Support.sdrify([path("v.mp4"), file("out.mp4")] + flags)
            XCTAssertEqual(r.status, code, "\(flags): \(r.stderr)")
            XCTAssertFalse(r.signalled, "\(flags) crashed")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(flags): one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(flags): '\(words)' in \(r.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "\(flags): nothing left behind")
        }
        let composed = try Support.sdrify("compose", path("v.mp4"), path("random.png"), "--output", file("out.mp4"))
        XCTAssertEqual(composed.status, 2, composed.stderr)
        XCTAssertTrue(composed.stderr.contains("random.png"), composed.stderr)

        // 50,000 cues on screen within one second, and one cue of 5 MB: cut to the limits, one warning each.
        var crowd = ""
        for i in 0..<50_000 { crowd += "\(i + 1)\n00:00:00,\(String(format: "%03d", i % 1000)) --> 00:00:01,000\ncue \(i)\n\n" }
        try Data(crowd.utf8).write(to: URL(fileURLWithPath: path("crowd.srt")))
        try Data(("1\n00:00:00,000 --> 00:00:01,000\n" + String(repeating: "word ", count: 1_000_000) + "\n").utf8)
            .write(to: URL(fileURLWithPath: path("long.srt")))
        for (name, words) in [("crowd.srt", "49984 cues left out (more than 16 on screen at once)"), ("long.srt", "1 cue cut to 2000 characters")] {
            let r = try Support.sdrify(path("v.mp4"), file("\(name).mp4"), "--captions", path(name))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("warning: \(path(name)): \(words)"), r.stderr)
            XCTAssertEqual(r.stderr.components(separatedBy: "warning:").count, 2, "one warning: \(r.stderr)")
        }
    }

    /// Profiles 8.1 and 8.4 carry an HDR10 / HLG base layer: converted from it, like any PQ / HLG stream.
    func testDolbyVisionWithACompatibleBaseLayerConverts() throws {
        let dv = Support.packageRoot.appendingPathComponent("scripts/set-dolby-vision-config.py").path
        for (vector, compat, kind) in [("pq_hevc_hdr10.mp4", "1", "pq"), ("hlg_hevc_aac.mov", "4", "hlg")] {
            let input = path("dv8.\(compat).mp4")
            let r = try Support.run(Support.tool("python3"), [dv, Support.vector(vector), input, "8", "6", compat])
            XCTAssertEqual(r.status, 0, r.stderr)
            let p = try Support.sdrify("probe", input, "--json")
            let dvInfo =
                ((try JSONSerialization.jsonObject(with: p.stdoutData) as? [String: Any])?["video"] as? [String: Any])?["dolby_vision"]
                as? [String: Any]
            XCTAssertEqual(dvInfo?["profile"] as? Int, 8)
            XCTAssertEqual(dvInfo?["bl_compatibility_id"] as? Int, Int(compat))
            let c = try Support.sdrify(input, dir.appendingPathComponent("dv\(compat).mp4").path, "--json")
            XCTAssertEqual(c.status, 0, c.stderr)
            XCTAssertEqual((try JSONSerialization.jsonObject(with: c.stdoutData) as? [String: Any])?["hdr"] as? String, kind)
        }
    }

    /// (size, byte position) of each packet of the vector's `stream` ("v" or "a"), from ffprobe.
    func packets(_ vector: String, _ stream: String) throws -> [(size: Int, pos: Int)] {
        try Support.packets(Support.vector(vector), stream)
    }

    /// Overwrites `count` bytes at `at` with a fixed pattern.
    func damage(_ d: inout Data, at: Int, count: Int) {
        for j in 0..<count { d[at + j] = UInt8((j * 37 + 11) & 255) }
    }

    /// Damage HEVC conceals and only logs (here "cu_qp_delta … outside the valid range" in the first keyframe)
    /// is damage: refused with any thread count (the decoder's own error count, not thread timing, decides),
    /// counted under --tolerate-errors.
    func testDamageTheDecoderOnlyLogsIsFoundWithAnyThreadCount() throws {
        var d = try data("sample_hlg_portrait.mov")
        let first = try XCTUnwrap(try packets("sample_hlg_portrait.mov", "v").first)
        damage(&d, at: first.pos + first.size / 8, count: 64)
        try d.write(to: URL(fileURLWithPath: path("logged.mov")))
        // (A small, fast encode: what is checked is the decoder's log, the same whatever the output's size.)
        let small = ["--preset", "640x480", "--x264-preset", "ultrafast"]
        for threads in ["1", "2", "0", "0", "0"] {
            let r = try Support.sdrify([path("logged.mov"), dir.appendingPathComponent("x.mp4").path, "--threads", threads] + small)
            XCTAssertEqual(r.status, 2, "threads \(threads): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("damaged video"), r.stderr)
        }
        var counts = Set<Int>()
        for threads in ["1", "2", "0"] {
            let r = try Support.sdrify(
                [path("logged.mov"), dir.appendingPathComponent("t\(threads).mp4").path, "--threads", threads, "--tolerate-errors", "--json"]
                    + small)
            XCTAssertEqual(r.status, 0, r.stderr)
            counts.insert((try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["decode_errors"] as? Int ?? 0)
        }
        XCTAssertEqual(counts.count, 1, "the same count whatever the threads: \(counts)")
        XCTAssertGreaterThan(counts.first ?? 0, 0)
    }

    /// H.264 conceals damage in a B frame and says so only at info level ("concealing … errors"): refused in
    /// every run where the decoder runs on one thread. (With frame threads libavcodec does not always run its
    /// error concealment on that frame, so it may not say anything: see docs/convert.md.)
    func testConcealedH264DamageIsFoundInEveryRun() throws {
        var d = try data("sdr_h264_aac.mp4")
        let video = try packets("sdr_h264_aac.mp4", "v")
        XCTAssertGreaterThan(video.count, 3)
        damage(&d, at: video[3].pos + video[3].size / 3, count: 24)
        try d.write(to: URL(fileURLWithPath: path("concealed.mp4")))
        for threads in ["1", "1", "1", "2", "2", "2"] {
            let r = try Support.sdrify(path("concealed.mp4"), dir.appendingPathComponent("x\(threads).mp4").path, "--threads", threads, "--overwrite")
            XCTAssertEqual(r.status, 2, "threads \(threads): \(r.stderr)")
        }
        let r = try Support.sdrify(path("concealed.mp4"), dir.appendingPathComponent("t.mp4").path, "--tolerate-errors", "--json", "--threads", "1")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan((try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["decode_errors"] as? Int ?? 0, 0)
    }

    /// Copied AAC is decoded on the side: a damaged frame is refused, or dropped under --tolerate-errors so the
    /// output's audio decodes cleanly.
    func testDamagedCopiedAudioIsFound() throws {
        var d = try data("sample_hlg_portrait.mov")
        let audio = try packets("sample_hlg_portrait.mov", "a")
        XCTAssertGreaterThan(audio.count, 40)
        damage(&d, at: audio[40].pos + 4, count: 16)
        let output = try refusedThenTolerated(d, named: "aac.mov", saying: "damaged audio")
        let decode = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", output, "-map", "0:a", "-f", "null", "-"])
        XCTAssertEqual(decode.stderr, "", "the kept audio decodes without errors")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "audio").count, 1)
    }

    /// Chunk offsets past the end of the file in the middle of the sample table: the demuxer skips those samples
    /// without an error; the count the container promised finds them missing.
    func testSamplesTheTablePromisesButCannotDeliverAreDamage() throws {
        var d = try data("sample_hlg_portrait.mov")
        let stco = try XCTUnwrap(offset(of: "stco", in: d))  // the video track's (the first track)
        for k in 20..<26 {
            let at = stco + 12 + 4 * k
            let past = UInt32(d.count + 1_000_000)
            d.replaceSubrange(at..<at + 4, with: [UInt8(past >> 24), UInt8(past >> 16 & 255), UInt8(past >> 8 & 255), UInt8(past & 255)])
        }
        let output = try refusedThenTolerated(d, named: "stco.mov", saying: "damaged sample table")
        let frames = Int(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String ?? "") ?? 0
        XCTAssertGreaterThan(frames, 0)
        XCTAssertLessThan(frames, 60)
        let r = try Support.sdrify(path("stco.mov"), dir.appendingPathComponent("w.mp4").path, "--tolerate-errors")
        XCTAssertTrue(r.stderr.contains("warning") && r.stderr.contains("video samples could be read"), r.stderr)
    }

    /// A sample count cut down (stsz says 3 of 30): the demuxer delivers 3 samples, logging only "wrong sample
    /// count" (counted: a damaged container); the track's duration would find the rest missing too.
    func testPicturesThatDoNotFillTheTrackAreDamage() throws {
        var d = try data("sdr_h264_aac.mp4")
        let stsz = try XCTUnwrap(offset(of: "stsz", in: d))  // the video track's (the first track)
        d.replaceSubrange(stsz + 12..<stsz + 16, with: [0, 0, 0, 3])
        let output = try refusedThenTolerated(d, named: "stsz.mp4", saying: "damaged")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, "3")
    }

    /// A chunk table (stsc) saying a chunk holds 0 samples: the demuxer indexes 1 of the 3 samples the sample size
    /// table declares, with only a warning, and the conversion used to write 1 frame with exit 0 (found by
    /// `scripts/fuzz convert`). The declared count is a promise too.
    func testSamplesTheSizeTableDeclaresButTheChunkTableLosesAreDamage() throws {
        var d = try data("roundtrip_pq.mp4")
        let stsc = try XCTUnwrap(offset(of: "stsc", in: d))  // entry 1: first chunk, samples per chunk, description
        XCTAssertEqual(Array(d[stsc + 16..<stsc + 20]), [0, 0, 0, 3])
        d[stsc + 19] = 0
        let output = try refusedThenTolerated(d, named: "stsc.mp4", saying: "only 1 of the 3 video samples")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, "1")
    }

    /// A video track's handler box (hdlr) with a damaged size: the demuxer no longer sees a video track, only sound,
    /// and the file used to convert with exit 0 as if it were audio alone (a black video; found by
    /// `scripts/fuzz convert`). The movie box's boxes must fit each other.
    func testADamagedBoxInTheMovieHeaderIsDamage() throws {
        var d = try data("hlg_hevc_aac.mov")
        let hdlr = try XCTUnwrap(offset(of: "hdlr", in: d)) - 4  // the video track's (the first track)
        d[hdlr + 3] = 1  // size 1: a 64-bit size follows, here garbage
        _ = try refusedThenTolerated(d, named: "hdlr.mov", saying: "damaged container: the 'hdlr' box in 'mdia'")
        let probe = try Support.run(
            Support.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=index",
                "-of", "csv=p=0", path("hdlr.mov")
            ])
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "", "the demuxer sees no video track")
    }

    /// A video track's media time scale overwritten with 1 (from 15360): valid on its face, no demuxer message,
    /// but the frames now come 512 s apart and all but the first fall after the edit list's 1 s; the conversion
    /// used to write 1 frame of 30 with exit 0 (a fragmented copy: 30 frames spread over 4 hours). Damaged timing.
    func testAVideoTimeScaleNoMuxerWritesIsDamage() throws {
        var d = try data("hlg_hevc_aac.mov")
        let mdhd = try XCTUnwrap(offset(of: "mdhd", in: d))  // the video track's: version 0, then two dates
        XCTAssertEqual(Array(d[mdhd + 16..<mdhd + 20]), [0, 0, 0x3C, 0])
        d.replaceSubrange(mdhd + 16..<mdhd + 20, with: [0, 0, 0, 1])
        _ = try refusedThenTolerated(d, named: "timescale.mov", saying: "a video time scale of 1 ticks per second")
    }

    /// An edit list whose media time is below −1 (−1 alone is an empty edit) points before the track's media: the
    /// demuxer reads it without a word and used to lose 2 pictures (video) or shift the sound (audio), exit 0.
    func testAnEditListPointingBeforeItsMediaIsDamage() throws {
        let original = try data("hlg_hevc_aac.mov")
        let video = try XCTUnwrap(offset(of: "elst", in: original))
        let audio = try XCTUnwrap(offset(of: "elst", in: original, from: video + 4))
        for (track, elst) in [(1, video), (2, audio)] {
            var d = original
            XCTAssertEqual(Array(d[elst + 16..<elst + 20]), [0, 0, 4, 0], "version 0, one entry, media time 1024")
            d.replaceSubrange(elst + 16..<elst + 20, with: [0xFF, 0xFF, 0xFF, 0xFB])  // −5
            _ = try refusedThenTolerated(d, named: "elst\(track).mov", saying: "damaged edit list: track \(track)")
        }
        // An empty edit (−1) is valid: a track that starts later.
        var d = original
        d.replaceSubrange(audio + 16..<audio + 20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        try d.write(to: URL(fileURLWithPath: path("empty-edit.mov")))
        let r = try Support.sdrify(path("empty-edit.mov"), path("empty-edit.mp4"))
        XCTAssertFalse(r.stderr.contains("edit list"), r.stderr)
    }

    /// A damaged slice header that libavcodec decodes anyway (ffmpeg says nothing), with wrong fields: its last
    /// bit is not the alignment bit, so sdrify's own check refuses it.
    func testImpossibleHEVCSliceHeaderIsDamage() throws {
        var d = try data("sample_hlg_portrait.mov")
        let video = try packets("sample_hlg_portrait.mov", "v")
        d[video[21].pos + 14] ^= 0x18
        try d.write(to: URL(fileURLWithPath: path("header.mov")))
        let ffmpeg = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path("header.mov"), "-f", "null", "-"])
        XCTAssertEqual(ffmpeg.stderr, "", "libavcodec is silent about this damage")
        _ = try refusedThenTolerated(d, named: "header.mov", saying: "slice header")
    }

    /// Composition offsets garbled (a ctts sample count set to 0xFFFFFFFF): the pictures come out of the decoder
    /// in display order with timestamps that run backwards. Damaged timing: refused, or repaired when tolerated.
    func testTimestampsThatRunBackwardsAreDamage() throws {
        var d = try data("sdr_h264_aac.mp4")
        let ctts = try XCTUnwrap(offset(of: "ctts", in: d)) - 4  // the box's start
        for i in 32..<36 { d[ctts + i] = 0xFF }
        let output = try refusedThenTolerated(d, named: "ctts.mp4", saying: "damaged timestamps")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, "30")
    }

    /// How many of a file's video packets the demuxer marks to be left out (outside the edit list).
    func packetsLeftOut(_ file: String) throws -> Int {
        let r = try Support.run(
            Support.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=flags", "-of", "csv=p=0", file
            ])
        return r.stdout.split(separator: "\n").filter { $0.contains("D") }.count
    }

    /// One picture's composition offset garbled so that it lands outside the edit list: before the presentation
    /// start (as pre-roll does) or past its end (as a trimmed tail does). The demuxer marks it to be left out and
    /// libavcodec drops it without a word (a picture used to go missing with exit 0). The pictures come out of the
    /// decoder in display order, so its timestamp is out of order there: refused, or repaired when tolerated.
    func testPictureMovedOutsideTheEditIsDamage() throws {
        let clean = try data("pq_hevc_hdr10.mp4")
        let ctts = try XCTUnwrap(offset(of: "ctts", in: clean))
        for (name, offsetTicks, frames) in [("before", Int32(-8192), "30"), ("after", Int32(0x1000_0000), "29")] {
            var d = clean
            let entry = ctts + 12 + 8 * 10 + 4  // the 11th sample's offset (one sample per entry here)
            d.replaceSubrange(entry..<entry + 4, with: withUnsafeBytes(of: offsetTicks.bigEndian) { Array($0) })
            try d.write(to: URL(fileURLWithPath: path("\(name).mp4")))
            XCTAssertEqual(try packetsLeftOut(path("\(name).mp4")), 1, "the demuxer leaves one picture out")
            let output = try refusedThenTolerated(d, named: "\(name).mp4", saying: "damaged timestamps")
            // Tolerated: a picture moved before the start is shown in its place; one moved past the end is lost.
            XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, frames)
        }
    }

    /// An edit list of two segments (the second second of the clip cut out): the demuxer marks the media
    /// between them to be left out and gives it the next segment's timestamps. Not damage: converted as before
    /// this rule existed, 60 pictures.
    func testEditListWithTwoSegmentsIsNotDamage() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "120", "-c:v", "libx264", "-g", "30",
            "-bf", "2", path("long.mp4")
        ])  // moov after mdat: its size can change
        var d = try Data(contentsOf: URL(fileURLWithPath: path("long.mp4")))
        func u32(_ at: Int) -> UInt32 { d[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func be(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
        let movieScale = u32(try XCTUnwrap(offset(of: "mvhd", in: d)) + 16)
        let mediaScale = u32(try XCTUnwrap(offset(of: "mdhd", in: d)) + 16)
        let elst = try XCTUnwrap(offset(of: "elst", in: d)) - 4
        XCTAssertEqual(u32(elst + 12), 1, "one segment to start with")
        let mediaTime = u32(elst + 20)
        let entries = be(2) + be(movieScale) + be(mediaTime) + be(0x10000) + be(movieScale) + be(mediaTime + 2 * mediaScale) + be(0x10000)
        d.replaceSubrange(elst + 12..<elst + 28, with: entries)
        let grown = UInt32(entries.count - 16)
        let boxes = [elst, elst - 8, try XCTUnwrap(offset(of: "trak", in: d)) - 4, try XCTUnwrap(offset(of: "moov", in: d)) - 4]
        for box in boxes { d.replaceSubrange(box..<box + 4, with: be(u32(box) + grown)) }
        try d.write(to: URL(fileURLWithPath: path("two.mp4")))
        XCTAssertGreaterThan(try packetsLeftOut(path("two.mp4")), 20, "the media between is left out")
        let r = try Support.sdrify(path("two.mp4"), path("two-out.mp4"), "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["frames"] as? Int, 60)
        XCTAssertEqual(report["decode_errors"] as? Int, 0)
    }

    /// The first picture's composition offset garbled so that it lands before the start: it comes first in
    /// display order anyway, so only the gap it leaves shows the damage (pre-roll ends just before the start).
    func testFirstPictureMovedBeforeTheStartIsDamage() throws {
        var d = try data("orient_6.mp4")
        let ctts = try XCTUnwrap(offset(of: "ctts", in: d))
        XCTAssertEqual(d[ctts + 12..<ctts + 20], Data([0, 0, 0, 1, 0, 0, 4, 0]), "one sample, 1024 ticks")
        d[ctts + 18] = 0  // its offset: 0
        let output = try refusedThenTolerated(d, named: "first.mp4", saying: "left out before the start")
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").first?["nb_frames"] as? String, "11")
    }

    /// A valid file cut with `ffmpeg -ss … -c copy` starts with pictures the edit list leaves out (decoded as
    /// references, not shown): they are left out, the rest converts untouched.
    func testPreRollTheEditListLeavesOutIsNotDamage() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "90", "-c:v", "libx264", "-g", "30",
            "-bf", "2", path("gop.mp4")
        ])
        try ffmpeg(["-ss", "0.5", "-i", path("gop.mp4"), "-c", "copy", path("cut.mp4")])
        XCTAssertGreaterThan(try packetsLeftOut(path("cut.mp4")), 3, "the cut starts with pre-roll")
        let r = try Support.sdrify(path("cut.mp4"), path("cut-out.mp4"), "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["frames"] as? Int, 75, "the 75 pictures from 0.5 s on")
        XCTAssertEqual(report["decode_errors"] as? Int, 0)
        // The first picture shown is the one at 0.5 s of the source (compared through the same conversion).
        XCTAssertEqual(try Support.sdrify(path("gop.mp4"), path("gop-out.mp4")).status, 0)
        let shown = try Support.lumaFrame(path("cut-out.mp4"), index: 0)
        let psnrs = try (14...16).map { Support.psnr(shown, try Support.lumaFrame(path("gop-out.mp4"), index: $0)) }
        XCTAssertGreaterThan(psnrs[1], 35, "\(psnrs)")
        XCTAssertGreaterThan(psnrs[1], max(psnrs[0], psnrs[2]) + 3, "\(psnrs)")
    }

    /// A media time scale the demuxer replaces with a guess ("Invalid mdhd time scale …, defaulting to 1"; with
    /// it, 11 of 12 pictures used to vanish with exit 0): damage, reported as the time scale of 1 the guess makes
    /// (the demuxer's own error report would refuse it too).
    func testDamageTheDemuxerRecoversFromIsDamage() throws {
        var d = try data("orient_1.mp4")
        let mdhd = try XCTUnwrap(offset(of: "mdhd", in: d)) - 4
        d.replaceSubrange(mdhd + 20..<mdhd + 24, with: [0x90, 0x7B, 0x59, 0x0A])
        _ = try refusedThenTolerated(d, named: "mdhd.mp4", saying: "damaged timing: a video time scale of 1")
    }

    func testTolerateErrorsConcealsAndCounts() throws {
        var corrupt = try data("sdr_h264_aac.mp4")
        var s: UInt64 = 7
        for i in (corrupt.count / 2)..<(corrupt.count / 2 + 3000) { s = s &* 6364136223846793005 &+ 1; corrupt[i] = UInt8(s >> 56) }
        try corrupt.write(to: URL(fileURLWithPath: path("corrupt.mp4")))
        let output = dir.appendingPathComponent("tolerated.mp4").path
        let r = try Support.sdrify(path("corrupt.mp4"), output, "--tolerate-errors", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertGreaterThan(report["decode_errors"] as? Int ?? 0, 0)
        XCTAssertTrue(r.stderr.contains("concealed"), r.stderr)
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").count, 1)
    }

    /// 4:2:2, 4:4:4 and 12-bit sources convert correctly (zimg resamples chroma and depth).
    func testOtherChromaFormatsAndDepthsConvert() throws {
        let sources: [(String, [String])] = [
            ("422p10.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv422p10le"]),
            ("444p.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv444p"]),
            ("420p12.mp4", ["-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p12le"])
        ]
        let reference = try Support.lumaFrame(Support.vector("orient_1.mp4"), index: 3)
        for (name, codec) in sources {
            try ffmpeg(
                [
                    "-i", Support.vector("orient_1.mp4"), "-color_primaries", "bt709", "-color_trc", "bt709",
                    "-colorspace", "bt709"
                ] + codec + [path(name)])
            let output = dir.appendingPathComponent("\(name).out.mp4").path
            let r = try Support.sdrify(path(name), output, "--preset", "640x480", "--crf", "12")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let v = Support.streams(try Support.ffprobe(output), "video").first ?? [:]
            XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p", name)
            XCTAssertGreaterThan(Support.psnr(try Support.lumaFrame(output, index: 3), reference), 30, "\(name): picture kept")
        }
    }
}
