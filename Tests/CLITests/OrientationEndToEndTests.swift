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
