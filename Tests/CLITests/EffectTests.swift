import Foundation
import XCTest

/// Effects as layers (issue 15, first part): where and when each acts, and the errors of their description.
final class EffectTests: CLITestCase {
    /// A detailed 320x240 clip (2 s at 10 fps) and its lossless conversion without effects, as the reference.
    func source() throws -> (clip: String, plain: String) {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10", "-t", "2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("src.mp4")
        ])
        let r = try Support.sdrify(file("src.mp4"), file("plain.mp4"), "--crf", "0", "--preset", "640x480")
        XCTAssertEqual(r.status, 0, r.stderr)
        return (file("src.mp4"), file("plain.mp4"))
    }

    func withEffects(_ json: String, _ clip: String) throws -> String {
        try json.write(toFile: file("fx.json"), atomically: true, encoding: .utf8)
        let out = file("fx.mp4")
        let r = try Support.sdrify(clip, out, "--crf", "0", "--preset", "640x480", "--overlays", file("fx.json"), "--overwrite")
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    /// Luma of frame `n` as rows.
    func luma(_ path: String, _ n: Int) throws -> [[UInt8]] {
        let bytes = try Support.rawFrame(path, index: n, pixelFormat: "gray")
        return (0..<240).map { Array(bytes[$0 * 320..<($0 + 1) * 320]) }
    }

    /// Mean absolute second difference along rows over a rectangle: high-frequency energy (a gradient has none).
    func detail(_ rows: [[UInt8]], x: Range<Int>, y: Range<Int>) -> Double {
        var sum = 0, n = 0
        for r in y { for c in x.dropFirst().dropLast() { sum += abs(Int(rows[r][c + 1]) - 2 * Int(rows[r][c]) + Int(rows[r][c - 1])); n += 1 } }
        return Double(sum) / Double(n)
    }

    func same(_ a: [[UInt8]], _ b: [[UInt8]], x: Range<Int>, y: Range<Int>) -> Bool {
        y.allSatisfy { r in x.allSatisfy { a[r][$0] == b[r][$0] } }
    }

    func testPixelateMakesBlocksInsideItsRegionAndTimeOnly() throws {
        let (clip, plain) = try source()
        let out = try withEffects(
            #"{"effects": [{"type": "pixelate", "block": 16, "start": 0.5, "end": 1.5, "region": {"x": 32, "y": 32, "width": 128, "height": 96}}]}"#,
            clip)
        let inside = try luma(out, 10), reference = try luma(plain, 10)
        // Every 16x16 block from the region's corner is flat (lossless output: exactly).
        for by in stride(from: 32, to: 128, by: 16) {
            for bx in stride(from: 32, to: 160, by: 16) {
                let values = Set((by..<by + 16).flatMap { r in inside[r][bx..<bx + 16] })
                XCTAssertEqual(values.count, 1, "block at \(bx),\(by)")
            }
        }
        XCTAssertGreaterThan(detail(reference, x: 32..<160, y: 32..<128), 1, "the source has detail there")
        // Nothing else changes, and nothing at all outside its time range.
        XCTAssertTrue(same(inside, reference, x: 160..<320, y: 0..<240))
        XCTAssertTrue(same(inside, reference, x: 0..<320, y: 128..<240))
        XCTAssertTrue(same(try luma(out, 2), try luma(plain, 2), x: 0..<320, y: 0..<240), "before its start")
        XCTAssertTrue(same(try luma(out, 17), try luma(plain, 17), x: 0..<320, y: 0..<240), "after its end")
    }

    func testBlurRemovesDetailOnlyWhereAsked() throws {
        let (clip, plain) = try source()
        let out = try withEffects(
            #"{"effects": [{"type": "blur", "radius": 24, "region": {"x": "50%", "y": 0, "width": "50%", "height": "100%"}}]}"#, clip)
        let blurred = try luma(out, 5), reference = try luma(plain, 5)
        XCTAssertLessThan(
            detail(blurred, x: 170..<310, y: 10..<230), detail(reference, x: 170..<310, y: 10..<230) * 0.2, "at most 8-bit rounding left")
        XCTAssertTrue(same(blurred, reference, x: 0..<160, y: 0..<240), "the left half untouched")
    }

    func testMovingVortexAndColourEffectsStayInTheirRegion() throws {
        let (clip, plain) = try source()
        let out = try withEffects(
            """
            {"effects": [{"type": "vortex", "region": {"x": 0, "y": 0, "width": 160, "height": 120},
                          "keyframes": [{"t": 0, "angle": 0}, {"t": 2, "angle": 360, "easing": "ease-in-out"}]},
                         {"type": "grayscale", "region": {"x": 160, "y": 120, "width": 160, "height": 120}}]}
            """, clip)
        let early = try luma(out, 0), late = try luma(out, 15), reference = try luma(plain, 15)
        XCTAssertTrue(same(early, try luma(plain, 0), x: 0..<320, y: 0..<240), "angle 0 at the start: nothing moves")
        XCTAssertFalse(same(late, reference, x: 40..<120, y: 30..<90), "swirled by 1.5 s")
        XCTAssertTrue(same(late, reference, x: 160..<320, y: 0..<120), "outside both regions")
        // Grayscale: neutral chroma in its region, the source's colour elsewhere.
        let rgb = try Support.rawFrame(out, index: 5, pixelFormat: "rgb24")
        func px(_ x: Int, _ y: Int) -> (Int, Int, Int) { let i = (y * 320 + x) * 3; return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2])) }
        var greyMax = 0
        for y in stride(from: 124, to: 236, by: 8) {
            for x in stride(from: 164, to: 316, by: 8) { let p = px(x, y); greyMax = max(greyMax, abs(p.0 - p.1), abs(p.1 - p.2)) }
        }
        XCTAssertLessThan(greyMax, 6)
    }

    /// Pointillize (issue 45): without jitter, 16-pixel dots on a 16-pixel grid from the region's corner, each the
    /// mean of the source under it, on the background colour (which shows where no dot reaches: 1 − π/4 of the
    /// region); with jitter the dots stray but hold still from picture to picture; outside its region and time,
    /// nothing changes.
    func testPointillizeMakesDotsOfTheColourUnderThem() throws {
        let (clip, plain) = try source()
        let out = try withEffects(
            ##"{"effects": [{"type": "pointillize", "size": 16, "jitter": 0, "background": "#000000", "end": 1, "region": {"x": 32, "y": 32, "width": 192, "height": 128}}]}"##,
            clip)
        let dotted = try luma(out, 5), reference = try luma(plain, 5)
        var paper = 0, checked = 0
        // (Luma as `luma` reads it: full range, so the black background is 0 and white 255.)
        for y in 32..<160 { for x in 32..<224 where dotted[y][x] == 0 { paper += 1 } }
        // Untouched by any dot: the pixels whose centres lie more than half a pixel outside every dot (radius 8,
        // blended over the pixel across its edge), counted on one cell's pixel grid.
        let touched = (0..<256).filter { i in pow(Double(i % 16) - 7.5, 2) + pow(Double(i / 16) - 7.5, 2) < 8.5 * 8.5 }.count
        XCTAssertEqual(Double(paper) / Double(192 * 128), 1 - Double(touched) / 256, accuracy: 0.01, "the background between the dots")
        for cy in stride(from: 40, to: 160, by: 16) {
            for cx in stride(from: 40, to: 224, by: 16) {
                // The dot's centre holds the mean of the source over its disc (radius 8 around the pixel corner cx, cy).
                var sum = 0, n = 0
                for y in (cy - 8)..<(cy + 8) {
                    for x in (cx - 8)..<(cx + 8) {
                        let dx = Double(x) + 0.5 - Double(cx), dy = Double(y) + 0.5 - Double(cy)
                        if dx * dx + dy * dy <= 64 { sum += Int(reference[y][x]); n += 1 }
                    }
                }
                XCTAssertEqual(Double(dotted[cy][cx]), Double(sum) / Double(n), accuracy: 1.5, "dot at \(cx),\(cy)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 96)
        XCTAssertGreaterThan(detail(reference, x: 32..<224, y: 32..<160), 1, "the source has detail there")
        XCTAssertTrue(same(dotted, reference, x: 224..<320, y: 0..<240), "right of the region")
        XCTAssertTrue(same(dotted, reference, x: 0..<320, y: 160..<240), "under the region")
        XCTAssertTrue(same(try luma(out, 12), try luma(plain, 12), x: 0..<320, y: 0..<240), "after its end")

        // Jitter moves the dots off the grid, the same way in every picture: on a still picture, every output
        // picture is the same.
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", file("still.png")])
        try ffmpeg([
            "-loop", "1", "-i", file("still.png"), "-t", "2", "-r", "10", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("still.mp4")
        ])
        let jittered = try withEffects(#"{"effects": [{"type": "pointillize", "size": 12, "jitter": 1}]}"#, file("still.mp4"))
        let a = try luma(jittered, 3), b = try luma(jittered, 14)
        XCTAssertEqual(a, b, "the dots hold still")
        let white = Double(a.joined().filter { $0 == 255 }.count) / Double(320 * 240)
        XCTAssertGreaterThan(white, 0.03, "white shows between the dots")
        XCTAssertLessThan(white, 0.5)
        // Off the grid: the dots' gaps are not in the same place in every cell.
        let gaps = (0..<20).map { cell in a[cell / 5 * 48 + 6][cell % 5 * 48 + 6] == 255 }
        XCTAssertTrue(gaps.contains(true) && gaps.contains(false), "\(gaps)")
    }

    func testBadEffectDescriptionsAreRefusedWithTheirPath() throws {
        let (clip, _) = try source()
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
            return rows.flatMap { y in bytes[y * 640..<(y + 1) * 640] }.map(Int.init).max() ?? 0
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
