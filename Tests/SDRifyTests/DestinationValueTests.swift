import Foundation
import SDRifyTimeline
import SDRifyValues
import XCTest

/// A sheet's and a sprite's values are checked once, in the library (`Destination.problem`): each setting out of its
/// range is named with the range, the values inside it pass, and the command line only adds its flag.
final class DestinationValueTests: XCTestCase {
    func testEachValueOutOfItsRangeIsNamedOnce() {
        func sprites(_ every: Double, _ c: Int, _ r: Int, _ w: Int, _ h: Int) -> Destination {
            .sprites(every: MediaTime(seconds: every), columns: c, rows: r, tileBox: .init(width: w, height: h))
        }
        let cases: [(Destination, String?, String)] = [
            (.sheet(columns: 4, rows: 4, width: 1920), nil, ""),
            (.sheet(columns: 32, rows: 1, width: 64 * 32), nil, ""),
            (.sheet(columns: 33, rows: 1, width: 1920), "grid", "each from 1 to 32, not '33x1'"),
            (.sheet(columns: 4, rows: 0, width: 1920), "grid", "not '4x0'"),
            (.sheet(columns: 4, rows: 4, width: 63), "width", "expected 64 to 16384 pixels"),
            (.sheet(columns: 8, rows: 2, width: 150), "width", "room for 8 pictures at least 16 wide, not 150"),
            (.sheet(columns: 8, rows: 2, width: 200), nil, ""),  // 16 wide each: (200 − 9 gaps of 8) / 8
            (sprites(5, 5, 5, 160, 90), nil, ""),
            (sprites(0.05, 5, 5, 160, 90), "every", "from 0.1 to 3600 seconds, not 0.05"),
            (sprites(5, 65, 1, 160, 90), "tile", "each from 1 to 64, not '65x1'"),
            (sprites(5, 5, 5, 7, 90), "size", "each 8 to 1920 pixels"),
            (sprites(5, 64, 1, 1920, 90), "size", "a sprite at most 16384 each way"),
            (.video, nil, ""), (.survey, nil, "")
        ]
        for (destination, setting, message) in cases {
            let problem = destination.problem
            XCTAssertEqual(problem?.setting, setting, "\(destination)")
            if let problem { XCTAssertTrue(problem.message.contains(message), "\(destination): \(problem.message)") }
        }
    }
}
