@testable import SDRifyRender
import XCTest

/// The display-order rules ClipDecoder applies to the pictures out of the decoder (PictureOrder).
final class PictureOrderTests: XCTestCase {
    /// Pre-roll (left out, just before the start), then the pictures inside the edit, then a trimmed tail.
    func testValidPreRollAndTailAreLeftOutWithoutDamage() {
        var order = PictureOrder(frameTicks: 512)
        for pts: Int64 in [-1024, -512, 5120] { order.leaveOut(pts) }
        let verdicts = [-1024, -512, 0, 512, 1024, 5120].map { order.next(Int64($0)) }
        XCTAssertEqual(verdicts.map(\.leaveOut), [true, true, false, false, false, true])
        XCTAssertFalse(verdicts.contains { $0.damaged || $0.backwards || $0.preRollGap != nil })
    }

    /// A picture from the middle moved before the start: it comes out in its place, below the one before it.
    func testPictureMovedBeforeTheStartIsOutOfOrder() {
        var order = PictureOrder(frameTicks: 512)
        order.leaveOut(-4096)
        let verdicts = [0, 512, -4096, 1536].map { order.next(Int64($0)) }
        XCTAssertEqual(verdicts[2], PictureOrder.Verdict(damaged: true, backwards: true))
        XCTAssertEqual(verdicts[3], PictureOrder.Verdict())
    }

    /// A picture moved past the end: left out, and the next one is below it; that one is not out of place, so
    /// it is shown as it is (one damage, not one per picture after it).
    func testPictureMovedPastTheEndCountsOnce() {
        var order = PictureOrder(frameTicks: 512)
        order.leaveOut(1 << 28)
        let verdicts = [0, 1 << 28, 1024, 1536].map { order.next(Int64($0)) }
        XCTAssertTrue(verdicts[1].leaveOut)
        XCTAssertEqual(verdicts[2], PictureOrder.Verdict(damaged: true))
        XCTAssertEqual(verdicts[3], PictureOrder.Verdict())
    }

    /// The first picture moved before the start: in order, but pre-roll no longer ends next to the start.
    func testGapAfterPreRollIsDamage() {
        var order = PictureOrder(frameTicks: 512)
        order.leaveOut(-1536)
        XCTAssertTrue(order.next(-1536).leaveOut)
        XCTAssertEqual(order.next(0).preRollGap, 1536)
        XCTAssertNil(order.next(512).preRollGap)
    }
}
