import Foundation
import SDRifyMeasure
import XCTest

/// The measured-fidelity test: SDR pictures lifted into HDR as ITU-R BT.2408 describes
/// (scripts/make-roundtrip-vectors.py), converted back by sdrify's default operator at --crf 10, and compared
/// with the originals in BT.709 display light over 4×4 blocks in CIEDE2000.
final class RoundTripTests: XCTestCase {
    func roundTrip(_ kind: String, extra: [String] = []) throws -> RoundTripScore {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("\(kind).mp4").path
        let r = try Support.sdrify([Support.vector("roundtrip_\(kind).mp4"), output, "--preset", "HighestQuality", "--crf", "10", "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let probe = Support.streams(try Support.ffprobe(output), "video").first ?? [:]
        for key in ["color_primaries", "color_transfer", "color_space"] { XCTAssertEqual(probe[key] as? String, "bt709") }
        XCTAssertEqual(probe["color_range"] as? String, "tv")
        let frames = try Support.run(Support.tool("ffprobe"), ["-v", "error", "-show_frames", "-of", "json", output])
        XCTAssertFalse(frames.stdout.contains("Mastering display"), "no mastering metadata left")
        XCTAssertFalse(frames.stdout.contains("Content light level"), "no light-level metadata left")

        let yuv = try Support.rawFrame(output, index: 1, pixelFormat: "yuv420p")
        let reference = try Support.rawFrame(Support.vector("roundtrip_reference.png"), index: 0, pixelFormat: "rgb24")
        let layout = try RoundTripLayout.load(Support.vector("roundtrip_layout.json"))
        let score = RoundTrip.score(yuv: yuv, reference: reference, layout: layout, kind: kind)
        print("round trip \(kind) \(extra): \(score.summary)")
        return score
    }

    func assertFidelity(_ s: RoundTripScore, _ kind: String) {
        XCTAssertLessThanOrEqual(s.meanDE, 1.5, "\(kind): mean CIEDE2000 of photographic areas")
        XCTAssertLessThanOrEqual(s.p95DE, 4.0, "\(kind): 95th percentile")
        XCTAssertTrue(s.rampMonotonic, "\(kind): ramp monotonic")
        XCTAssertLessThanOrEqual(s.rampMaxSpread, 2, "\(kind): ramp neutral (R, G, B within 2 codes)")
        XCTAssertGreaterThanOrEqual(s.rampLevelsAbove200, 20, "\(kind): highlight levels above 200 cd/m² (no flat clip)")
        for (name, error) in s.patchHueError { XCTAssertLessThan(error, 10, "\(kind): \(name) patch hue off by \(error)°") }
        XCTAssertEqual(s.patchInvalidPixels, 0, "\(kind): no black/NaN artefacts in the patches")
    }

    func testPQRoundTrip() throws { assertFidelity(try roundTrip("pq"), "pq") }
    func testHLGRoundTrip() throws { assertFidelity(try roundTrip("hlg"), "hlg") }

    /// The scene-adaptive default is deterministic: the same pictures with one thread or two (lossless output,
    /// so only the colour stage could differ).
    func testSceneAdaptiveOutputIsTheSameWhateverTheThreads() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var hashes: [String] = []
        for threads in ["1", "2"] {
            let output = dir.appendingPathComponent("t\(threads).mp4").path
            let r = try Support.sdrify([
                Support.vector("sample_hlg_portrait.mov"), output, "--preset", "640x480",
                "--crf", "0", "--threads", threads, "--quiet"
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
            let md5 = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", output, "-f", "framemd5", "-"])
            hashes.append(
                md5.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }.joined(
                    separator: " "))
        }
        XCTAssertFalse(hashes[0].isEmpty)
        XCTAssertEqual(hashes[0], hashes[1])
    }

    /// The hard clip at reference white is the floor the 4:2:0 HDR source itself sets: it must score better on
    /// SDR content than the default and flatten the highlights, or the measurement is not measuring anything.
    func testHardClipIsTheFloorAndFlattensHighlights() throws {
        let clip = try roundTrip("pq", extra: ["--tonemap", "clip"])
        let hable = try roundTrip("pq", extra: ["--tonemap", "hable"])
        XCTAssertLessThan(clip.meanDE, 1.2)
        XCTAssertLessThan(clip.rampLevelsAbove200, 5)
        XCTAssertGreaterThan(hable.meanDE, 3, "a dark filmic curve is measurably worse on SDR content")
    }
}
