@testable import SDRifyProbe
import XCTest

/// QuickTime timed-metadata values by their declared types, and ISO 6709 locations.
final class QuickTimeMetadataTests: XCTestCase {
    func testISO6709() {
        XCTAssertEqual(
            ISO6709.parse("+51.5334-000.1255+026.756/"),
            .object([("latitude", .double(51.5334)), ("longitude", .double(-0.1255)), ("altitude_m", .double(26.756))]))
        XCTAssertEqual(ISO6709.parse("-33.8688+151.2093/"), .object([("latitude", .double(-33.8688)), ("longitude", .double(151.2093))]))
        XCTAssertNil(ISO6709.parse("+95.0+000.0/"), "latitude beyond 90°")
        XCTAssertNil(ISO6709.parse("nowhere"))
    }

    func testSampleValuesByDeclaredType() {
        let keys = [
            QuickTimeMetadata.Key(id: 1, namespace: "mdta", name: "com.apple.quicktime.location.ISO6709", dataType: 1),
            QuickTimeMetadata.Key(id: 2, namespace: "mdta", name: "speed", dataType: 23),
            QuickTimeMetadata.Key(id: 3, namespace: "mdta", name: "orientation", dataType: 66),
            QuickTimeMetadata.Key(id: 4, namespace: "mdta", name: "face", dataType: 72)
        ]
        func box(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + withUnsafeBytes(of: id.bigEndian, Array.init) + payload
        }
        func f32(_ v: Float) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init) }
        let sample = Data(
            box(1, Array("+10.5-020.25/".utf8)) + box(2, f32(12.5)) + box(3, [0xFF, 0xFE]) + box(4, f32(1) + f32(2) + f32(3) + f32(4))
                + box(9, [1, 2]))
        let values = QuickTimeMetadata.values(sample, keys: keys)
        XCTAssertEqual(values.map(\.key), ["com.apple.quicktime.location.ISO6709", "speed", "orientation", "face"], "an unknown key ID is skipped")
        XCTAssertEqual(values[0].value, .object([("latitude", .double(10.5)), ("longitude", .double(-20.25))]))
        XCTAssertEqual(values[1].value, .double(12.5))
        XCTAssertEqual(values[2].value, .int(-2), "big-endian signed 16-bit")
        XCTAssertEqual(values[3].value, .object([("x", .double(1)), ("y", .double(2)), ("width", .double(3)), ("height", .double(4))]))
    }
}
