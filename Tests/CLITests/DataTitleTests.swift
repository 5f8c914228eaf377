import Foundation
import XCTest

/// Titles filled from a GPX file or a timed-metadata track of the input, drawn where they are asked for.
final class DataTitleTests: CLITestCase {
    func testGPXTitleChangesWithTheRideAndTrackSourcesNeedConvert() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let points = (0..<4).map { i in
            "<trkpt lat=\"\(51.5 + Double(i) * 0.001)\" lon=\"-0.1\"><ele>\(100 * i)</ele><time>2026-05-01T10:00:0\(i)Z</time></trkpt>"
        }.joined()
        try Data("<gpx><trk><trkseg>\(points)</trkseg></trk></gpx>".utf8).write(to: URL(fileURLWithPath: file("ride.gpx")))
        try Data(#"{"titles": [{"text": "{altitude_m:.0f} m", "source": "gpx:ride.gpx", "position": "top-left", "size": "12%"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file("t.json")))
        let r = try Support.sdrify(file("grey.mp4"), file("out.mp4"), "--overlays", file("t.json"), "--crf", "4")
        XCTAssertEqual(r.status, 0, r.stderr)
        func luma(_ n: Int) throws -> [UInt8] { Array(try Support.rawFrame(file("out.mp4"), index: n, pixelFormat: "yuv420p").prefix(320 * 240)) }
        let a = try luma(15), b = try luma(75)
        XCTAssertEqual(a.count, 320 * 240)
        guard a.count == 320 * 240, b.count == a.count else { return }
        let changed = (0..<(320 * 240)).filter { abs(Int(a[$0]) - Int(b[$0])) > 20 }
        XCTAssertGreaterThan(changed.count, 30, "50 m at 0.5 s, 250 m at 2.5 s: different text")
        XCTAssertTrue(changed.allSatisfy { $0 % 320 < 160 && $0 / 320 < 80 }, "only in the title's top-left place")
        // A track source reads convert's input: compose has none; a track that is not timed metadata is refused.
        try Data(#"{"titles": [{"text": "{x}", "source": "track:0"}]}"#.utf8).write(to: URL(fileURLWithPath: file("track.json")))
        let compose = try Support.sdrify("compose", file("grey.mp4"), "--output", file("c.mp4"), "--overlays", file("track.json"))
        XCTAssertEqual(compose.status, 64, compose.stderr)
        let video = try Support.sdrify(file("grey.mp4"), file("v.mp4"), "--overlays", file("track.json"))
        XCTAssertEqual(video.status, 64, video.stderr)
        try Data(#"{"titles": [{"text": "{speed_kmh} {nope}", "source": "gpx:ride.gpx"}]}"#.utf8).write(to: URL(fileURLWithPath: file("bad.json")))
        let missing = try Support.sdrify(file("grey.mp4"), file("m.mp4"), "--overlays", file("bad.json"))
        XCTAssertEqual(missing.status, 64, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("'nope'"), missing.stderr)
        for f in ["c.mp4", "v.mp4", "m.mp4"] { XCTAssertFalse(FileManager.default.fileExists(atPath: file(f))) }
    }

    /// The iPhone clip's orientation track (value 6) drawn as a title.
    func testTrackSourceFromTheInput() throws {
        let path = RealMediaTests.folder.appendingPathComponent("androidx_dolbyVision-hdr.MOV").path
        guard RealMediaTests.present() else { return }
        try Data(
            ##"{"titles": [{"text": "{video-orientation:.0f}", "source": "track:2", "position": "center", "size": "30%", "box_color": "#000000"}]}"##
                .utf8
        )
        .write(to: URL(fileURLWithPath: file("t.json")))
        let with = try Support.sdrify(path, file("with.mp4"), "--overlays", file("t.json"), "--crf", "4")
        XCTAssertEqual(with.status, 0, with.stderr)
        XCTAssertEqual(try Support.sdrify(path, file("without.mp4"), "--crf", "4").status, 0)
        let a = try Support.rawFrame(file("with.mp4"), index: 1, pixelFormat: "yuv420p").prefix(720 * 1280)
        let b = try Support.rawFrame(file("without.mp4"), index: 1, pixelFormat: "yuv420p").prefix(720 * 1280)
        XCTAssertEqual(a.count, 720 * 1280)
        let changed = zip(a, b).enumerated().filter { abs(Int($0.element.0) - Int($0.element.1)) > 30 }.map(\.offset)
        XCTAssertGreaterThan(changed.count, 1000, "the value drawn in its box")
        XCTAssertTrue(changed.allSatisfy { abs($0 / 720 - 640) < 300 }, "in the middle")
    }
}
