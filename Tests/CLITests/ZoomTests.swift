import Foundation
@testable import SDRifyLayers
@testable import SDRifyTimeline
import XCTest

/// A clip's `"zoom"` (Ken Burns): the view's path, the pictures it gives against ffmpeg's crop and scale of the same
/// photo, and its bad values.
final class ZoomTests: CLITestCase {
    func testTheViewMovesEvenlyAndStaysInsideThePicture() {
        var zoom = Zoom()
        zoom.from = Zoom.View(scale: 1)
        zoom.to = Zoom.View(scale: 4, x: 0.9, y: 0.1)
        XCTAssertEqual(zoom.view(at: 0), Zoom.View(scale: 1, x: 0.5, y: 0.5))
        // Scales change by the same ratio each step: halfway between 1 and 4 is 2.
        XCTAssertEqual(zoom.view(at: 0.5).scale, 2, accuracy: 1e-12)
        // At 4× the window is a quarter wide: its centre stays at least 1/8 from the edges.
        let end = zoom.view(at: 1)
        XCTAssertEqual(end.scale, 4, accuracy: 1e-12)
        XCTAssertEqual(end.x, 0.875, accuracy: 1e-12)
        XCTAssertEqual(end.y, 0.125, accuracy: 1e-12)
        zoom.easing = .easeInOut
        XCTAssertEqual(zoom.view(at: 0.25).scale, exp(log(4.0) * Easing.easeInOut.apply(0.25)), accuracy: 1e-12)
    }

    /// A photo zoomed from the whole picture to 2× on its upper left: the first picture is the photo, the last one
    /// is ffmpeg's crop of that window scaled up (bilinear), and the ones between move smoothly.
    func testAPhotoZoomsIntoItsWindow() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360", "-frames:v", "1", file("photo.png")])
        let edit = """
            {"output": {"preset": "640x480", "fps": 30}, "clips": [{"image": "\(file("photo.png"))", "duration": 1,
             "zoom": {"from": 1, "to": {"scale": 2, "x": 0.25, "y": 0.3}}}]}
            """
        try edit.write(toFile: file("z.json"), atomically: true, encoding: .utf8)
        let r = try Support.sdrify("compose", "--timeline", file("z.json"), "--output", file("z.mp4"), "--crf", "12")
        XCTAssertEqual(r.status, 0, r.stderr)
        let steps = Array(stride(from: 3, through: 27, by: 3))
        let shown = try Support.lumaFrames(file("z.mp4"), indices: [0, 29] + steps)
        let first = shown[0], last = shown[1]
        let asVideo = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"  // the photo's Y' as sdrify makes it
        XCTAssertGreaterThan(Support.psnr(first, try Support.lumaFrame(file("photo.png"), index: 0, filter: asVideo)), 35, "scale 1: the photo")
        // The window: 320x180 centred on (160, 108): from (0, 18).
        let window = try Support.lumaFrame(file("photo.png"), index: 0, filter: "crop=320:180:0:18,scale=640:360:flags=bilinear,\(asVideo)")
        XCTAssertGreaterThan(Support.psnr(last, window), 30, "scale 2 on the upper left")
        XCTAssertLessThan(Support.psnr(last, first), 20, "it has moved")
        // Smooth: every step moves (no picture repeated) and none jumps (no step far larger than the others).
        let moves = zip(shown.dropFirst(2), [first] + shown.dropFirst(2).dropLast()).map { Support.psnr($0, $1) }
        XCTAssertEqual(moves.count, steps.count)
        XCTAssertGreaterThan(moves.min() ?? 0, (moves.max() ?? 0) - 4, "steps \(moves)")
        XCTAssertLessThan(moves.max() ?? 99, 40, "steps \(moves)")
    }

    func testBadZoomsAreUsageErrors() throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", file("p.png")])
        for (zoom, path) in [
            (#"{"to": 0.5}"#, "$.clips[0].zoom.to"), (#"{"to": {"scale": 2, "x": 1.5}}"#, "$.clips[0].zoom.to.x"),
            (#"{"from": 1, "easing": "bouncy"}"#, "$.clips[0].zoom.easing"), (#"{"pan": 1}"#, "$.clips[0].zoom")
        ] {
            let edit = #"{"clips": [{"image": "\#(file("p.png"))", "zoom": \#(zoom)}]}"#
            try edit.write(toFile: file("bad.json"), atomically: true, encoding: .utf8)
            let r = try Support.sdrify("compose", "--timeline", file("bad.json"), "--output", file("bad.mp4"))
            XCTAssertEqual(r.status, 64, "\(zoom): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(path), "\(zoom): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
        }
        try ##"{"clips": [{"color": "#000000", "zoom": 2}]}"##.write(toFile: file("c.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try Support.sdrify("compose", "--timeline", file("c.json"), "--output", file("c.mp4")).status, 64)
    }
}
