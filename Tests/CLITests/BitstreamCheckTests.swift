import Foundation
import XCTest

/// Our own H.264 and HEVC slice-data checks (Sources/CBitstream): damage libavcodec decodes without a word is
/// refused (or counted under --tolerate-errors), and valid streams from every encoder setting at hand pass them.
final class BitstreamCheckTests: CLITestCase {
    func packets(_ path: String) throws -> [(size: Int, pos: Int)] { try Support.packets(path, "v") }

    /// One flipped bit (0x10, two thirds into the sample) in every quarter's first picture of each clip: sdrify
    /// refuses each, and libavcodec is silent (no error, flag or log line; checked with ffmpeg) about at least
    /// `silentAtLeast` of them, which is what the check is for.
    func assertOneFlippedBitRefused(in vectors: [String], flips: Int, silentAtLeast: Int) throws {
        var silent = 0, made = 0
        for vector in vectors {
            let clean = try Data(contentsOf: URL(fileURLWithPath: Support.vector(vector)))
            let video = try packets(Support.vector(vector))
            XCTAssertGreaterThanOrEqual(video.count, 12)
            for k in stride(from: 1, to: video.count, by: video.count / 4) {
                var d = clean
                d[video[k].pos + video[k].size * 2 / 3] ^= 0x10
                let damaged = file("flip\(k)-\(vector)")
                try d.write(to: URL(fileURLWithPath: damaged))
                let ffmpeg = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", damaged, "-f", "null", "-"])
                if ffmpeg.status == 0 && ffmpeg.stderr.isEmpty { silent += 1 }
                let out = file("flip\(k)-\(vector).mp4")
                let r = try Support.sdrify(damaged, out)
                XCTAssertEqual(r.status, 2, "\(vector) packet \(k): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("damaged video") && r.stderr.contains("slice"), r.stderr)
                XCTAssertFalse(FileManager.default.fileExists(atPath: out))
                made += 1
            }
        }
        XCTAssertEqual(made, flips)
        XCTAssertGreaterThanOrEqual(silent, silentAtLeast, "damage libavcodec is silent about is what this test is for")
    }

    /// In HLG and PQ clips (x265): libavcodec decodes the damaged pictures with no word.
    func testOneFlippedBitInHEVCSliceDataIsRefused() throws {
        try assertOneFlippedBitRefused(in: ["sample_hlg_portrait.mov", "pq_hevc_hdr10.mp4"], flips: 9, silentAtLeast: 4)
    }

    /// A sample of an MP4 track is one picture's NAL units, each behind its length. A NAL unit header with its
    /// forbidden bit set makes libavcodec skip the NAL unit: in a picture no other refers to (packet 13 here is
    /// TRAIL_N), the picture goes missing with exit 0 and not a word from ffmpeg. A length running past the
    /// sample is logged by libavcodec; sdrify names it. Both are refused.
    func testDamagedSampleStructureIsRefused() throws {
        let vector = "pq_hevc_hdr10.mp4"
        let clean = try Data(contentsOf: URL(fileURLWithPath: Support.vector(vector)))
        let k = try packets(Support.vector(vector))[13]
        var forbidden = clean
        forbidden[k.pos + 4] |= 0x80  // the NAL unit's header (after its 4-byte length)
        var overrun = clean
        overrun[k.pos] = 0x7F  // its length: far past the sample
        for (name, d, words, silent) in [
            ("forbidden.mp4", forbidden, "forbidden bit", true),
            ("overrun.mp4", overrun, "past the end", false)
        ] {
            let damaged = file(name)
            try d.write(to: URL(fileURLWithPath: damaged))
            let ffmpeg = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", damaged, "-f", "null", "-"])
            XCTAssertEqual(ffmpeg.status, 0, "ffmpeg converts \(name)")
            if silent { XCTAssertEqual(ffmpeg.stderr, "", "ffmpeg says nothing about \(name)") }
            let r = try Support.sdrify(damaged, file("\(name)-out.mp4"))
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("damaged video") && r.stderr.contains(words), r.stderr)
        }
    }

    /// libavcodec reads the codec configuration as hvcC whenever it does not start like Annex B, whatever its
    /// version byte says; the check must read it the same way, or a damaged version byte left every slice
    /// unchecked (damaged slice data then passed with exit 0).
    func testDamagedConfigurationVersionStillChecksEverySlice() throws {
        let vector = "pq_hevc_hdr10.mp4"
        var d = try Data(contentsOf: URL(fileURLWithPath: Support.vector(vector)))
        let hvcC = try XCTUnwrap(d.range(of: Data("hvcC".utf8))).upperBound
        XCTAssertEqual(d[hvcC], 1, "configurationVersion")
        d[hvcC] = 27
        let versioned = file("version.mp4")
        try d.write(to: URL(fileURLWithPath: versioned))
        let r = try Support.sdrify(versioned, file("version-out.mp4"), "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual((report["bitstream_check"] as? [String: Any])?["slices_checked"] as? Int, 30)
        let k = try packets(Support.vector(vector))[10]
        d[k.pos + k.size * 2 / 3] ^= 0x10
        try d.write(to: URL(fileURLWithPath: versioned))
        let damaged = try Support.sdrify(versioned, file("version-damaged.mp4"))
        XCTAssertEqual(damaged.status, 2, damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains("slice data"), damaged.stderr)
    }

    func testTolerateErrorsCountsDamagedSliceData() throws {
        var d = try Data(contentsOf: URL(fileURLWithPath: Support.vector("sample_hlg_portrait.mov")))
        let video = try packets(Support.vector("sample_hlg_portrait.mov"))
        d[video[10].pos + video[10].size / 2] ^= 0x04
        let damaged = file("tolerated.mov")
        try d.write(to: URL(fileURLWithPath: damaged))
        let r = try Support.sdrify(damaged, file("tolerated.mp4"), "--tolerate-errors", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertGreaterThan(report["decode_errors"] as? Int ?? 0, 0)
        // The opt-out for trusted input: no check, so this damage (silent to libavcodec) goes through.
        let trusted = try Support.sdrify(damaged, file("trusted.mp4"), "--no-bitstream-check", "--json")
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        let trustedReport = try JSONSerialization.jsonObject(with: trusted.stdoutData) as? [String: Any] ?? [:]
        XCTAssertNil(trustedReport["bitstream_check"])
        XCTAssertEqual(trustedReport["decode_errors"] as? Int, 0)
    }

    /// Entering clips mid-stream (compose `from`, convert `--start`) gives the check pictures from a keyframe on:
    /// no false report. A raw elementary stream has no timestamps to seek by: it is read from its start and the
    /// pictures before `from` skipped (seeking it used to fail with "Operation not permitted").
    func testClipsEnteredMidStreamAndRawStreamsWithAStart() throws {
        let raw = file("raw.h265")
        try ffmpeg(["-i", Support.vector("pq_hevc_hdr10.mp4"), "-map", "0:v", "-c:v", "copy", "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", raw])
        let edit = file("edit.json")
        try Data(
            """
            {"clips": [{"file": "\(Support.vector("sample_hlg_portrait.mov"))", "from": 0.7, "duration": 0.8},
                       {"file": "\(Support.vector("pq_hevc_hdr10.mp4"))", "from": 0.4, "duration": 0.5},
                       {"file": "\(raw)", "from": 0.2}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: edit))
        let r = try Support.sdrify("compose", "--timeline", edit, "--output", file("edit.mp4"), "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["decode_errors"] as? Int, 0)
        XCTAssertEqual((report["clips"] as? [[String: Any]])?.count, 3)
        let start = try Support.sdrify(raw, file("start.mp4"), "--start", "0.5", "--json")
        XCTAssertEqual(start.status, 0, start.stderr)
        let converted = (try JSONSerialization.jsonObject(with: start.stdoutData) as? [String: Any])?["frames"] as? Int ?? 0
        XCTAssertEqual(converted, 30 - 15, "the raw stream's 30 pictures at 30 fps, from 0.5 s")
    }

    /// Valid streams are never refused: x265 with the settings that change the slice syntax (slices, WPP off,
    /// CTB and transform sizes, AMP, transform skip, lossless CUs, sign hiding off, SAO off, QP groups, weighted
    /// prediction, scaling lists, B pyramids, monochrome, 10 and 12 bits). Every slice is parsed (none left
    /// unchecked) and none is called damaged. 4:2:2, which the check does not parse, is left unchecked.
    func testValidHEVCFromManyEncoderSettingsPassesTheCheck() throws {
        let settings: [(String, String, String)] = [
            ("default", "yuv420p", ""), ("slices", "yuv420p10le", "slices=3"), ("nowpp", "yuv420p", "wpp=0:bframes=4:b-pyramid=1"),
            ("ctu16", "yuv420p", "ctu=16:min-cu-size=8:max-tu-size=4"), ("amp", "yuv420p", "rect=1:amp=1:tu-inter-depth=3:tu-intra-depth=3"),
            ("tskip", "yuv420p", "tskip=1:cu-lossless=1:signhide=0"), ("lossless", "yuv420p", "lossless=1"),
            ("aq", "yuv420p", "aq-mode=3:qg-size=8:cbqpoffs=3:crqpoffs=-2:sao=0"), ("weights", "yuv420p", "weightp=1:weightb=1:ref=4"),
            ("scaling", "yuv420p12le", "scaling-list=default:max-merge=1:temporal-mvp=0"), ("mono", "gray10le", "keyint=4"),
            ("lowqp", "yuv420p", "qp=1:rd=6:rdoq-level=2")
        ]
        let source = file("source.y4m")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=200x120:rate=25,noise=alls=10:allf=t", "-frames:v", "10", "-pix_fmt", "yuv420p", source])
        for (name, pixels, params) in settings {
            let clip = file("\(name).mp4")
            try ffmpeg([
                "-i", source, "-pix_fmt", pixels, "-c:v", "libx265", "-x265-params", "log-level=error" + (params.isEmpty ? "" : ":" + params), clip
            ])
            let r = try Support.sdrify(clip, file("\(name).out.mp4"), "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            let check = report["bitstream_check"] as? [String: Any] ?? [:]
            XCTAssertGreaterThanOrEqual(check["slices_checked"] as? Int ?? 0, 10, name)
            XCTAssertEqual(check["slices_unchecked"] as? Int, 0, name)
            XCTAssertEqual(report["decode_errors"] as? Int, 0, name)
        }
        let clip = file("422.mp4")
        try ffmpeg(["-i", source, "-pix_fmt", "yuv422p", "-c:v", "libx265", "-x265-params", "log-level=error", clip])
        let r = try Support.sdrify(clip, file("422.out.mp4"), "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let check = (try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["bitstream_check"] as? [String: Any] ?? [:]
        XCTAssertEqual(check["slices_unchecked"] as? Int, 10)
    }

    /// The same for H.264 (x264 clips): libavcodec ends a CABAC slice at its last macroblock and only notices a
    /// reader far past the data, so without our check several of these converted with exit 0 and visibly broken
    /// pictures.
    func testOneFlippedBitInH264SliceDataIsRefused() throws {
        try assertOneFlippedBitRefused(in: ["sdr_h264_aac.mp4", "orient_6.mp4"], flips: 9, silentAtLeast: 3)
    }

    /// Valid H.264 is never refused: x264 with the settings that change the CABAC syntax (B pyramids and direct
    /// modes, weighted prediction, many references, every partition and the 8x8 transform, several slices, intra
    /// refresh, lossless, monochrome, 10 bits, scaling matrices, constrained intra) in MP4, MPEG-TS and a raw
    /// Annex B stream. x264 sets an alignment bit after the stop bit in about half its slices, which the check
    /// must accept. Every slice is parsed; what the check does not parse (interlaced, 4:2:2, CAVLC) is counted as
    /// unchecked, never refused.
    func testValidH264FromManyEncoderSettingsPassesTheCheck() throws {
        let settings: [(String, String, String, [String])] = [
            ("default", "yuv420p", "", []), ("main", "yuv420p", "", ["-profile:v", "main"]),
            ("pyramid", "yuv420p", "bframes=8:b-adapt=2:b-pyramid=normal:ref=6:weightb=1:weightp=2:direct=auto", []),
            ("temporal", "yuv420p", "bframes=3:direct=temporal:ref=3", []),
            ("partitions", "yuv420p", "partitions=all:8x8dct=1:trellis=2:subme=10", []),
            ("slices", "yuv420p", "slices=3:bframes=2", []), ("refresh", "yuv420p", "intra-refresh=1:keyint=5", []),
            ("lossless", "yuv420p", "qp=0", []), ("gray", "gray", "", []), ("high10", "yuv420p10le", "", []),
            ("cqm", "yuv420p", "cqm=jvt:constrained-intra=1", []), ("lowqp", "yuv420p", "qp=2:deadzone-inter=0:deadzone-intra=0", [])
        ]
        let source = file("source.y4m")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=200x120:rate=25,noise=alls=25:allf=t", "-frames:v", "10", "-pix_fmt", "yuv420p", source])
        func check(_ clip: String, _ name: String) throws -> [String: Any] {
            let r = try Support.sdrify(clip, file("\(name).out.mp4"), "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            XCTAssertEqual(report["decode_errors"] as? Int, 0, name)
            return report["bitstream_check"] as? [String: Any] ?? [:]
        }
        for (name, pixels, params, extra) in settings {
            let clip = file("\(name).mp4")
            try ffmpeg(["-i", source, "-pix_fmt", pixels, "-c:v", "libx264"] + extra + (params.isEmpty ? [] : ["-x264-params", params]) + [clip])
            let c = try check(clip, name)
            XCTAssertGreaterThanOrEqual(c["slices_checked"] as? Int ?? 0, 10, name)
            XCTAssertEqual(c["slices_unchecked"] as? Int, 0, name)
        }
        for (name, format) in [("stream.h264", "h264"), ("stream.ts", "mpegts")] {
            let clip = file(name)
            try ffmpeg(["-i", source, "-c:v", "libx264", "-x264-params", "bframes=3", "-f", format, clip])
            let c = try check(clip, name)
            XCTAssertEqual(c["slices_checked"] as? Int, 10, name)
            XCTAssertEqual(c["slices_unchecked"] as? Int, 0, name)
        }
        for (name, extra) in [
            ("interlaced", ["-flags", "+ildct+ilme", "-x264-params", "tff=1"]),
            ("422", ["-pix_fmt", "yuv422p"]), ("cavlc", ["-x264-params", "cabac=0"])
        ] {
            let clip = file("\(name).mp4")
            try ffmpeg(["-i", source, "-c:v", "libx264"] + extra + [clip])
            let c = try check(clip, name)
            XCTAssertEqual(c["slices_checked"] as? Int, 0, name)
            XCTAssertGreaterThanOrEqual(c["slices_unchecked"] as? Int ?? 0, 10, name)
        }
    }
}
