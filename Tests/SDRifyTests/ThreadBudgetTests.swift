@testable import SDRifyRender
import XCTest

final class ThreadBudgetTests: XCTestCase {
    func testTheCodecsShareTheBudgetByTheirWork() {
        let uhd = 3840 * 2160, hd = 1920 * 1080, qhd = 960 * 540
        XCTAssertTrue(ThreadBudget.split(0, sourcePixels: uhd, outputPixels: qhd, encoder: .h264) == (0, 0), "0: automatic")
        XCTAssertTrue(ThreadBudget.split(1, sourcePixels: uhd, outputPixels: qhd, encoder: .h264) == (1, 1))
        XCTAssertTrue(ThreadBudget.split(2, sourcePixels: hd, outputPixels: hd, encoder: .h264) == (1, 1))
        // 4K → 540p: decoding is most of the work; 1080p → 1080p: encoding is.
        XCTAssertTrue(ThreadBudget.split(4, sourcePixels: uhd, outputPixels: qhd, encoder: .h264) == (3, 1))
        XCTAssertTrue(ThreadBudget.split(4, sourcePixels: hd, outputPixels: hd, encoder: .h264) == (1, 3))
        XCTAssertTrue(ThreadBudget.split(8, sourcePixels: uhd, outputPixels: uhd, encoder: .hevc) == (1, 7))
        for total in 2...32 {
            for (src, out) in [(uhd, qhd), (hd, hd), (qhd, qhd), (uhd, uhd)] {
                let s = ThreadBudget.split(total, sourcePixels: src, outputPixels: out, encoder: .h264)
                XCTAssertEqual(s.decode + s.encode, total)
                XCTAssertGreaterThanOrEqual(min(s.decode, s.encode), 1)
            }
        }
    }
}
