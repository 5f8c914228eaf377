@testable import SDRifyRender
import XCTest

final class BoundedQueueTests: XCTestCase {
    final class Tracked: @unchecked Sendable {
        nonisolated(unsafe) static var alive = 0
        init() { Tracked.alive += 1 }
        deinit { Tracked.alive -= 1 }
    }

    /// A popped item must not stay referenced by the queue: items are pictures of up to 25 MB.
    func testPoppedItemsAreReleased() {
        let q = BoundedQueue<Tracked>(capacity: 4)
        for _ in 0..<10 {
            q.push(Tracked())
            _ = q.pop()
        }
        XCTAssertEqual(Tracked.alive, 0)
        q.push(Tracked()); q.push(Tracked())
        XCTAssertEqual(Tracked.alive, 2)
        _ = q.pop()
        XCTAssertEqual(Tracked.alive, 1)
    }

    func testCloseReleasesWaitersAndDrains() {
        let q = BoundedQueue<Int>(capacity: 1)
        XCTAssertTrue(q.push(1))
        let pushed = expectation(description: "blocked producer returns")
        DispatchQueue.global().async {
            XCTAssertFalse(q.push(2)); pushed.fulfill()
        }
        usleep(50_000)
        q.close()
        wait(for: [pushed], timeout: 2)
        XCTAssertEqual(q.pop(), 1, "queued items are still delivered")
        XCTAssertNil(q.pop())
    }
}
