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
