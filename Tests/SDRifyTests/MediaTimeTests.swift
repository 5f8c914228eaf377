@testable import SDRifyValues
import XCTest

/// The one clock's arithmetic: exact sums and differences, stream ticks both ways, whole frames.
final class MediaTimeTests: XCTestCase {
    func testSumsAndDifferencesAreExact() {
        let third = MediaTime(value: 1, timescale: 3), frame = FrameRate(num: 30000, den: 1001).time(ofFrame: 1)
        XCTAssertEqual(third + third + third, 1)
        XCTAssertEqual((frame + frame) - frame, frame)
        // 30000 frames of 29.97 are exactly 1001 s: no drift from summing.
        var t = MediaTime.zero
        for _ in 0..<30000 { t = t + frame }
        XCTAssertEqual(t, 1001)
        XCTAssertEqual(-third + third, .zero)
        XCTAssertEqual(MediaTime(value: 3, timescale: 4).half, MediaTime(value: 3, timescale: 8))
    }

    func testStreamTicksBothWays() {
        let mp4 = TimeBase(num: 1, den: 90000)
        XCTAssertEqual(MediaTime(ticks: 45000, mp4), 0.5)
        XCTAssertEqual(MediaTime(seconds: 0.5).ticks(mp4), 45000)
        // Nearest tick, halves away from zero.
        XCTAssertEqual(MediaTime(value: 1, timescale: 3).ticks(TimeBase(num: 1, den: 1000)), 333)
        XCTAssertEqual(MediaTime(value: 1, timescale: 2000).ticks(TimeBase(num: 1, den: 1000)), 1)
        XCTAssertEqual(MediaTime(value: -1, timescale: 2000).ticks(TimeBase(num: 1, den: 1000)), -1)
        let ntsc = TimeBase(num: 1001, den: 30000)
        XCTAssertEqual(MediaTime(ticks: 7, ntsc), FrameRate(num: 30000, den: 1001).time(ofFrame: 7))
    }

    func testWholeFramesAndLiterals() {
        let rate = FrameRate(num: 24, den: 1)
        XCTAssertEqual(rate.frames(in: MediaTime(seconds: 2.0)), 48)
        XCTAssertEqual(rate.frames(in: MediaTime(value: 1, timescale: 48)), 1, "half a frame rounds up")
        XCTAssertEqual(rate.halfFrame, MediaTime(value: 1, timescale: 48))
        let literal: MediaTime = 1.25
        XCTAssertEqual(literal, MediaTime(value: 5, timescale: 4))
        XCTAssertLessThan(MediaTime(value: 1, timescale: 3), 0.34)
    }

    func testValuesFromOutsideStayInRange() {
        // A command line or a file may give any finite number: no trap, a bound instead.
        XCTAssertEqual(MediaTime(seconds: 1e300).seconds, 1e12)
        XCTAssertEqual(MediaTime(seconds: -1e300).seconds, -1e12)
        XCTAssertEqual(MediaTime(seconds: .nan), .zero)
    }
}
