import Foundation
import XCTest

/// Split screens (issue 45): a timeline clip `{"split": [cells], "layout": "2x1" | "1x2" | "2x2"}` shows its cells
/// together, each upright, tone mapped and fitted into its cell as any clip is into the picture, their sounds mixed.
final class SplitScreenTests: CLITestCase {
    func compose(_ clips: String, _ extra: [String] = []) throws -> (report: [String: Any], out: String) {
        let timeline = file("split.json"), out = file("split.mp4")
        try #"{"clips": [\#(clips)]}"#.write(toFile: timeline, atomically: true, encoding: .utf8)
        let r = try Support.sdrify(["compose", "--timeline", timeline, "--output", out, "--crf", "8", "-y", "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return ((try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]) ?? [:], out)
    }

    func clip(_ name: String, grey: Int, seconds: Double, tone: Int? = nil) throws -> String {
        try greyClip(name, grey: grey, size: "320x240", seconds: seconds, tone: tone)
    }

    /// R'G'B' of picture `index` (width×height, packed).
    func rgb(_ path: String, _ index: Int) throws -> [UInt8] { try Support.rawFrame(path, index: index, pixelFormat: "rgb24") }

    func testCellsFillTheirPlacesInEachLayout() throws {
        let cells = ##"{"color": "#ff0000"}, {"color": "#00ff00"}, {"color": "#0000ff"}, {"color": "#ffffff"}"##
        let expected: [(String, [(x: Double, y: Double, rgb: [Int])])] = [
            ("2x2", [(0.25, 0.25, [255, 0, 0]), (0.75, 0.25, [0, 255, 0]), (0.25, 0.75, [0, 0, 255]), (0.75, 0.75, [255, 255, 255])]),
            ("2x1", [(0.25, 0.5, [255, 0, 0]), (0.75, 0.5, [0, 255, 0])]),
            ("1x2", [(0.5, 0.25, [255, 0, 0]), (0.5, 0.75, [0, 255, 0])])
        ]
        for (layout, places) in expected {
            let list = layout == "2x2" ? cells : ##"{"color": "#ff0000"}, {"color": "#00ff00"}"##
            let (report, out) = try compose(#"{"split": [\#(list)], "layout": "\#(layout)", "duration": 0.5}"#, ["--preset", "960x540"])
            let clip = (report["clips"] as? [[String: Any]])?.first
            XCTAssertEqual(clip?["kind"] as? String, "split")
            XCTAssertEqual((clip?["cells"] as? [[String: Any]])?.count, places.count, layout)
            let pixels = try rgb(out, 5)
            XCTAssertEqual(pixels.count, 960 * 540 * 3, "a split screen alone takes the preset's box")
            guard pixels.count == 960 * 540 * 3 else { continue }
            for p in places {
                let i = (Int(p.y * 540) * 960 + Int(p.x * 960)) * 3
                for c in 0..<3 { XCTAssertEqual(Int(pixels[i + c]), p.rgb[c], accuracy: 6, "\(layout) at \(p.x),\(p.y) channel \(c)") }
            }
        }
    }

    /// A portrait HLG clip in one cell and a turned (EXIF 6) SDR one in the other: each upright and tone mapped as a
    /// conversion makes it, placed in the middle of its cell.
    func testCellsAreUprightAndToneMappedLikeAnyClip() throws {
        let hlg = Support.vector("hlg_portrait.mov"), turned = Support.vector("orient_6.mp4")
        let (_, out) = try compose(#"{"split": [{"file": "\#(hlg)"}, {"file": "\#(turned)"}], "layout": "2x1"}"#, ["--preset", "1280x720"])
        let v = Support.streams(try Support.ffprobe(out), "video").first ?? [:]
        XCTAssertEqual(v["width"] as? Int, 1280)
        XCTAssertEqual(v["height"] as? Int, 720)
        XCTAssertEqual(v["color_transfer"] as? String, "bt709")
        let luma = try Support.lumaFrame(out, index: 3)
        XCTAssertEqual(luma.count, 1280 * 720)
        guard luma.count == 1280 * 720 else { return }
        for (cell, input) in [(0, hlg), (1, turned)] {
            // The picture in the cell: what is not the black around it.
            let xs = (cell * 640)..<((cell + 1) * 640)
            let lit = xs.filter { x in (0..<720).contains { y in luma[y * 1280 + x] > 30 } }
            guard let x0 = lit.first, let x1 = lit.last else { XCTFail("cell \(cell) is empty"); continue }
            let width = (x1 - x0 + 1) & ~1
            let crop = "crop=\(width):720:\(x0):0"
            // Against a conversion of the clip at the same size (upright, tone mapped): the same picture.
            let single = file("single\(cell).mp4")
            let r = try Support.sdrify([input, single, "--crf", "8", "-y"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let convert = try Support.lumaFrame(single, index: 3, filter: "scale=\(width):720")
            let placed = try Support.lumaFrame(out, index: 3, filter: crop)
            XCTAssertEqual(placed.count, convert.count, "cell \(cell): \(width)x720")
            guard placed.count == convert.count else { continue }
            let psnr = Support.psnr(placed, convert)
            // (The two are scaled up differently, so not equal; the same picture mirrored is far further off.)
            let mirrored = Support.psnr(placed, try Support.lumaFrame(single, index: 3, filter: "scale=\(width):720,hflip"))
            XCTAssertGreaterThan(psnr, 24, "cell \(cell) as a conversion shows \(input) (\(psnr) dB)")
            XCTAssertGreaterThan(psnr, mirrored + 4, "cell \(cell): upright, not mirrored (\(psnr) against \(mirrored) dB)")
        }
    }

    /// The split lasts as long as its longest video cell (the shorter one holds its last picture); the cells' sounds
    /// play together at their volumes, and the split's own volume scales them all.
    func testLengthAndSoundOfTheCells() throws {
        let long = try clip("long.mp4", grey: 200, seconds: 2, tone: 440), short = try clip("short.mp4", grey: 60, seconds: 1)
        let alone = file("alone.mp4")
        XCTAssertEqual(try Support.sdrify(["compose", long, "--output", alone, "--crf", "8", "-y", "-q"]).status, 0)
        let (report, out) = try compose(#"{"split": [{"file": "\#(long)", "volume": 0.5}, {"file": "\#(short)"}], "volume": 0.8}"#)
        XCTAssertEqual(report["duration"] as? Double ?? 0, 2, accuracy: 0.05, "the longest cell's length")
        XCTAssertEqual(report["frames"] as? Int, 60)
        // The short cell holds its last picture after its end.
        let late = try Support.lumaFrame(out, index: 50)
        let w = (Support.streams(try Support.ffprobe(out), "video").first?["width"] as? Int) ?? 0
        XCTAssertGreaterThan(w, 0)
        if w > 0 { XCTAssertEqual(Double(late[(late.count / w / 2) * w + 3 * w / 4]), 60, accuracy: 4, "the short cell held") }
        func rms(_ path: String) throws -> Double {
            let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
            let s = r.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let middle = s[min(4800, s.count)..<min(86400, s.count)]
            return (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(middle.count, 1))).squareRoot()
        }
        let ratio = try rms(out) / rms(alone)
        XCTAssertEqual(ratio, 0.5 * 0.8, accuracy: 0.03, "the long cell's sound at 0.5 × 0.8")
    }

    func testBadSplitsAreRefusedWithTheirPath() throws {
        let a = Support.vector("sdr_h264_aac.mp4")
        let cases: [(clip: String, named: String)] = [
            (#"{"split": [{"file": "\#(a)"}, {"file": "\#(a)"}, {"file": "\#(a)"}]}"#, "clips[0].split"),
            (#"{"split": [{"file": "\#(a)"}, {"file": "\#(a)"}], "layout": "2x2"}"#, "has 4 cells, not 2"),
            (#"{"split": [{"file": "\#(a)"}, {"file": "\#(a)"}], "layout": "3x1"}"#, "clips[0].layout"),
            (#"{"split": [{"split": [{"file": "\#(a)"}, {"file": "\#(a)"}]}, {"file": "\#(a)"}]}"#, "split[0]"),
            (#"{"split": [{"file": "\#(a)"}, {"file": "\#(a)", "transition": "fade"}]}"#, "split[1]"),
            (#"{"split": [{"file": "\#(a)"}, {"file": "\#(a)"}], "from": 1}"#, "clips[0].from"),
            (#"{"file": "\#(a)", "layout": "2x1"}"#, "clips[0].layout")
        ]
        try assertComposeRefuses(cases)
    }
}
