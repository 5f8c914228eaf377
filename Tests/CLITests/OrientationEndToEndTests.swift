import Foundation
import XCTest

/// Each of the eight display matrices, converted, must give the upright picture: compared with a reference
/// made independently from the source pixels by ffmpeg's own flip/transpose filters, and with ffmpeg's
/// autorotated decode.
final class OrientationEndToEndTests: XCTestCase {
    // The ffmpeg filter that makes the coded picture upright for each EXIF case.
    static let referenceFilter: [Int: String?] = [
        1: nil, 2: "hflip", 3: "hflip,vflip", 4: "vflip",
        5: "transpose=cclock_flip", 6: "transpose=clock", 7: "transpose=clock_flip", 8: "transpose=cclock"
    ]

    func testAllEightAreMadeUpright() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frameIndex = 5
        for exif in 1...8 {
            let source = Support.vector("orient_\(exif).mp4")
            let output = dir.appendingPathComponent("o\(exif).mp4").path
            let r = try Support.sdrify(source, output, "--preset", "640x480", "--crf", "12")
            XCTAssertEqual(r.status, 0, r.stderr)
            let probe = Support.streams(try Support.ffprobe(output), "video").first ?? [:]
            let swap = exif >= 5
            XCTAssertEqual(probe["width"] as? Int, swap ? 240 : 320, "EXIF \(exif)")
            XCTAssertEqual(probe["height"] as? Int, swap ? 320 : 240, "EXIF \(exif)")
            XCTAssertNil(probe["side_data_list"], "EXIF \(exif): output carries no display matrix")

            let got = try Support.lumaFrame(output, index: frameIndex)
            var scores: [Int: Double] = [:]
            for (candidate, filter) in Self.referenceFilter {
                guard (candidate >= 5) == swap else { continue }  // only same-sized references compare
                scores[candidate] = Support.psnr(got, try Support.lumaFrame(source, index: frameIndex, filter: filter ?? "null"))
            }
            XCTAssertGreaterThanOrEqual(scores[exif]!, 30, "EXIF \(exif) against its reference (\(scores))")
            for (candidate, score) in scores where candidate != exif {
                XCTAssertLessThan(score, 16, "EXIF \(exif) must not look like EXIF \(candidate) (\(scores))")
            }
            let autorotated = try Support.lumaFrame(source, index: frameIndex, autorotate: true)
            XCTAssertGreaterThanOrEqual(Support.psnr(got, autorotated), 30, "EXIF \(exif) against ffmpeg's autorotate")
        }
    }

    /// `--rotate` and `--flip` turn the upright picture further (a clip filmed lying flat), in compose per clip
    /// (`"rotate"`, `"flip"`, videos and photos) too; bad values are usage errors that name them.
    func testRotateAndFlipOnTopOfTheFilesOrientation() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frameIndex = 5
        // (vector, extra arguments, ffmpeg filter on the coded picture that gives the same upright picture)
        let cases: [(Int, [String], String)] = [
            (1, ["--rotate", "90"], "transpose=clock"), (1, ["--flip", "h"], "hflip"), (1, ["--rotate", "180", "--flip", "v"], "hflip"),
            (6, ["--rotate", "270"], "null"), (6, ["--flip", "v"], "transpose=clock,vflip"),
            (3, ["--rotate", "90", "--flip", "h"], "hflip,vflip,transpose=clock,hflip"),
            (1, ["--crop", "40,20,160,120"], "crop=160:120:40:20"), (6, ["--crop", "10,30,200,100"], "transpose=clock,crop=200:100:10:30"),
            (1, ["--rotate", "90", "--crop", "20,40,120,160"], "transpose=clock,crop=120:160:20:40"),
            (3, ["--crop", "100,50,180,150"], "hflip,vflip,crop=180:150:100:50")
        ]
        for (exif, extra, filter) in cases {
            let source = Support.vector("orient_\(exif).mp4")
            let output = dir.appendingPathComponent("t\(exif)\(extra.joined()).mp4").path
            let r = try Support.sdrify([source, output, "--preset", "640x480", "--crf", "12"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let want = try Support.lumaFrame(source, index: frameIndex, filter: filter)
            let got = try Support.lumaFrame(output, index: frameIndex)
            XCTAssertEqual(got.count, want.count, "EXIF \(exif) \(extra): size")
            XCTAssertGreaterThanOrEqual(Support.psnr(got, want), 30, "EXIF \(exif) \(extra) against \(filter)")
        }

        // compose: a video clip turned half round, then a photo turned a quarter.
        let photo = Support.vector("photos/astronaut.png")
        let timeline = dir.appendingPathComponent("t.json").path
        try Data(
            """
            {"output": {"preset": "640x480", "fps": 30},
             "clips": [{"file": "\(Support.vector("orient_1.mp4"))", "duration": 1, "rotate": 180},
                       {"image": "\(photo)", "duration": 1, "rotate": 90},
                       {"file": "\(Support.vector("orient_1.mp4"))", "crop": [160, 120, 160, 120]},
                       {"image": "\(photo)", "duration": 1, "crop": [0, 0, 144, 96], "fit": "stretch"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: timeline))
        let composed = dir.appendingPathComponent("c.mp4").path
        let c = try Support.sdrify("compose", "--timeline", timeline, "--output", composed)
        XCTAssertEqual(c.status, 0, c.stderr)
        // The video (0.5 s: its 15 pictures) comes first; compose re-times it to 30 fps, so compare with margin.
        let first = try Support.lumaFrame(composed, index: 5)
        let halfRound = Support.psnr(first, try Support.lumaFrame(Support.vector("orient_1.mp4"), index: 5, filter: "hflip,vflip"))
        let unturned = Support.psnr(first, try Support.lumaFrame(Support.vector("orient_1.mp4"), index: 5))
        XCTAssertGreaterThanOrEqual(halfRound, 22)
        XCTAssertGreaterThan(halfRound, unturned + 6, "turned half round, not as coded")
        // The photo is 288x192: turned, 192x288 fitted into the 320x240 canvas the first clip set (letterboxed).
        let still = try Support.lumaFrame(composed, index: 30)
        let turned = try Support.lumaFrame(photo, index: 0, filter: "transpose=clock,scale=160:240,pad=320:240:80:0")
        XCTAssertGreaterThanOrEqual(Support.psnr(still, turned), 22, "the photo turned a quarter clockwise")
        // A cropped quarter of the video (frames 45-59; 4:3 as the canvas), then of the photo (stretched to fill it).
        let quarter = try Support.lumaFrame(composed, index: 50)
        let wantQuarter = try Support.lumaFrame(Support.vector("orient_1.mp4"), index: 5, filter: "crop=160:120:160:120,scale=320:240")
        XCTAssertGreaterThanOrEqual(Support.psnr(quarter, wantQuarter), 22, "the video's bottom-right quarter")
        let corner = try Support.lumaFrame(composed, index: 75)
        let wantCorner = try Support.lumaFrame(photo, index: 0, filter: "crop=144:96:0:0,scale=320:240")
        XCTAssertGreaterThanOrEqual(Support.psnr(corner, wantCorner), 22, "the photo's top-left quarter")

        for (bad, word) in [
            (["--rotate", "45"], "45"), (["--flip", "x"], "'x'"), (["--crop", "0,0,10"], "'0,0,10'"), (["--crop", "300,0,40,40"], "300,0,40,40")
        ] {
            let r = try Support.sdrify([Support.vector("orient_1.mp4"), dir.appendingPathComponent("bad.mp4").path] + bad)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(word), r.stderr)
        }
        let passthrough = try Support.sdrify(
            Support.vector("orient_1.mp4"), dir.appendingPathComponent("p.mp4").path, "--preset", "Passthrough", "--rotate", "90")
        XCTAssertEqual(passthrough.status, 64, passthrough.stderr)
        for clip in [
            #"{"file": "\#(Support.vector("orient_1.mp4"))", "rotate": 45}"#, ##"{"color": "#ff0000", "rotate": 90}"##,
            #"{"file": "\#(Support.vector("orient_1.mp4"))", "crop": [0, 0, 400, 10]}"#, #"{"image": "\#(photo)", "crop": [0, 0, 1]}"#,
            ##"{"color": "#00ff00", "duration": 1}, {"image": "\##(photo)", "crop": [200, 100, 100, 100]}"##,
            #"{"image": "\#(photo)", "flip": "x"}"#
        ] {
            try Data(#"{"clips": [\#(clip)]}"#.utf8).write(to: URL(fileURLWithPath: timeline))
            let r = try Support.sdrify("compose", "--timeline", timeline, "--output", dir.appendingPathComponent("bad.mp4").path)
            XCTAssertEqual(r.status, 64, "\(clip): \(r.stderr)")
        }
    }

    func testContainerWinsOverDisagreeingSEIWithAWarning() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("sei.mp4").path
        let r = try Support.sdrify(Support.vector("sei_disagrees.mp4"), output, "--preset", "640x480", "--crf", "12")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("disagrees with the container"), r.stderr)
        let got = try Support.lumaFrame(output, index: 5)
        let container = try Support.lumaFrame(Support.vector("orient_6.mp4"), index: 5, filter: "transpose=clock")
        XCTAssertGreaterThanOrEqual(Support.psnr(got, container), 30, "follows the container's EXIF 6")
    }

    /// hlg_portrait.mov holds the same pixels as hlg_hevc_aac.mov with the iPhone matrix (0,1,-1,0), tx = height:
    /// its conversion must equal the landscape conversion turned 90° clockwise.
    func testIPhonePortraitHLG() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let portrait = dir.appendingPathComponent("p.mp4").path, landscape = dir.appendingPathComponent("l.mp4").path
        for (src, dst) in [("hlg_portrait.mov", portrait), ("hlg_hevc_aac.mov", landscape)] {
            let r = try Support.sdrify(Support.vector(src), dst, "--preset", "960x540", "--crf", "12")
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let v = Support.streams(try Support.ffprobe(portrait), "video").first ?? [:]
        XCTAssertEqual(v["width"] as? Int, 360)
        XCTAssertEqual(v["height"] as? Int, 640)
        XCTAssertNil(v["side_data_list"])
        let got = try Support.lumaFrame(portrait, index: 12)
        XCTAssertGreaterThanOrEqual(Support.psnr(got, try Support.lumaFrame(landscape, index: 12, filter: "transpose=clock")), 30)
        XCTAssertLessThan(Support.psnr(got, try Support.lumaFrame(landscape, index: 12, filter: "transpose=cclock")), 16)
    }

    func testUnsupportedMatrixIsRefusedWithExit3() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Support.sdrify(Support.vector("matrix_45deg.mp4"), dir.appendingPathComponent("x.mp4").path)
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("not one of the eight orientations"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}
