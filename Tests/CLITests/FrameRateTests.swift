import Foundation
import XCTest

/// A size preset writes at most 60 pictures per second (issue 57): a 120 or 240 fps capture keeps every 2nd or 4th
/// picture on an exact clock, its length unchanged; `--fps source` keeps the source's rate; `--fps N` above the source's
/// says that pictures repeat. ffmpeg reads the outputs (rates, counts, lengths) and the pictures are compared with the
/// source's own.
final class FrameRateTests: CLITestCase {
    /// A lossless BT.709 clip at `fps` (tagged, so that its pictures come out as they went in: an untagged small
    /// picture is read as BT.601).
    func highRateClip(_ fps: Int) throws -> String {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=\(fps):d=1", "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
            "-color_range", "tv", "-colorspace", "bt709", "-color_trc", "bt709", "-color_primaries", "bt709", "-c:v", "libx264", "-preset",
            "ultrafast", "-qp", "0", file("hi\(fps).mp4")
        ])
        return file("hi\(fps).mp4")
    }

    func stream(_ path: String) throws -> [String: Any] { Support.streams(try Support.ffprobe(path), "video").first ?? [:] }

    func testHighRatesAreThinnedToTheCeilingUnlessTheSourceIsAsked() throws {
        for (fps, every, expected) in [(240, 4, "60/1"), (120, 2, "60/1"), (100, 2, "50/1")] {
            let input = try highRateClip(fps)
            let out = file("out\(fps).mp4")
            let r = try Support.sdrify(input, out, "--preset", "960x540", "--crf", "0", "--json")
            XCTAssertEqual(r.status, 0, r.stderr)
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            let rate = report["frame_rate"] as? [String: Any] ?? [:]
            XCTAssertEqual(rate["source"] as? String, "\(fps)")
            XCTAssertTrue((rate["rule"] as? String ?? "").contains("at most 60"), "\(rate)")
            let s = try stream(out)
            XCTAssertEqual(s["r_frame_rate"] as? String, expected, "\(fps) fps")
            XCTAssertEqual(Int(s["nb_frames"] as? String ?? ""), fps / every, "\(fps) fps: one picture in \(every)")
            XCTAssertEqual(Double(s["duration"] as? String ?? "") ?? 0, 1, accuracy: 1.0 / Double(fps / every), "the length unchanged")
            // Output picture n is the source's picture n × every (not its neighbour).
            let pictures = [1, 7]
            let ours = try Support.rawFrames(out, indices: pictures, pixelFormat: "gray")
            let theirs = try Support.rawFrames(input, indices: pictures.flatMap { [$0 * every, $0 * every + 1] }, pixelFormat: "gray")
            for (k, n) in pictures.enumerated() {
                let a = ours[k], same = theirs[2 * k], next = theirs[2 * k + 1]
                XCTAssertGreaterThan(Support.psnr(a, same), 45, "\(fps) fps, picture \(n)")
                XCTAssertGreaterThan(Support.psnr(a, same), Support.psnr(a, next) + 3, "\(fps) fps, picture \(n) is the \(n * every)th")
            }
        }
        // --fps source keeps the 240; the report says so.
        let kept = try Support.sdrify(file("hi240.mp4"), file("kept.mp4"), "--preset", "960x540", "--fps", "source", "--json")
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual(try stream(file("kept.mp4"))["r_frame_rate"] as? String, "240/1")
        XCTAssertEqual(Int(try stream(file("kept.mp4"))["nb_frames"] as? String ?? ""), 240)
        // A 60 fps source and a 30 fps one keep their own timing.
        let sixty = try highRateClip(60)
        XCTAssertEqual(try Support.sdrify(sixty, file("60.mp4"), "-q").status, 0)
        XCTAssertEqual(Int(try stream(file("60.mp4"))["nb_frames"] as? String ?? ""), 60)
    }

    func testAnAskedRateAboveTheSourcesSaysPicturesRepeat() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file("30.mp4")
        ])
        let up = try Support.sdrify(file("30.mp4"), file("up.mp4"), "--fps", "240")
        XCTAssertEqual(up.status, 0, up.stderr)
        XCTAssertTrue(up.stderr.contains("warning: --fps 240 is above the source's 30 fps: pictures are repeated"), up.stderr)
        XCTAssertEqual(Int(try stream(file("up.mp4"))["nb_frames"] as? String ?? ""), 240)
        let down = try Support.sdrify(file("30.mp4"), file("down.mp4"), "--fps", "24")
        XCTAssertFalse(down.stderr.contains("repeated"), down.stderr)
        let bad = try Support.sdrify(file("30.mp4"), file("bad.mp4"), "--fps", "sauce")
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("or source"), bad.stderr)
    }

    /// probe names the gain map of an Ultra HDR JPEG: the shared Pixel photo's, and sdrify's own `--gain-map` still's.
    func testProbeNamesAJPEGsGainMap() throws {
        let still = file("still.jpg")
        XCTAssertEqual(try Support.sdrify("thumbnail", Support.vector("pq_hevc_hdr10.mp4"), still, "--gain-map", "-q").status, 0)
        let ours = try Support.sdrify("probe", still)
        XCTAssertTrue(ours.stdout.contains("holds: gain map (Ultra HDR / ISO 21496-1, up to ×"), ours.stdout + ours.stderr)
        let json = try Support.sdrify("probe", still, "--json")
        XCTAssertTrue(json.stdout.contains("gain map (Ultra HDR"), json.stdout)
        let plain = try Support.sdrify("probe", Support.vector("roundtrip_reference.png"))
        XCTAssertFalse(plain.stdout.contains("gain map"), plain.stdout)
        guard RealMediaTests.present() else { return }
        let pixel = try Support.sdrify("probe", RealMediaTests.folder.appendingPathComponent("androidx_ultraHDR.jpg").path)
        XCTAssertTrue(pixel.stdout.contains("gain map (Ultra HDR / ISO 21496-1, up to ×2.10"), pixel.stdout)
        let apple = try Support.sdrify("probe", RealMediaTests.folder.appendingPathComponent("libavif_apple_gainmap_old.jpg").path)
        XCTAssertTrue(apple.stdout.contains("gain map (a second picture"), apple.stdout)
    }

    /// The rate a clip was shot at is the one rule probe, HLS's FRAME-RATE and the encoder use: a 30 fps recording
    /// that dropped pictures (its timestamps keep the gaps) is 30 fps, its average said as such.
    func testARecordingThatDroppedPicturesKeepsItsNominalRate() throws {
        let vfr = file("dropped.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=2", "-vf", "select='not(between(n\\,5\\,9)+between(n\\,30\\,36))'",
            "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", vfr
        ])
        let probe = try Support.sdrify("probe", vfr, "--json")
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let video = (try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any])?["video"] as? [String: Any] ?? [:]
        XCTAssertEqual(video["frame_rate"] as? Double, 30)
        XCTAssertLessThan(video["average_frame_rate"] as? Double ?? 99, 29, "the average is said as such: \(video)")
        let summary = try Support.sdrify("probe", vfr)
        XCTAssertTrue(summary.stdout.contains("30.000 fps ("), summary.stdout)
        XCTAssertTrue(summary.stdout.contains("on average)"), summary.stdout)
        let hls = try Support.sdrify("hls", vfr, file("ladder"), "--ladder", "180", "-q")
        XCTAssertEqual(hls.status, 0, hls.stderr)
        let master = try String(contentsOfFile: file("ladder/master.m3u8"), encoding: .utf8)
        XCTAssertTrue(master.contains("FRAME-RATE=30.000"), master)
    }

    /// HDR metadata probe ignores is shown as ignored, never as a value it then prints.
    func testIgnoredMasteringDisplayIsShownAsIgnored() throws {
        let clip = file("bad_md.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=0.2", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
            "-colorspace", "bt2020nc", "-c:v", "libx265", "-x265-params",
            "log-level=error:hdr10=1:master-display=G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(1000,50)", clip
        ])
        let r = try Support.sdrify("probe", clip)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("malformed mastering-display metadata (max luminance 0.1 cd/m² is outside 50–10000): ignored"), r.stderr)
        XCTAssertTrue(r.stdout.contains("mastering display: ignored (max luminance 0.1"), r.stdout)
        XCTAssertFalse(r.stdout.contains("0.0050–0.1 cd/m²"), "not printed as a value: \(r.stdout)")
    }
}
