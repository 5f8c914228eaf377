import Foundation
import SDRifyMeasure
import XCTest

/// Scenes exposed brighter than BT.2408, as cameras expose in bright light (issue 32): the test photographs and a
/// chart lifted to HLG and PQ with their white at 203, 400, 600 and 1000 cd/m², with and without speculars and a
/// light source, must come back as the photo itself up to one exposure factor (ExposureChart: greys within 3 L*
/// of the scene relative to white, mean ΔE00 of the chart at most 3), and keep their greys apart.
final class ExposureTests: XCTestCase {
    func testBrightlyExposedScenesKeepTheirContrastRelativeToTheirWhite() throws {
        let work = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: work) }
        var rows = 0
        try ExposureChart.measure(
            sdrify: Support.binary.path, ffmpeg: Support.tool("ffmpeg"), photosDirectory: Support.vector("photos"), work: work
        ) { row in
            rows += 1
            print(row.markdown)
            let which = "\(row.transfer) white \(Int(row.white)) cd/m²\(row.highlights ? " with highlights" : "")"
            XCTAssertLessThanOrEqual(row.maxGreyError, 3, "\(which): greys relative to white \(row.greyErrors)")
            XCTAssertLessThanOrEqual(row.meanDE, 3, "\(which): mean ΔE00 relative to white")
            XCTAssertGreaterThanOrEqual(row.smallestStep, 12, "\(which): neighbouring greys stay apart (the scene's are 16.2–16.8 L*)")
            if row.white >= 400 { XCTAssertNotEqual(row.exposure, "[0, 0]", "\(which): lowered as a whole") }
            if row.white == 203 && !row.highlights { XCTAssertEqual(row.exposure, "[0, 0]", "\(which): BT.2408 placement left as it is") }
        }
        XCTAssertEqual(rows, 16)
    }
}

/// `--exposure EV` (issue 43): the scene's own exposure moved by the user, stops of light before the tone curve;
/// reported in the JSON; SDR input is not tone mapped and says so.
final class ExposureOptionTests: CLITestCase {
    func testExposureMovesTheWholePictureAndIsReported() throws {
        let input = Support.vector("pq_hevc_hdr10.mp4")
        var means: [Double] = []
        for ev in ["-1", "0", "1"] {
            let out = file("ev\(ev).mp4")
            let r = try Support.sdrify(input, out, "--exposure", ev, "--json")
            XCTAssertEqual(r.status, 0, r.stderr)
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
            if ev == "0" {
                XCTAssertNil(report["exposure_ev"], "no exposure asked, none reported")
            } else {
                XCTAssertEqual(report["exposure_ev"] as? Double, Double(ev))
            }
            let luma = try Support.lumaFrame(out, index: 5)
            means.append(Double(luma.reduce(0) { $0 + Int($1) }) / Double(luma.count))
        }
        XCTAssertLessThan(means[0] + 5, means[1], "a stop darker: \(means)")
        XCTAssertLessThan(means[1] + 5, means[2], "a stop brighter: \(means)")
        // What --exposure 0 makes is what no --exposure makes.
        let plain = try Support.sdrify(input, file("plain.mp4"), "-q")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try Support.lumaFrame(file("plain.mp4"), index: 5), try Support.lumaFrame(file("ev0.mp4"), index: 5))
    }

    func testSDRInputIsLeftAsItIsWithAWarning() throws {
        let r = try Support.sdrify(Support.vector("sdr_h264_aac.mp4"), file("o.mp4"), "--exposure", "1", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("--exposure: the input is SDR, which is not tone mapped"), r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        XCTAssertNil(report["exposure_ev"])
    }
}
