import Foundation
import XCTest

/// Timed metadata end to end on files our own writer made (scripts/add-telemetry-track.py: a GoPro GPMF track
/// and a QuickTime 'mebx' track with a location key, which ffmpeg cannot write): probe lists them, the samples
/// read back as written, and a title follows the telemetry.
final class TelemetryTests: CLITestCase {
    /// `base` (ffmpeg, movie box last) with a telemetry track added; returns the sidecar of what was written.
    func withTrack(_ kind: String, base: String, out: String, seconds: Int) throws -> [String: Any] {
        let script = Support.packageRoot.appendingPathComponent("scripts/add-telemetry-track.py").path
        let r = try Support.run(Support.tool("python3"), [script, file(base), file(out), kind, String(seconds), file(out + ".json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: URL(fileURLWithPath: file(out + ".json")))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func timedLines(_ args: [String]) throws -> [[String: Any]] {
        let r = try Support.sdrify(["probe"] + args + ["--timed-metadata"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdout.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func testGPMFTrackIsListedAndItsGPSReadsBackAsWritten() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000",
            "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", file("base.mp4")
        ])
        let written = try withTrack("gpmf", base: "base.mp4", out: "gopro.mp4", seconds: 3)
        let probe = try JSONSerialization.jsonObject(with: try Support.sdrify("probe", file("gopro.mp4"), "--json").stdoutData) as? [String: Any]
        let gpmd = (probe?["streams"] as? [[String: Any]] ?? []).filter { $0["codec_tag_string"] as? String == "gpmd" }
        XCTAssertEqual(gpmd.count, 1)
        XCTAssertEqual(gpmd.first?["kind"] as? String, "GPMF telemetry")
        XCTAssertEqual(gpmd.first?["index"] as? Int, 2)

        let lines = try timedLines([file("gopro.mp4"), "--track", "2"])
        let samples = try XCTUnwrap(written["samples"] as? [[String: Any]])
        XCTAssertEqual(lines.count, samples.count, "ten positions a second for three seconds")
        for (line, sample) in zip(lines, samples) {
            XCTAssertEqual(line["key"] as? String, "gps")
            XCTAssertEqual(line["t"] as? Double ?? -1, sample["t"] as? Double ?? 0, accuracy: 1e-6)
            let value = try XCTUnwrap(line["value"] as? [String: Double])
            let row = try XCTUnwrap(sample["gps"] as? [Double])
            for (i, (name, tolerance)) in [
                ("latitude", 1e-7), ("longitude", 1e-7), ("altitude_m", 1e-3), ("speed_2d_mps", 1e-3),
                ("speed_3d_mps", 1e-2)
            ].enumerated() {
                XCTAssertEqual(value[name] ?? .nan, row[i], accuracy: tolerance, "\(name) at \(sample["t"] ?? "?")")
            }
        }
    }

    func testQuickTimeLocationTrackReadsBackByItsDeclaredTypes() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("base.mov")])
        let written = try withTrack("mebx", base: "base.mov", out: "phone.mov", seconds: 3)
        let probe = try JSONSerialization.jsonObject(with: try Support.sdrify("probe", file("phone.mov"), "--json").stdoutData) as? [String: Any]
        let mebx = (probe?["streams"] as? [[String: Any]] ?? []).filter { $0["codec_tag_string"] as? String == "mebx" }
        XCTAssertEqual(mebx.first?["metadata_keys"] as? [String], ["com.apple.quicktime.location.ISO6709", "com.example.speed"])

        let lines = try timedLines([file("phone.mov")])
        let samples = try XCTUnwrap(written["samples"] as? [[String: Any]])
        XCTAssertEqual(lines.count, 2 * samples.count, "a location and a speed each second")
        for sample in samples {
            let t = sample["t"] as? Double ?? -1
            let atT = lines.filter { abs(($0["t"] as? Double ?? -9) - t) < 1e-6 }
            let location = try XCTUnwrap(atT.first { $0["key"] as? String == "com.apple.quicktime.location.ISO6709" }?["value"] as? [String: Double])
            let expected = try XCTUnwrap(sample["location"] as? [Double])
            XCTAssertEqual(location["latitude"] ?? .nan, expected[0], accuracy: 1e-4)
            XCTAssertEqual(location["longitude"] ?? .nan, expected[1], accuracy: 1e-4)
            XCTAssertEqual(location["altitude_m"] ?? .nan, expected[2], accuracy: 1e-3)
            let speed = try XCTUnwrap(atT.first { $0["key"] as? String == "com.example.speed" }?["value"] as? Double)
            XCTAssertEqual(speed, sample["speed"] as? Double ?? .nan, accuracy: 1e-5, "a 32-bit float")
            XCTAssertEqual(atT.first?["duration"] as? Double ?? 0, 1, accuracy: 1e-6)
        }
    }

    /// "{speed_kmh:.0f} km/h" from the GPMF track: 9 km/h at 0.5 s, 45 km/h at 2.5 s, drawn only where the title is.
    func testTitleFollowsTheGPMFSpeed() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("base.mp4")])
        _ = try withTrack("gpmf", base: "base.mp4", out: "gopro.mp4", seconds: 3)
        try Data(#"{"titles": [{"text": "{speed_kmh:.0f} km/h", "source": "track:1", "position": "bottom-right", "size": "12%"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file("t.json")))
        let r = try Support.sdrify(file("gopro.mp4"), file("out.mp4"), "--overlays", file("t.json"), "--crf", "4")
        XCTAssertEqual(r.status, 0, r.stderr)
        func luma(_ n: Int) throws -> [UInt8] { Array(try Support.rawFrame(file("out.mp4"), index: n, pixelFormat: "yuv420p").prefix(320 * 240)) }
        let early = try luma(15), late = try luma(75),
            plain = Array(try Support.rawFrame(file("base.mp4"), index: 15, pixelFormat: "yuv420p").prefix(320 * 240))
        guard early.count == 320 * 240, late.count == early.count, plain.count == early.count else { return XCTFail("frames missing") }
        let drawn = (0..<early.count).filter { abs(Int(early[$0]) - Int(plain[$0])) > 30 }
        XCTAssertGreaterThan(drawn.count, 100, "the speed is drawn")
        XCTAssertTrue(drawn.allSatisfy { $0 % 320 >= 160 && $0 / 320 >= 120 }, "in the bottom-right corner only")
        let changed = (0..<early.count).filter { abs(Int(early[$0]) - Int(late[$0])) > 30 }
        XCTAssertGreaterThan(changed.count, 30, "9 km/h then 45 km/h: different text")
    }

    /// At twice the speed a data title shows, at each output time, the value of the input time it shows: output
    /// picture 37 (input second 74/30) has what a plain conversion has in picture 74.
    func testDataTitleFollowsASpeedChange() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("base.mp4")])
        _ = try withTrack("gpmf", base: "base.mp4", out: "gopro.mp4", seconds: 3)
        try Data(#"{"titles": [{"text": "{speed_kmh:.0f} km/h", "source": "track:1", "position": "bottom-right", "size": "12%"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file("t.json")))
        for (name, extra) in [("plain.mp4", [String]()), ("fast.mp4", ["--speed", "2", "--fps", "30"])] {
            let r = try Support.sdrify([file("gopro.mp4"), file(name), "--overlays", file("t.json"), "--crf", "4"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        func corner(_ path: String, _ n: Int) throws -> [UInt8] { try Support.lumaFrame(path, index: n, filter: "crop=160:120:160:120") }
        let fast = try corner(file("fast.mp4"), 37), sameValue = try corner(file("plain.mp4"), 74), sameTime = try corner(file("plain.mp4"), 37)
        XCTAssertGreaterThan(Support.psnr(fast, sameValue), 30, "the value of input picture 74")
        XCTAssertLessThan(Support.psnr(fast, sameTime), Support.psnr(fast, sameValue) - 5, "not the value of input picture 37")
    }

    /// `--metadata keep` carries the GPMF and 'mebx' tracks into the output (their sample descriptions, keys
    /// included), so probe reads the same values back; a cut and a speed retime them; without it they are left out.
    /// The output still plays in ffmpeg and keeps its movie box first.
    func testMetadataKeepCarriesTheTimedMetadataTracks() throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000", "-t", "4",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", file("base.mp4")
        ])
        for kind in ["gpmf", "mebx"] {
            _ = try withTrack(kind, base: "base.mp4", out: "\(kind).mp4", seconds: 4)
            let source = try timedLines([file("\(kind).mp4")])
            XCTAssertFalse(source.isEmpty)
            var r = try Support.sdrify(file("\(kind).mp4"), file("\(kind)-kept.mp4"), "--metadata", "keep")
            XCTAssertEqual(r.status, 0, r.stderr)
            let kept = try timedLines([file("\(kind)-kept.mp4")])
            XCTAssertEqual(kept.count, source.count, kind)
            for (a, b) in zip(source, kept) {
                XCTAssertEqual(a["key"] as? String, b["key"] as? String, kind)
                XCTAssertEqual(a["t"] as? Double ?? -1, b["t"] as? Double ?? -2, accuracy: 0.001, kind)
                XCTAssertEqual(a["value"] as? NSObject, b["value"] as? NSObject, kind)
            }
            XCTAssertEqual(try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("\(kind)-kept.mp4"), "-f", "null", "-"]).status, 0)
            let head = try Data(contentsOf: URL(fileURLWithPath: file("\(kind)-kept.mp4"))).prefix(64)
            XCTAssertNotNil(head.range(of: Data("moov".utf8)), "\(kind): fast start kept")
            // Input seconds 1–3 at twice the speed: a value at input time t shows at (t − 1) / 2.
            r = try Support.sdrify(
                file("\(kind).mp4"), file("\(kind)-cut.mp4"), "--metadata", "keep", "--start", "1", "--duration", "2", "--speed", "2")
            XCTAssertEqual(r.status, 0, r.stderr)
            let cut = try timedLines([file("\(kind)-cut.mp4")])
            let expected = source.filter {
                ($0["t"] as? Double ?? -1) + ($0["duration"] as? Double ?? 0) > 1.000_001 && ($0["t"] as? Double ?? 9) < 2.999_999
            }
            XCTAssertEqual(cut.count, expected.count, kind)
            for (a, b) in zip(expected, cut) {
                XCTAssertEqual(max(0, ((a["t"] as? Double ?? 0) - 1) / 2), b["t"] as? Double ?? -1, accuracy: 0.001, kind)
                XCTAssertEqual(a["value"] as? NSObject, b["value"] as? NSObject, kind)
            }
            r = try Support.sdrify(file("\(kind).mp4"), file("\(kind)-minimal.mp4"))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(try timedLines([file("\(kind)-minimal.mp4")]).isEmpty, "\(kind): left out by default")
        }
    }
}
