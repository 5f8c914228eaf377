@testable import SDRifyPresets
@testable import SDRifyRender
import XCTest

final class TargetSizeTests: XCTestCase {
    let box960 = ExportPreset.named("960x540")!.box
    let box1080 = ExportPreset.named("1920x1080")!.box

    func testPortraitFitsTheBoxTurned() {
        XCTAssertTrue(TargetSize.fit(width: 2160, height: 3840, into: box960) == (540, 960))
    }

    func testFourThreeIsLimitedByTheShortEdge() {
        XCTAssertTrue(TargetSize.fit(width: 1440, height: 1080, into: box960) == (720, 540))
    }

    func testNeverUpscales() {
        XCTAssertTrue(TargetSize.fit(width: 1280, height: 720, into: box1080) == (1280, 720))
        XCTAssertTrue(TargetSize.fit(width: 320, height: 240, into: box960) == (320, 240))
    }

    func testEvenDimensionsWithinBoxAndSource() {
        for (w, h) in [(1921, 1081), (1279, 719), (3840, 1644), (1080, 1350), (999, 333), (17, 9), (4096, 2160)] {
            let (tw, th) = TargetSize.fit(width: w, height: h, into: box960)
            XCTAssertEqual(tw % 2, 0); XCTAssertEqual(th % 2, 0)
            XCTAssertLessThanOrEqual(max(tw, th), 960); XCTAssertLessThanOrEqual(min(tw, th), 540)
            XCTAssertLessThanOrEqual(tw, w); XCTAssertLessThanOrEqual(th, h)
            // aspect kept to within the even rounding
            XCTAssertEqual(
                Double(tw) / Double(th), Double(w) / Double(h), accuracy: 2.5 / Double(min(tw, th)) * Double(w) / Double(h) + 0.01,
                "\(w)x\(h) → \(tw)x\(th)")
        }
    }

    func testNoBoxKeepsSizeRoundedToEven() {
        XCTAssertTrue(TargetSize.fit(width: 1921, height: 1081, into: nil) == (1920, 1080))
    }

    func testPresetTable() {
        for name in ["640x480", "960x540", "1280x720", "1920x1080", "3840x2160"] {
            let p = ExportPreset.named(name)!
            let parts = name.split(separator: "x").map { Int($0)! }
            XCTAssertEqual(p.box, BoundingBox(long: parts[0], short: parts[1]))
        }
        XCTAssertNotNil(ExportPreset.named(ExportPreset.defaultName))
        XCTAssertNil(ExportPreset.named("720x1280p"))
    }
}
