import Foundation
import XCTest

/// What upload services make from one upload (issue 34): HLS renditions, thumbnails, contact sheets, seek sprites,
/// loudness and bit-rate caps, each checked with independent tools (ffmpeg, ffprobe, GStreamer's hlsdemux, headless
/// Chromium) and our own reading of RFC 8216.
final class PublishingTests: CLITestCase {

    /// A portrait HLG clip as phones store it: 640x360 10-bit HEVC turned 90° clockwise by its display matrix
    /// (360x640 upright), BT.2020 HLG tags, a 440 Hz tone.
    func makePortraitHLG(_ name: String, seconds: Int = 6) throws -> String {
        try sharedFile("portrait-hlg-\(seconds)s-\(name)", name) { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=\(seconds)", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)",
                "-vf", "zscale=tin=bt709:pin=bt709:min=bt709:t=arib-std-b67:p=bt2020:m=bt2020nc:r=limited:npl=203,format=yuv420p10le",
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-color_primaries", "bt2020",
                "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-c:a", "aac", path
            ])
            let r = try Support.run(
                Support.tool("python3"),
                [Support.packageRoot.appendingPathComponent("scripts/set-display-matrix.py").path, path, "0", "1", "-1", "0", "360", "0"]
            )
            XCTAssertEqual(r.status, 0, r.stderr)
        }
    }

    /// One picture as 8-bit RGB (a still's own pixels; a video frame as its BT.709 tags say).
    func rgb(_ path: String, index: Int = 0, filter: String? = nil) throws -> [UInt8] {
        try Support.rawFrame(path, index: index, pixelFormat: "rgb24", filter: filter)
    }

    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// `KEY=VALUE,KEY="VALUE, WITH COMMAS"` → dictionary (RFC 8216 attribute lists).
    func attributes(_ line: String) -> [String: String] {
        var out: [String: String] = [:]
        var key = "", value = "", inKey = true, quoted = false
        for ch in line.drop(while: { $0 != ":" }).dropFirst() {
            if inKey {
                if ch == "=" { inKey = false } else { key.append(ch) }
            } else if ch == "\"" {
                quoted.toggle()
            } else if ch == "," && !quoted {
                out[key] = value; key = ""; value = ""; inKey = true
            } else {
                value.append(ch)
            }
        }
        if !key.isEmpty { out[key] = value }
        return out
    }

    /// Our own check of a VOD media playlist against RFC 8216's rules: header first, version 7 (fMP4), an
    /// EXT-X-MAP that exists, every segment's EXTINF (rounded) at most EXT-X-TARGETDURATION, every segment there,
    /// EXT-X-ENDLIST last. Returns the segments with their lengths.
    func checkMediaPlaylist(_ dir: String, _ name: String) throws -> [(file: String, length: Double)] {
        let l = try lines("\(dir)/\(name)")
        XCTAssertEqual(l.first, "#EXTM3U", name)
        XCTAssertTrue(l.contains("#EXT-X-VERSION:7"), name)
        XCTAssertTrue(l.contains("#EXT-X-PLAYLIST-TYPE:VOD"), name)
        XCTAssertTrue(l.contains("#EXT-X-INDEPENDENT-SEGMENTS"), name)
        XCTAssertEqual(l.last, "#EXT-X-ENDLIST", name)
        let target = Int(l.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }?.split(separator: ":")[1] ?? "") ?? 0
        XCTAssertGreaterThan(target, 0, name)
        let map = attributes(l.first { $0.hasPrefix("#EXT-X-MAP:") } ?? "")["URI"] ?? ""
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/\(map)"), "\(name): its init segment \(map)")
        var segments: [(String, Double)] = []
        for (i, line) in l.enumerated() where line.hasPrefix("#EXTINF:") {
            let length = Double(line.dropFirst(8).split(separator: ",")[0]) ?? 0
            XCTAssertLessThanOrEqual(length, Double(target), "\(name): EXTINF \(length) over the target duration \(target)")
            XCTAssertLessThanOrEqual(Int(length.rounded()), target, name)
            let uri = l[i + 1]
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(dir)/\(uri)"), "\(name): \(uri)")
            segments.append((uri, length))
        }
        return segments
    }

    /// How many pictures GStreamer's playbin (hlsdemux and its decoders) plays from a master playlist to its end.
    func picturesGStreamerPlays(_ master: String) throws -> Int {
        let gst = try Support.run(
            Support.tool("gst-launch-1.0"),
            [
                "-v", "playbin", "uri=file://\(master)", "video-sink=fakesink sync=false silent=false",
                "audio-sink=fakesink sync=false"
            ])
        XCTAssertEqual(gst.status, 0, gst.stderr)
        return gst.stdout.split(whereSeparator: \.isNewline).filter { $0.contains("fakesink0") && $0.contains("chain") }.count
    }

    /// Packets of a rendition read as players read it (init segment, then the segments in order).
    func packets(_ dir: String, _ name: String, segments: [String], stream: String = "v") throws -> [(pts: Double, key: Bool, size: Int)] {
        let joined = file("\(name)-joined.mp4")
        var data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)_init.mp4"))
        for s in segments { data += try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(s)")) }
        try data.write(to: URL(fileURLWithPath: joined))
        let r = try Support.run(
            Support.tool("ffprobe"),
            ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,flags,size", "-of", "csv=p=0", joined])
        return r.stdout.split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",").map(String.init)
            guard f.count >= 3, let t = Double(f[0]), let size = Int(f[1]) else { return nil }
            return (t, f[2].hasPrefix("K"), size)
        }
    }

    /// A portrait HLG clip into a three-rendition ladder: upright renditions at the rungs' short edges, aligned IDR
    /// segments, playlists that follow RFC 8216 with bit rates as measured from the segments, an audio rendition in
    /// sync, the same picture as the MP4 convert makes, and it plays through GStreamer's hlsdemux and ffmpeg.
    func testHLSLadderFollowsRFC8216AndPlays() throws {
        let input = try makePortraitHLG("hlg.mov")
        let out = file("ladder")
        let r = try Support.sdrify("hls", input, out, "--ladder", "360,240,144", "--segment", "2", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let renditions = report["renditions"] as? [[String: Any]] ?? []
        XCTAssertEqual(renditions.map { "\($0["width"] ?? 0)x\($0["height"] ?? 0)" }, ["360x640", "240x426", "144x256"])

        let master = try lines("\(out)/master.m3u8")
        XCTAssertEqual(master.first, "#EXTM3U")
        XCTAssertTrue(master.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
        let media = master.first { $0.hasPrefix("#EXT-X-MEDIA:") }.map(attributes) ?? [:]
        XCTAssertEqual(media["TYPE"], "AUDIO")
        let audioSegments = try checkMediaPlaylist(out, media["URI"] ?? "")
        let audioPackets = try packets(out, "audio", segments: audioSegments.map(\.file), stream: "a")
        let audioPeak: Double =
            audioSegments.map { (seg: (file: String, length: Double)) -> Double in
                let bytes: Int = (try? Data(contentsOf: URL(fileURLWithPath: "\(out)/\(seg.file)")).count) ?? 0
                return Double(bytes * 8) / seg.length
            }.max() ?? 0

        var firstStarts: [[Double]] = []
        for (i, line) in master.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") {
            let a = attributes(line)
            let name = master[i + 1]
            XCTAssertEqual(a["AUDIO"], media["GROUP-ID"], name)
            let segments = try checkMediaPlaylist(out, name)
            XCTAssertEqual(segments.reduce(0) { $0 + $1.length }, 6, accuracy: 0.05, "\(name): the whole video")
            XCTAssertEqual(segments.dropLast().map(\.length), Array(repeating: 2.0, count: segments.count - 1), name)
            // Every segment starts with a keyframe, at the same times in every rendition.
            let stem = String(name.dropLast(5))
            let p = try packets(out, stem, segments: segments.map(\.file))
            XCTAssertEqual(p.count, 180, name)
            var starts: [Double] = []
            var at = 0
            for seg in segments {
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(seg.file)"))
                XCTAssertTrue(p[at].key, "\(name): \(seg.file) starts with a keyframe")
                starts.append(p[at].pts)
                let count = Int((seg.length * 30).rounded())
                at += count
                _ = data
            }
            firstStarts.append(starts)
            // Sound and pictures start together (AAC priming aside).
            XCTAssertEqual(p.map(\.pts).min() ?? 0, audioPackets.map(\.pts).min() ?? 9, accuracy: 0.03, "\(name): in sync with the audio")
            // BANDWIDTH: the peak segment bit rate with the audio's; AVERAGE-BANDWIDTH: the mean.
            let sizes = try segments.map { Double(try Data(contentsOf: URL(fileURLWithPath: "\(out)/\($0.file)")).count * 8) }
            let peak = zip(sizes, segments).map { $0 / $1.length }.max() ?? 0
            XCTAssertEqual(Double(a["BANDWIDTH"] ?? "") ?? 0, peak + audioPeak, accuracy: 2, name)
            XCTAssertLessThanOrEqual(Double(a["AVERAGE-BANDWIDTH"] ?? "") ?? .infinity, Double(a["BANDWIDTH"] ?? "") ?? 0, name)
            // RESOLUTION and CODECS say what the stream is.
            let v = Support.streams(try Support.ffprobe(file("\(stem)-joined.mp4")), "video").first ?? [:]
            XCTAssertEqual(a["RESOLUTION"], "\(v["width"] ?? 0)x\(v["height"] ?? 0)", name)
            XCTAssertEqual(v["profile"] as? String, "High", name)
            let level = v["level"] as? Int ?? 0
            XCTAssertEqual(a["CODECS"], String(format: "avc1.6400%02X,mp4a.40.2", level), name)
            XCTAssertEqual(a["FRAME-RATE"], "30.000", name)
            XCTAssertEqual(v["color_transfer"] as? String, "bt709", name)
        }
        XCTAssertEqual(firstStarts.count, 3)
        XCTAssertEqual(Set(firstStarts.map { $0.map { ($0 * 1000).rounded() } }).count, 1, "segment boundaries aligned: \(firstStarts)")

        // The top rendition shows what convert's MP4 shows (upright, same colours).
        _ = try Support.sdrify(input, file("same.mp4"), "--preset", "640x480")
        for n in [15, 100] {
            let hls = try Support.lumaFrame("\(out)/360p.m3u8", index: n)
            let mp4 = try Support.lumaFrame(file("same.mp4"), index: n)
            XCTAssertEqual(hls.count, 360 * 640)
            XCTAssertGreaterThan(Support.psnr(hls, mp4), 35, "picture \(n)")
        }

        // GStreamer's HLS demuxer plays the master playlist to its end: every picture of a rendition.
        XCTAssertEqual(try picturesGStreamerPlays("\(out)/master.m3u8"), 180, "GStreamer decoded the whole video")
        // ffmpeg reads the master playlist too.
        let ff = try Support.run(
            Support.tool("ffmpeg"), ["-v", "error", "-i", "\(out)/master.m3u8", "-map", "0:v:0", "-map", "0:a:0", "-f", "null", "-"])
        XCTAssertEqual(ff.status, 0, ff.stderr)
        XCTAssertEqual(ff.stderr, "")
    }

    /// `hls --codec av1`: every variant's CODECS is `av01` with the profile, level and bit depth ffprobe reads from
    /// the stream; every segment starts with a key frame and decodes on its own (closed GOPs); GStreamer (its AV1
    /// decoder) and ffmpeg play the master playlist.
    func testAV1LadderNamesItsStreamsAndEverySegmentStandsAlone() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 4)
        let out = file("ladder")
        let r = try Support.sdrify("hls", input, out, "--ladder", "360,240", "--segment", "1", "--codec", "av1")
        XCTAssertEqual(r.status, 0, r.stderr)
        let master = try lines("\(out)/master.m3u8")
        var variants = 0
        for (i, line) in master.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") {
            variants += 1
            let name = master[i + 1], stem = String(name.dropLast(5))
            let segments = try checkMediaPlaylist(out, name)
            XCTAssertEqual(segments.count, 4, name)
            let p = try packets(out, stem, segments: segments.map(\.file))
            XCTAssertEqual(p.count, 120, name)
            for k in 0..<segments.count { XCTAssertTrue(p[k * 30].key, "\(name): segment \(k + 1) starts with a key frame") }
            let v = Support.streams(try Support.ffprobe(file("\(stem)-joined.mp4")), "video").first ?? [:]
            XCTAssertEqual(v["codec_name"] as? String, "av1", name)
            let level = v["level"] as? Int ?? -1
            XCTAssertEqual(attributes(line)["CODECS"], String(format: "av01.0.%02dM.08,mp4a.40.2", level), name)
            // A segment alone (its init segment, then it): all 30 pictures, no complaint.
            var alone = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(stem)_init.mp4"))
            alone += try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(segments[2].file)"))
            try alone.write(to: URL(fileURLWithPath: file("alone.mp4")))
            let decoded = try Support.run(
                Support.tool("ffprobe"),
                [
                    "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                    file("alone.mp4")
                ])
            XCTAssertEqual(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "30", "\(name): \(decoded.stderr)")
            XCTAssertEqual(decoded.stderr, "", name)
        }
        XCTAssertEqual(variants, 2)
        XCTAssertEqual(try picturesGStreamerPlays("\(out)/master.m3u8"), 120, "GStreamer decoded the whole video")
        let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", "\(out)/master.m3u8", "-map", "0:v:0", "-f", "null", "-"])
        XCTAssertEqual(ff.status, 0, ff.stderr)
        XCTAssertEqual(ff.stderr, "")
    }

    /// `--ranges sdr,hdr`: an SDR ladder (H.264) and an HDR one (HEVC Main 10, hvc1, HLG as the source) from one
    /// decode, one master playlist whose every variant says its VIDEO-RANGE, CODECS and FRAME-RATE; every variant
    /// plays (GStreamer) and ffmpeg reads the master with no message; the SDR rungs show the picture the SDR-only
    /// ladder shows (tone mapped from the HDR render instead of the source: within 40 dB).
    func testTwoRangeLadderFromOneDecode() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 2)
        let out = file("both"), sdrOnly = file("sdr")
        let r = try Support.sdrify("hls", input, out, "--ladder", "360,240", "--segment", "1", "--ranges", "sdr,hdr", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Support.sdrify("hls", input, sdrOnly, "--ladder", "360,240", "--segment", "1").status, 0)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let renditions = report["renditions"] as? [[String: Any]] ?? []
        XCTAssertEqual(renditions.map { $0["name"] as? String ?? "" }, ["360p", "240p", "360p-hdr", "240p-hdr"])
        XCTAssertEqual(renditions.map { $0["range"] as? String ?? "" }, ["sdr", "sdr", "hlg", "hlg"])
        let master = try lines("\(out)/master.m3u8")
        var ranges: [String: String] = [:]
        for (i, line) in master.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") {
            let a = attributes(line), name = master[i + 1], stem = String(name.dropLast(5))
            ranges[stem] = a["VIDEO-RANGE"]
            XCTAssertNotNil(a["FRAME-RATE"], name)
            let segments = try checkMediaPlaylist(out, name)
            XCTAssertEqual(try packets(out, stem, segments: segments.map(\.file)).count, 60, name)
            let v = Support.streams(try Support.ffprobe(file("\(stem)-joined.mp4")), "video").first ?? [:]
            if stem.hasSuffix("-hdr") {
                XCTAssertTrue(a["CODECS"]?.hasPrefix("hvc1.2.") == true, "\(name): Main 10 (\(a["CODECS"] ?? ""))")
                XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p10le", name)
                XCTAssertEqual(v["color_transfer"] as? String, "arib-std-b67", name)
                XCTAssertEqual(v["color_primaries"] as? String, "bt2020", name)
            } else {
                XCTAssertTrue(a["CODECS"]?.hasPrefix("avc1.") == true, name)
                XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p", name)
                XCTAssertEqual(v["color_transfer"] as? String, "bt709", name)
            }
            XCTAssertLessThan(v["width"] as? Int ?? 0, v["height"] as? Int ?? 0, "\(name): upright portrait")
        }
        XCTAssertEqual(ranges, ["360p": "SDR", "240p": "SDR", "360p-hdr": "HLG", "240p-hdr": "HLG"])
        let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", "\(out)/master.m3u8", "-map", "0:v:0", "-f", "null", "-"])
        XCTAssertEqual(ff.status, 0, ff.stderr)
        XCTAssertEqual(ff.stderr, "")
        for name in ["360p", "240p", "360p-hdr", "240p-hdr"] {
            // Each variant alone, as a player that picked it plays it.
            let single = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-STREAM-INF:BANDWIDTH=1000000\n\(name).m3u8\n"
            try single.write(toFile: "\(out)/only-\(name).m3u8", atomically: true, encoding: .utf8)
            XCTAssertEqual(try picturesGStreamerPlays("\(out)/only-\(name).m3u8"), 60, "GStreamer plays \(name)")
        }
        // The SDR rung's picture against the SDR-only ladder's.
        _ = try packets(sdrOnly, "360p", segments: try checkMediaPlaylist(sdrOnly, "360p.m3u8").map(\.file))
        let alone = try Support.rawFrame(file("360p-joined.mp4"), index: 30, pixelFormat: "gray")
        _ = try packets(out, "360p", segments: try checkMediaPlaylist(out, "360p.m3u8").map(\.file))
        let both = try Support.rawFrame(file("360p-joined.mp4"), index: 30, pixelFormat: "gray")
        XCTAssertGreaterThanOrEqual(Support.psnr(alone, both), 40, "the SDR rung shows the SDR-only ladder's picture")
    }

    /// Bad values exit 64 naming them; an existing OUTDIR is exit 4 unless -y; -y replaces an earlier ladder but not
    /// a directory holding more than files; a source below every rung makes one rendition of its own size; nothing
    /// is left behind when a run fails.
    func testHLSValuesAndTheOutputContract() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 2)
        for (args, named) in [
            (["--ladder", "0"], "'0'"), (["--ladder", "720,abc"], "'abc'"), (["--segment", "0"], "0"), (["--codec", "vp9"], "'vp9'"),
            (["--max-bitrate", "1M", "--max-bitrate", "2M", "--ladder", "360,240,144"], "3"), (["--loudness", "3"], "3")
        ] {
            let r = try Support.sdrify(["hls", input, file("bad")] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(named), "\(args): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad")))
        }
        let small = try Support.sdrify("hls", input, file("small"), "--json")
        XCTAssertEqual(small.status, 0, small.stderr)
        let report = try JSONSerialization.jsonObject(with: small.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual((report["renditions"] as? [[String: Any]])?.map { $0["name"] as? String ?? "" }, ["360p"], "1080, 720, 480 are above it")

        let again = try Support.sdrify("hls", input, file("small"))
        XCTAssertEqual(again.status, 4, again.stderr)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        XCTAssertEqual(try Support.sdrify("hls", input, file("small"), "-y", "--ladder", "240").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("small/240p.m3u8")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("small/360p.m3u8")), "the earlier ladder was replaced")

        // convert's picture options apply: a further quarter turn makes the portrait clip landscape.
        XCTAssertEqual(try Support.sdrify("hls", input, file("turned"), "--rotate", "90", "--ladder", "240").status, 0)
        XCTAssertTrue(try lines(file("turned/master.m3u8")).contains { $0.contains("RESOLUTION=426x240") })

        try FileManager.default.createDirectory(atPath: file("precious/sub"), withIntermediateDirectories: true)
        let refused = try Support.sdrify("hls", input, file("precious"), "-y")
        XCTAssertEqual(refused.status, 4, refused.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("precious/sub")))

        // A damaged input: exit 2, and no directory, no temporary left beside it.
        try Data(try Data(contentsOf: URL(fileURLWithPath: input)).prefix(30_000)).write(to: URL(fileURLWithPath: file("cut.mov")))
        let damaged = try Support.sdrify("hls", file("cut.mov"), file("damaged"))
        XCTAssertNotEqual(damaged.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("damaged")))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".sdrify") }
        XCTAssertEqual(leftovers, [], "temporaries left: \(leftovers)")
    }

    /// A range that starts after the sound has ended: no audio rendition (as convert leaves the track out), not one
    /// whose playlist lists nothing, which ffmpeg refuses to open; the master plays.
    func testHLSOfARangeAfterTheSoundHasNoAudioRendition() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=f=440:d=0.5", "-c:v", "libx264", "-preset",
            "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", file("short-sound.mp4")
        ])
        let r = try Support.sdrify("hls", file("short-sound.mp4"), file("late"), "--start", "1", "--ladder", "240")
        XCTAssertEqual(r.status, 0, r.stderr)
        let master = try lines(file("late/master.m3u8"))
        XCTAssertFalse(master.contains { $0.contains("TYPE=AUDIO") || $0.contains("AUDIO=") }, "\(master)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("late/audio.m3u8")))
        let frames = try Support.run(
            Support.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                file("late/master.m3u8")
            ])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        XCTAssertEqual(frames.stdout.split(whereSeparator: \.isNewline).compactMap { Int($0.filter(\.isNumber)) }.first, 30)  // (a line a program)
        // Starting before the sound ends, the rendition is there.
        XCTAssertEqual(try Support.sdrify("hls", file("short-sound.mp4"), file("early"), "--start", "0.25", "--ladder", "240").status, 0)
        XCTAssertTrue(try lines(file("early/master.m3u8")).contains { $0.contains("TYPE=AUDIO") })
    }

    /// A stop by signal mid-run leaves no directory and no temporary one.
    func testHLSInterruptedLeavesNothing() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 6)
        let p = Process()
        p.executableURL = Support.binary
        p.arguments = ["hls", input, file("stopped"), "--threads", "1"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        usleep(700_000)
        p.terminate()
        p.waitUntilExit()
        // The helper removes the temporary once the worker has gone: given up to 10 s (it had 200 ms, which a loaded
        // machine need not keep), and then nothing may be left.
        func temporaries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".sdrify") } }
        let deadline = Date().addingTimeInterval(10)
        while try !temporaries().isEmpty && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("stopped")))
        XCTAssertEqual(try temporaries(), [])
    }

    /// `--max-bitrate` per rung: in every rendition, every one-second window after the first holds at most 1.1× its cap.
    func testHLSCapsEachRenditionsBitRate() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=6,noise=alls=30:allf=t", "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p",
            file("noisy.mp4")
        ])
        let out = file("capped")
        let r = try Support.sdrify("hls", file("noisy.mp4"), out, "--ladder", "180,90", "--max-bitrate", "300k", "--max-bitrate", "100k")
        XCTAssertEqual(r.status, 0, r.stderr)
        for (name, cap) in [("180p", 300_000.0), ("90p", 100_000.0)] {
            let segments = try checkMediaPlaylist(out, "\(name).m3u8")
            let p = try packets(out, name, segments: segments.map(\.file))
            let start = p.map(\.pts).min() ?? 0
            let windows = stride(from: 1.0, to: 5.0, by: 0.1).map { x in
                p.filter { $0.pts - start >= x && $0.pts - start < x + 1 }.reduce(0.0) { $0 + Double($1.size * 8) }
            }
            XCTAssertGreaterThan(windows.max() ?? 0, cap * 0.6, "\(name): the noise fills the cap")
            XCTAssertLessThanOrEqual(windows.max() ?? .infinity, cap * 1.1, "\(name)")
        }
    }

    /// A thumbnail is the MP4's own picture at that time (upright, tone mapped), at the size asked for; `--best`
    /// passes over black, a fade and a white flash for the scene; bad values exit 64.
    func testThumbnailIsTheVideosOwnPicture() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 3)
        _ = try Support.sdrify(input, file("video.mp4"), "--preset", "640x480")
        let r = try Support.sdrify("thumbnail", input, file("at.png"), "--at", "2", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["time"] as? Double ?? -1, 2, accuracy: 1.0 / 30)
        // Compared as RGB, as a viewer shows each (an image's grey is full range, a video's luma is not).
        let thumb = try rgb(file("at.png"))
        let frame = try rgb(file("video.mp4"), index: 60)
        XCTAssertEqual(thumb.count, 360 * 640 * 3, "upright, the MP4's size")
        XCTAssertGreaterThan(Support.psnr(thumb, frame), 33, "the MP4's picture at 2 s")
        XCTAssertLessThan(Support.psnr(thumb, try rgb(file("video.mp4"), index: 59)), 28, "not the picture before")

        XCTAssertEqual(try Support.sdrify("thumbnail", input, file("small.jpg"), "--at", "1", "--size", "100x100").status, 0)
        let small = Support.streams(try Support.ffprobe(file("small.jpg")), "video").first ?? [:]
        XCTAssertEqual("\(small["width"] ?? 0)x\(small["height"] ?? 0)", "56x100")

        // Black, a fade in, the scene with a white flash in it, then black again.
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:s=320x240:r=30:d=1", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4",
            "-f", "lavfi", "-i", "color=black:s=320x240:r=30:d=1",
            "-filter_complex",
            "[1]fade=in:st=0:d=1,drawbox=enable='between(t,2,2.3)':c=white:t=fill[s];[0][s][2]concat=n=3:v=1[v]",
            "-map", "[v]", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("story.mp4")
        ])
        let best = try Support.sdrify("thumbnail", file("story.mp4"), file("best.jpg"), "--best", "--json")
        XCTAssertEqual(best.status, 0, best.stderr)
        let chosen = (try JSONSerialization.jsonObject(with: best.stdoutData) as? [String: Any])?["time"] as? Double ?? -1
        XCTAssertTrue((2.0...3.0).contains(chosen) || (3.3...5.0).contains(chosen), "the scene, not black, the fade or the flash: \(chosen)")

        for (args, named) in [(["--at", "-1"], "--at"), (["--size", "0x3"], "0x3"), (["--at", "1", "--best"], "--best")] {
            let bad = try Support.sdrify(["thumbnail", input, file("bad.jpg")] + args)
            XCTAssertEqual(bad.status, 64, "\(args): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains(named), bad.stderr)
        }
        XCTAssertEqual(try Support.sdrify("thumbnail", input, file("late.jpg"), "--at", "9").status, 64, "past the end")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("late.jpg")))
    }

    /// A contact sheet holds the video's pictures at even times, labelled; sprites every N seconds with a WebVTT
    /// file whose cues cover the whole video and point at the right tile.
    func testSheetAndSprites() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 4)
        _ = try Support.sdrify(input, file("video.mp4"), "--preset", "640x480")
        let r = try Support.sdrify("sheet", input, file("sheet.png"), "--grid", "4x2", "--width", "800", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let times = (try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["times"] as? [Double] ?? []
        XCTAssertEqual(times, [0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75])
        let sheet = Support.streams(try Support.ffprobe(file("sheet.png")), "video").first ?? [:]
        let tileW = (800 - 5 * 8) / 4, tileH = 338  // 190 wide, portrait: 190 × 640/360
        XCTAssertEqual(sheet["width"] as? Int, 4 * tileW + 5 * 8)
        XCTAssertEqual(sheet["height"] as? Int, 2 * tileH + 3 * 8)
        // The top half of tile 6 (above its label) is the MP4's picture at 2.75 s.
        let crop = "crop=\(tileW):\(tileH / 2):\(8 + 1 * (tileW + 8)):\(8 + tileH + 8)"
        let tile = try rgb(file("sheet.png"), filter: crop)
        let frame = try rgb(file("video.mp4"), index: 82, filter: "scale=\(tileW):\(tileH),crop=\(tileW):\(tileH / 2):0:0")
        XCTAssertGreaterThan(Support.psnr(tile, frame), 28)

        let s = try Support.sdrify("sprites", input, file("sprites"), "--every", "0.5", "--tile", "3x2", "--size", "90x160")
        XCTAssertEqual(s.status, 0, s.stderr)
        let vtt = try lines(file("sprites/thumbnails.vtt"))
        XCTAssertEqual(vtt.first, "WEBVTT")
        var end = 0.0, cues = 0
        func seconds(_ t: Substring) -> Double {
            let p = t.split(separator: ":").map { Double($0) ?? 0 }
            return p[0] * 3600 + p[1] * 60 + p[2]
        }
        for (i, line) in vtt.enumerated() where line.contains(" --> ") {
            let parts = line.components(separatedBy: " --> ")
            XCTAssertEqual(seconds(Substring(parts[0])), end, accuracy: 0.001, "cues follow each other")
            end = seconds(Substring(parts[1]))
            let target = vtt[i + 1]
            let image = String(target.split(separator: "#")[0])
            let xywh = target.split(separator: "=")[1].split(separator: ",").compactMap { Int($0) }
            XCTAssertEqual(xywh.count, 4)
            XCTAssertEqual(image, "sprite-\(cues / 6 + 1).jpg")
            XCTAssertEqual([xywh[0], xywh[1]], [(cues % 3) * 90, (cues % 6) / 3 * 160], "tile \(cues)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: file("sprites/\(image)")))
            cues += 1
        }
        XCTAssertEqual(cues, 8)
        XCTAssertEqual(end, 4, accuracy: 0.05, "the cues cover the whole video")
        let tile5 = try rgb(file("sprites/sprite-1.jpg"), filter: "crop=90:160:180:160")
        let frame5 = try rgb(file("video.mp4"), index: 75, filter: "scale=90:160")
        XCTAssertGreaterThan(Support.psnr(tile5, frame5), 26, "tile 6 is the picture at 2.5 s")

        for (command, args, named) in [
            ("sheet", ["--grid", "0x3"], "'0x3'"), ("sprites", ["--every", "0"], "0"), ("sprites", ["--tile", "3"], "'3'")
        ] {
            let bad = try Support.sdrify([command, input, file("bad.jpg")] + args)
            XCTAssertEqual(bad.status, 64, "\(command) \(args): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains(named), bad.stderr)
        }
    }

    /// ffmpeg's ebur128 filter's reading of a file: integrated loudness and true peak.
    func ebur128(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let r = try Support.run(Support.tool("ffmpeg"), ["-nostats", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"])
        let summary = r.stderr.components(separatedBy: "Summary:").last ?? ""
        func value(_ key: String) -> Double {
            let line = summary.split(whereSeparator: \.isNewline).first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key) } ?? ""
            return Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
        }
        return (value("I:"), value("Peak:"))
    }

    /// `--loudness`: music-like sound at −30 LUFS with transients comes out within ±1 LU of the target as ffmpeg's
    /// own meter reads it, its true peak at most −1 dBTP; the JSON report agrees; a composition's mix, an audio-only
    /// input and the HLS audio rendition too.
    func testLoudnessReachesTheTargetWithoutClipping() throws {
        // (10 pictures a second: the sound is what is measured. 6 s: three of its peaks, and twice the 3 s window
        // loudness range reads.)
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=10:d=6", "-f", "lavfi",
            "-i", "anoisesrc=d=6:c=pink:a=0.05,volume='0.3+0.7*lt(mod(t\\,2)\\,0.05)':eval=frame", "-f", "lavfi",
            "-i", "sine=f=220:d=6", "-filter_complex", "[1][2]amix=inputs=2:weights=1 0.2,aformat=channel_layouts=stereo[a]",
            "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k", file("music.mp4")
        ])
        let before = try ebur128(file("music.mp4"))
        XCTAssertLessThan(before.integrated, -25, "a quiet source")
        for target in [-16.0, -23.0] {
            let r = try Support.sdrify(file("music.mp4"), file("l\(target).mp4"), "--loudness", String(target), "--json")
            XCTAssertEqual(r.status, 0, r.stderr)
            let after = try ebur128(file("l\(target).mp4"))
            XCTAssertEqual(after.integrated, target, accuracy: 1, "ffmpeg's reading")
            XCTAssertLessThanOrEqual(after.truePeak, -1, "true peak")
            let loudness = (try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["loudness"] as? [String: Any] ?? [:]
            let input = loudness["input"] as? [String: Any] ?? [:], output = loudness["output"] as? [String: Any] ?? [:]
            XCTAssertEqual(input["integrated_lufs"] as? Double ?? 0, before.integrated, accuracy: 0.3)
            XCTAssertEqual(output["integrated_lufs"] as? Double ?? 0, after.integrated, accuracy: 0.3)
            XCTAssertEqual(output["true_peak_dbtp"] as? Double ?? 0, after.truePeak, accuracy: 0.3)
            XCTAssertNotNil(output["range_lu"] as? Double)
        }
        // A composition's mix (two clips' sound), and an audio-only input (converted as a composition).
        let c = try Support.sdrify(
            "compose", file("music.mp4"), "color:#203040:2", file("music.mp4"), "-o", file("mix.mp4"), "--loudness", "-18", "--json")
        XCTAssertEqual(c.status, 0, c.stderr)
        let mix = try ebur128(file("mix.mp4"))
        XCTAssertEqual(mix.integrated, -18, accuracy: 1)
        XCTAssertLessThanOrEqual(mix.truePeak, -1)
        let mixReport = (try JSONSerialization.jsonObject(with: c.stdoutData) as? [String: Any])?["loudness"] as? [String: Any] ?? [:]
        XCTAssertEqual((mixReport["output"] as? [String: Any])?["integrated_lufs"] as? Double ?? 0, mix.integrated, accuracy: 0.3)
        try ffmpeg(["-i", file("music.mp4"), "-vn", "-c:a", "copy", file("sound.m4a")])
        XCTAssertEqual(try Support.sdrify(file("sound.m4a"), file("sound.mp4"), "--loudness", "-20").status, 0)
        XCTAssertEqual(try ebur128(file("sound.mp4")).integrated, -20, accuracy: 1)

        let h = try Support.sdrify("hls", file("music.mp4"), file("hls"), "--loudness", "-14", "--ladder", "240")
        XCTAssertEqual(h.status, 0, h.stderr)
        let audio = try ebur128(file("hls/audio.m3u8"))
        XCTAssertEqual(audio.integrated, -14, accuracy: 1)
        XCTAssertLessThanOrEqual(audio.truePeak, -1)
        for bad in ["5", "-80", "abc"] {
            let r = try Support.sdrify(file("music.mp4"), file("bad.mp4"), "--loudness", bad)
            XCTAssertEqual(r.status, 64, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(bad), r.stderr)
        }
    }

    /// The MP4 plays in headless Chromium: a `<video>` in a local page shows the first picture upright, its colours
    /// within a few codes of the decoded frame.
    func testChromiumPlaysTheMP4Upright() throws {
        let input = try makePortraitHLG("hlg.mov", seconds: 2)
        XCTAssertEqual(try Support.sdrify(input, file("v.mp4"), "--preset", "640x480").status, 0)
        try """
        <!doctype html><html><body style="margin:0;background:#000"><video src="v.mp4" muted preload="auto" style="display:block"></video></body></html>
        """.write(toFile: file("page.html"), atomically: true, encoding: .utf8)
        let r = try Support.run(
            Support.tool("chromium"),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=360,640", "--virtual-time-budget=8000",
                "--user-data-dir=\(file("profile"))", "--screenshot=\(file("shot.png"))", "file://\(file("page.html"))"
            ])
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("shot.png")), r.stderr)
        let shot = try Support.rawFrame(file("shot.png"), index: 0, pixelFormat: "rgb24", filter: "crop=360:640:0:0")
        let frame = try Support.rawFrame(file("v.mp4"), index: 0, pixelFormat: "rgb24")
        let sideways = try Support.rawFrame(file("v.mp4"), index: 0, pixelFormat: "rgb24", filter: "transpose=1,scale=360:640")
        func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
            zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(max(a.count, 1))
        }
        XCTAssertEqual(shot.count, frame.count)
        XCTAssertLessThan(meanDifference(shot, frame), 5, "Chromium shows the decoded picture")
        XCTAssertGreaterThan(meanDifference(shot, sideways), 20, "and not a turned one")
    }

    /// A real phone clip (Dolby Vision HLG, portrait by its matrix) through the ladder and the stills: upright
    /// renditions that decode, and a thumbnail that is the MP4's picture.
    func testRealPhoneClipMakesEveryArtefact() throws {
        guard RealMediaTests.present() else { return }
        let clip = RealMediaTests.folder.appendingPathComponent("androidx_dolbyVision-hdr.MOV").path
        let h = try Support.sdrify("hls", clip, file("hls"), "--segment", "1")
        XCTAssertEqual(h.status, 0, h.stderr)
        let master = try lines(file("hls/master.m3u8"))
        let sizes = master.filter { $0.hasPrefix("#EXT-X-STREAM-INF") }.compactMap { attributes($0)["RESOLUTION"] }
        XCTAssertEqual(sizes, ["720x1280", "480x854", "360x640"], "portrait renditions")
        let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("hls/720p.m3u8"), "-f", "null", "-"])
        XCTAssertEqual(ff.status, 0, ff.stderr)
        XCTAssertEqual(try Support.sdrify(clip, file("v.mp4"), "--preset", "1280x720").status, 0)
        XCTAssertEqual(try Support.sdrify("thumbnail", clip, file("t.png"), "--at", "0.05", "--size", "720x1280").status, 0)
        let thumb = try rgb(file("t.png"))
        XCTAssertEqual(thumb.count, 720 * 1280 * 3)
        XCTAssertGreaterThan(Support.psnr(thumb, try rgb(file("v.mp4"), index: 1)), 33)
    }
}
