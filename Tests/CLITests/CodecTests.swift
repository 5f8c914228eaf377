import Foundation
import XCTest

/// `--codec av1` (issue 44): SVT-AV1 in MP4, held against the H.264 conversion of the same file (ffmpeg's reading of
/// both as the oracle for length, count, size and which picture comes first), and refused with one line where it
/// cannot go.
final class CodecTests: CLITestCase {
    func video(_ path: String) throws -> [String: Any] { Support.streams(try Support.ffprobe(path), "video").first ?? [:] }

    func testAV1ConvertsLikeH264() throws {
        let input = Support.vector("sample_hlg_portrait.mov")
        let h264 = file("h264.mp4"), av1 = file("av1.mp4")
        XCTAssertEqual(try Support.sdrify(input, h264, "--preset", "640x480").status, 0)
        let r = try Support.sdrify(input, av1, "--preset", "640x480", "--codec", "av1", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "SVT-AV1's own log stays quiet")
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["codec"] as? String, "av1")

        let a = try video(av1), h = try video(h264)
        XCTAssertEqual(a["codec_name"] as? String, "av1")
        XCTAssertEqual(a["codec_tag_string"] as? String, "av01")
        XCTAssertEqual(a["profile"] as? String, "Main")
        XCTAssertEqual(a["pix_fmt"] as? String, "yuv420p")
        for key in ["color_primaries", "color_transfer", "color_space"] { XCTAssertEqual(a[key] as? String, "bt709", key) }
        XCTAssertEqual(a["color_range"] as? String, "tv")
        for key in ["width", "height", "nb_frames"] { XCTAssertEqual("\(a[key] ?? "a")", "\(h[key] ?? "h")", key) }
        XCTAssertEqual(Double(a["duration"] as? String ?? "") ?? 0, Double(h["duration"] as? String ?? "") ?? 1, accuracy: 0.001)
        // The same pictures in the same order: the first, one in the middle and the last.
        let count = Int(h["nb_frames"] as? String ?? "") ?? 0
        XCTAssertGreaterThan(count, 30)
        let pictures = [0, count / 2, count - 1]
        let ours = try Support.lumaFrames(av1, indices: pictures), reference = try Support.lumaFrames(h264, indices: pictures)
        for (k, n) in pictures.enumerated() {
            let x = ours[k], y = reference[k]
            XCTAssertGreaterThan(Support.psnr(x, y), 35, "picture \(n)")
            if n > 0 { XCTAssertLessThan(Support.psnr(x, reference[0]), Support.psnr(x, y), "picture \(n)") }
        }
        // --crf and --encoder-preset take SVT-AV1's scales.
        let small = file("small.mp4")
        XCTAssertEqual(try Support.sdrify(input, small, "--preset", "640x480", "--codec", "av1", "--crf", "60", "--encoder-preset", "13").status, 0)
        XCTAssertLessThan(try size(small), try size(av1))
    }

    func size(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }

    /// QuickTime cannot hold AV1, SVT-AV1 takes no picture under 64 pixels a side (a file or a ladder's rung), and
    /// Passthrough writes no codec: exit 64, one line naming it, nothing written.
    func testAV1RefusedWhereItCannotGo() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=48x64:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("tiny.mp4")])
        let cases: [(args: [String], output: String, says: String)] = [
            ([Support.vector("orient_1.mp4"), file("out.mov"), "--codec", "av1"], "out.mov", "SVT-AV1 is written in .mp4, .m4v, not '.mov'"),
            (
                [file("tiny.mp4"), file("tiny-out.mp4"), "--codec", "av1"], "tiny-out.mp4",
                "SVT-AV1 encodes pictures of at least 64 pixels a side, not 48x64"
            ),
            (["hls", file("tiny.mp4"), file("ladder"), "--codec", "av1"], "ladder", "SVT-AV1 encodes pictures of at least 64 pixels a side"),
            (
                [Support.vector("orient_1.mp4"), file("copy.mp4"), "--preset", "Passthrough", "--codec", "av1"], "copy.mp4",
                "does not apply to Passthrough"
            )
        ]
        for c in cases {
            let r = try Support.sdrify(c.args)
            XCTAssertEqual(r.status, 64, "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: ") && r.stderr.contains(c.says) && r.stderr.filter { $0 == "\n" }.count == 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file(c.output)), c.output)
        }
    }

    /// A file damaged halfway: the conversion stops there with one line and no output. SVT-AV1 freed with pictures
    /// still inside complains on stderr ("deinit called without sending EOS"); the encoder is drained first.
    func testAV1StopsCleanlyOnDamageMidway() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", file("clean.mp4")])
        var data = try Data(contentsOf: URL(fileURLWithPath: file("clean.mp4")))
        let mdat = data.range(of: Data("mdat".utf8))!.upperBound
        for k in 0..<6 {  // bytes of the second half of the pictures scrambled
            let at = mdat + (data.count - mdat) * (55 + 7 * k) / 100
            for i in at..<min(at + 600, data.count) { data[i] = UInt8(truncatingIfNeeded: i &* 131 &+ 7) }
        }
        try data.write(to: URL(fileURLWithPath: file("damaged.mp4")))
        let r = try Support.sdrify(file("damaged.mp4"), file("out.mp4"), "--codec", "av1")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, r.stderr)
        XCTAssertFalse(r.stderr.contains("Svt["), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.mp4")))
    }
}
