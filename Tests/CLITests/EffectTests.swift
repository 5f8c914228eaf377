import Foundation
import XCTest

/// Effects as layers (issue 15, first part), what only the command shows: their descriptions' errors (exit 64, the
/// JSON path named, nothing written) and titles drawn in the output. Where and when each effect acts is checked on the
/// rendered pictures in-process (SDRifyTests.EffectRenderTests).
final class EffectTests: CLITestCase {
    /// A 320x240 clip, 2 s at 10 fps.
    func source() throws -> String {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10", "-t", "2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("src.mp4")
        ])
        return file("src.mp4")
    }

    func testBadEffectDescriptionsAreRefusedWithTheirPath() throws {
        let clip = try source()
        let cases: [(String, String)] = [
            (#"{"effects": [{"type": "swirl"}]}"#, "$.effects[0].type"),
            (#"{"effects": [{"type": "blur", "block": 4}]}"#, "$.effects[0].block"),
            (#"{"effects": [{"type": "pixelate", "region": {"x": 300, "y": 0, "width": 100, "height": 10}}]}"#, "$.effects[0].region"),
            (#"{"effects": [{"type": "vortex", "keyframes": [{"t": 1, "angle": 10}, {"t": 0.5, "angle": 0}]}]}"#, "$.effects[0].keyframes[1].t"),
            (#"{"effects": [{"type": "adjust", "keyframes": [{"t": 0, "easing": "bounce"}]}]}"#, "$.effects[0].keyframes[0].easing"),
            (#"{"effects": [{"type": "sepia", "strength": 3}]}"#, "$.effects[0].strength"),
            (#"{"effects": [{"type": "pointillize", "size": 1}]}"#, "$.effects[0].size"),
            (#"{"effects": [{"type": "pointillize", "background": "paper"}]}"#, "$.effects[0].background"),
            (##"{"effects": [{"type": "blur", "background": "#FFFFFF"}]}"##, "$.effects[0].background")
        ]
        for (json, path) in cases {
            try json.write(toFile: file("bad.json"), atomically: true, encoding: .utf8)
            let r = try Support.sdrify(clip, file("bad.mp4"), "--overlays", file("bad.json"))
            XCTAssertEqual(r.status, 64, "\(json): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(path), "\(json): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
        }
    }

    func testTitlesShowInTheirPlaceAndTimeOnly() throws {
        try #"{"titles": [{"text": "HELLO", "start": 0.4, "end": 0.8, "position": "bottom-center", "size": "10%"}]}"#
            .write(toFile: file("titles.json"), atomically: true, encoding: .utf8)
        let out = file("title.mp4")
        let r = try Support.sdrify(
            "compose", "color:#000000:1", "--fps", "30", "--preset", "640x480", "--output", out,
            "--overlays", file("titles.json"))
        XCTAssertEqual(r.status, 0, r.stderr)
        func maxLuma(_ n: Int, rows: Range<Int>) throws -> Int {
            let bytes = try Support.rawFrame(out, index: n, pixelFormat: "gray")  // 640x480
            return rows.map { (y: Int) -> Int in Int(bytes[y * 640..<(y + 1) * 640].max() ?? 0) }.max() ?? 0
        }
        XCTAssertGreaterThan(try maxLuma(18, rows: 360..<480), 200, "white text in the bottom band at 0.6 s")
        XCTAssertLessThan(try maxLuma(18, rows: 0..<300), 30, "nothing above it")
        XCTAssertLessThan(try maxLuma(6, rows: 0..<480), 30, "not yet at 0.2 s")
        XCTAssertLessThan(try maxLuma(27, rows: 0..<480), 30, "gone at 0.9 s")
        try #"{"titles": [{"text": "x", "position": "middle"}]}"#.write(toFile: file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try Support.sdrify("compose", "color:#000000:1", "--output", file("bad.mp4"), "--overlays", file("bad.json"))
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("$.titles[0].position"), bad.stderr)
    }
}
