@testable import SDRifyMedia
import XCTest

/// A HEIF photo's auxiliary pictures read by sdrify's own HEIF reader (scripts/compare-maker-sdr reads Apple's gain
/// map through it): the real iPhone HDR photo's gain map is a grey picture at half the primary's size.
final class HEIFAuxiliaryTests: XCTestCase {
    func testTheAppleGainMapIsReadBesideThePrimaryPicture() throws {
        guard let path = RealMedia.path("applephoto2uhdr_IMG_3853.HEIC") else { return }
        let primary = try XCTUnwrap(try HEIFDecoder.planes(path: path))
        XCTAssertEqual(primary.planes.count, 3)
        XCTAssertEqual(primary.planes[0].count, primary.width * primary.height)
        let gain = try XCTUnwrap(try HEIFDecoder.planes(path: path, auxiliary: "urn:com:apple:photo:2020:aux:hdrgainmap"))
        XCTAssertEqual(gain.pixelFormat, "gray")
        XCTAssertEqual(gain.planes.count, 1)
        XCTAssertEqual(gain.width, primary.width / 2)
        XCTAssertEqual(gain.height, primary.height / 2)
        // A gain map of a sunlit scene: dark (no boost) somewhere, bright (full boost) elsewhere.
        let values = gain.planes[0]
        XCTAssertLessThan(values.min()!, 40)
        XCTAssertGreaterThan(values.max()!, 200)
        XCTAssertNil(try HEIFDecoder.planes(path: path, auxiliary: "urn:example:no-such-picture"))
    }
}
