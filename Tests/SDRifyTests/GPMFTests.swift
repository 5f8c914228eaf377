@testable import SDRifyProbe
import XCTest

/// GPMF records built by hand as the format lays them out (key, type, size, repeat, data padded to four bytes).
final class GPMFTests: XCTestCase {
    func record(_ key: String, _ type: Character, size: Int, _ payload: [UInt8]) -> [UInt8] {
        let count = size == 0 ? 0 : payload.count / size
        var r = Array(key.utf8) + [UInt8(type.asciiValue ?? 0), UInt8(size), UInt8(count >> 8), UInt8(count & 0xFF)] + payload
        while r.count % 4 != 0 { r.append(0) }
        return r
    }
    func nested(_ key: String, _ children: [UInt8]) -> [UInt8] {
        Array(key.utf8) + [0, 4, UInt8((children.count / 4) >> 8), UInt8((children.count / 4) & 0xFF)] + children
    }
    func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    func testGPS5AndAnotherStreamSpreadOverTheSample() {
        // Two GPS5 fixes scaled by 1e7 (degrees), 1000 (m), 1000 (m/s); an accelerometer stream of three 16-bit axes.
        let scal = [10_000_000, 10_000_000, 1000, 1000, 100].flatMap { be(Int32($0)) }
        let fixes = [[515334000, -1255000, 26756, 5500, 5600], [515335000, -1256000, 26800, 6000, 6100]].flatMap { $0.flatMap { be(Int32($0)) } }
        let gps = nested(
            "STRM",
            record("STNM", "c", size: 1, Array("GPS (Lat., Long., Alt., 2D speed, 3D speed)".utf8))
                + record("SCAL", "l", size: 4, scal) + record("GPS5", "l", size: 20, fixes))
        let accl = nested(
            "STRM", record("SCAL", "s", size: 2, be(Int16(100))) + record("ACCL", "s", size: 6, [981, -5, 12].flatMap { be(Int16($0)) }))
        let sample = Data(nested("DEVC", record("DVNM", "c", size: 1, Array("Camera".utf8)) + gps + accl))
        let values = GPMF.values(sample, duration: 1.0)
        let gpsValues = values.filter { $0.key == "gps" }
        XCTAssertEqual(gpsValues.count, 2)
        XCTAssertEqual(gpsValues.map(\.offset), [0, 0.5], "two fixes over one second")
        guard case .object(let first)? = gpsValues.first?.value else { return XCTFail("no position") }
        let f = Dictionary(uniqueKeysWithValues: first.map { ($0.0, $0.1) })
        XCTAssertEqual(f["latitude"], .double(51.5334))
        XCTAssertEqual(f["longitude"], .double(-0.1255))
        XCTAssertEqual(f["altitude_m"], .double(26.756))
        XCTAssertEqual(f["speed_2d_mps"], .double(5.5))
        XCTAssertEqual(f["speed_3d_mps"], .double(56), "the fifth divisor (100) applies to the fifth element")
        XCTAssertEqual(values.first { $0.key == "ACCL" }?.value, .array([.double(9.81), .double(-0.05), .double(0.12)]), "one divisor for all axes")
    }

    func testTruncatedRecordsStopCleanly() {
        let bytes = Data(record("ACCL", "s", size: 6, [0, 1, 0, 2, 0, 3]).prefix(10))
        XCTAssertTrue(GPMF.records(bytes).isEmpty)
        XCTAssertTrue(GPMF.values(bytes, duration: 1).isEmpty)
    }
}
