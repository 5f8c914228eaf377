import SDRifyMeasure
import XCTest

final class ColorScienceTests: XCTestCase {
    /// Pairs from Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula", table 1.
    func testCIEDE2000AgainstSharmaTestData() {
        let pairs: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
            (SIMD3(50, 2.6772, -79.7751), SIMD3(50, 0, -82.7485), 2.0425),
            (SIMD3(50, 0, 0), SIMD3(50, -1, 2), 2.3669),
            (SIMD3(50, 2.5, 0), SIMD3(73, 25, -18), 27.1492),
            (SIMD3(60.2574, -34.0099, 36.2677), SIMD3(60.4626, -34.1751, 39.4387), 1.2644),
            (SIMD3(2.0776, 0.0795, -1.1350), SIMD3(0.9033, -0.0636, -0.5514), 0.9082)
        ]
        for (a, b, want) in pairs {
            XCTAssertEqual(ColorScience.ciede2000(a, b), want, accuracy: 1e-4)
            XCTAssertEqual(ColorScience.ciede2000(b, a), want, accuracy: 1e-4, "symmetric")
        }
    }

    func testLabOfWhiteAndDecodingOfLimitedRange() {
        let white = ColorScience.lab(SIMD3(1, 1, 1))
        XCTAssertEqual(white.x, 100, accuracy: 0.01)
        XCTAssertEqual(white.y, 0, accuracy: 0.01)
        XCTAssertEqual(white.z, 0, accuracy: 0.01)
        let w = ColorScience.displayLight(y: 235, cb: 128, cr: 128)
        XCTAssertEqual(w.x, 1, accuracy: 1e-9)
        let black = ColorScience.displayLight(y: 16, cb: 128, cr: 128)
        XCTAssertEqual(black.x, 0, accuracy: 1e-9)
    }
}
