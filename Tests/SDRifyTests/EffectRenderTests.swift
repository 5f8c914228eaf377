@testable import SDRify
@testable import SDRifyLayers
@testable import SDRifyOutput
@testable import SDRifyPresets
@testable import SDRifyTimeline
import XCTest

/// Effects as layers (issue 15, first part): where and when each acts, on the pictures the render hands its encoder
/// (in-process, a checksum sink keeping the samples: no encoder, no decoder between the effect and the check). Their
/// descriptions' errors and the titles stay end to end (CLITests.EffectTests: exit codes, the drawn text).
final class EffectRenderTests: FolderTestCase {
    /// A vector made by the ffmpeg CLI (lossless H.264).
    private func ffmpeg(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-y"] + arguments
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "ffmpeg \(arguments)")
    }

    /// A detailed 320x240 clip, 2 s at 10 fps.
    private func source() throws -> String {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10", "-t", "2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("src.mp4")
        ])
        return file("src.mp4")
    }

    /// Every picture the conversion of `clip` renders (preset 640x480: the clip's own 320x240), with `overlays`
    /// (JSON as `--overlays` reads it) or without.
    private func render(_ clip: String, overlays json: String? = nil) throws -> Pictures {
        var conversion = Timeline.conversion(
            of: clip, into: OutputSpec(path: file("unwritten.mp4"), preset: try XCTUnwrap(ExportPreset.named("640x480"))))
        if let json {
            try json.write(toFile: file("fx.json"), atomically: true, encoding: .utf8)
            conversion.overlays = try OverlaySpec.load(jsonFile: file("fx.json"))
        }
        let sink = ChecksumSink(keepingSamples: true)
        _ = try Export.render(ExportRequest(conversion), into: [sink])
        XCTAssertEqual(sink.width, 320)
        XCTAssertEqual(sink.height, 240)
        XCTAssertEqual(sink.samples.count, 20)
        return Pictures(samples: sink.samples)
    }

    struct Pictures {
        let samples: [[[UInt8]]]
        /// Picture `n`'s luma as rows (limited range: black 16, white 235).
        func luma(_ n: Int) -> [[UInt8]] { (0..<240).map { Array(samples[n][0][$0 * 320..<($0 + 1) * 320]) } }
        /// Picture `n`'s Cb and Cr at chroma sample (x, y) (160x120).
        func chroma(_ n: Int, _ x: Int, _ y: Int) -> (Int, Int) { (Int(samples[n][1][y * 160 + x]), Int(samples[n][2][y * 160 + x])) }
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
        let clip = try source()
        let plain = try render(clip)
        let out = try render(
            clip,
            overlays:
                #"{"effects": [{"type": "pixelate", "block": 16, "start": 0.5, "end": 1.5, "region": {"x": 32, "y": 32, "width": 128, "height": 96}}]}"#
        )
        let inside = out.luma(10), reference = plain.luma(10)
        // Every 16x16 block from the region's corner is flat.
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
        XCTAssertTrue(same(out.luma(2), plain.luma(2), x: 0..<320, y: 0..<240), "before its start")
        XCTAssertTrue(same(out.luma(17), plain.luma(17), x: 0..<320, y: 0..<240), "after its end")
    }

    func testBlurRemovesDetailOnlyWhereAsked() throws {
        let clip = try source()
        let plain = try render(clip)
        let out = try render(
            clip, overlays: #"{"effects": [{"type": "blur", "radius": 24, "region": {"x": "50%", "y": 0, "width": "50%", "height": "100%"}}]}"#)
        let blurred = out.luma(5), reference = plain.luma(5)
        XCTAssertLessThan(
            detail(blurred, x: 170..<310, y: 10..<230), detail(reference, x: 170..<310, y: 10..<230) * 0.2, "at most 8-bit rounding left")
        XCTAssertTrue(same(blurred, reference, x: 0..<160, y: 0..<240), "the left half untouched")
    }

    func testMovingVortexAndColourEffectsStayInTheirRegion() throws {
        let clip = try source()
        let plain = try render(clip)
        let out = try render(
            clip,
            overlays: """
                {"effects": [{"type": "vortex", "region": {"x": 0, "y": 0, "width": 160, "height": 120},
                              "keyframes": [{"t": 0, "angle": 0}, {"t": 2, "angle": 360, "easing": "ease-in-out"}]},
                             {"type": "grayscale", "region": {"x": 160, "y": 120, "width": 160, "height": 120}}]}
                """)
        let early = out.luma(0), late = out.luma(15), reference = plain.luma(15)
        XCTAssertTrue(same(early, plain.luma(0), x: 0..<320, y: 0..<240), "angle 0 at the start: nothing moves")
        XCTAssertFalse(same(late, reference, x: 40..<120, y: 30..<90), "swirled by 1.5 s")
        XCTAssertTrue(same(late, reference, x: 160..<320, y: 0..<120), "outside both regions")
        // Grayscale: neutral chroma in its region (inside its edges), the source's colour elsewhere.
        var farthest = 0, colourful = 0
        for y in stride(from: 62, to: 118, by: 4) {
            for x in stride(from: 82, to: 158, by: 4) {
                let (cb, cr) = out.chroma(5, x, y)
                farthest = max(farthest, abs(cb - 128), abs(cr - 128))
                let (sb, sr) = plain.chroma(5, x, y)
                colourful = max(colourful, abs(sb - 128), abs(sr - 128))
            }
        }
        XCTAssertLessThanOrEqual(farthest, 1, "grey in the region")
        XCTAssertGreaterThan(colourful, 20, "the source has colour there")
    }

    /// Pointillize (issue 45): without jitter, 16-pixel dots on a 16-pixel grid from the region's corner, each the
    /// mean of the source under it, on the background colour (which shows where no dot reaches: 1 − π/4 of the
    /// region); with jitter the dots stray but hold still from picture to picture; outside its region and time,
    /// nothing changes.
    func testPointillizeMakesDotsOfTheColourUnderThem() throws {
        let clip = try source()
        let plain = try render(clip)
        let out = try render(
            clip,
            overlays:
                ##"{"effects": [{"type": "pointillize", "size": 16, "jitter": 0, "background": "#000000", "end": 1, "region": {"x": 32, "y": 32, "width": 192, "height": 128}}]}"##
        )
        let dotted = out.luma(5), reference = plain.luma(5)
        var paper = 0, checked = 0
        for y in 32..<160 { for x in 32..<224 where dotted[y][x] == 16 { paper += 1 } }  // black, limited range
        // Untouched by any dot: the pixels whose centres lie more than half a pixel outside every dot (radius 8,
        // blended over the pixel across its edge), counted on one cell's pixel grid.
        let touched = (0..<256).filter { (i: Int) -> Bool in
            let dx: Double = Double(i % 16) - 7.5, dy: Double = Double(i / 16) - 7.5
            return dx * dx + dy * dy < 8.5 * 8.5
        }.count
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
        XCTAssertTrue(same(out.luma(12), plain.luma(12), x: 0..<320, y: 0..<240), "after its end")

        // Jitter moves the dots off the grid, the same way in every picture: on a still picture, every output
        // picture is the same.
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", file("still.png")])
        try ffmpeg([
            "-loop", "1", "-i", file("still.png"), "-t", "2", "-r", "10", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", file("still.mp4")
        ])
        let jittered = try render(file("still.mp4"), overlays: #"{"effects": [{"type": "pointillize", "size": 12, "jitter": 1}]}"#)
        let a = jittered.luma(3), b = jittered.luma(14)
        XCTAssertEqual(a, b, "the dots hold still")
        let white = Double(a.joined().filter { $0 == 235 }.count) / Double(320 * 240)  // white, limited range
        XCTAssertGreaterThan(white, 0.03, "white shows between the dots")
        XCTAssertLessThan(white, 0.5)
        // Off the grid: the dots' gaps are not in the same place in every cell.
        let gaps = (0..<20).map { cell in a[cell / 5 * 48 + 6][cell % 5 * 48 + 6] == 235 }
        XCTAssertTrue(gaps.contains(true) && gaps.contains(false), "\(gaps)")
    }
}
