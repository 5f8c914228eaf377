@testable import SDRifyProbe
import XCTest

/// AV1SequenceHeader against sequence headers written here bit by bit from the AV1 spec's syntax (5.5): the paths
/// SVT-AV1 does not take (timing and decoder model info, several operating points, a reduced still-picture header,
/// profile 2 at 12 bits) as well as the common one, bare and in an av1C record; damage is nil, never a crash.
final class AV1SequenceHeaderTests: XCTestCase {
    /// MSB-first bits.
    struct Bits {
        var bytes: [UInt8] = [], count = 0
        mutating func put(_ value: Int, _ n: Int) {
            for i in stride(from: n - 1, through: 0, by: -1) {
                if count % 8 == 0 { bytes.append(0) }
                if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (count % 8)) }
                count += 1
            }
        }
    }

    /// A sequence header OBU (with its size field). `full`: timing info with a decoder model, two operating points.
    func header(profile: Int, level: Int, tier: Int, high: Bool, twelve: Bool = false, reduced: Bool = false, full: Bool = false) -> [UInt8] {
        var b = Bits()
        b.put(profile, 3); b.put(reduced ? 1 : 0, 1); b.put(reduced ? 1 : 0, 1)
        if reduced {
            b.put(level, 5)
        } else {
            b.put(full ? 1 : 0, 1)  // timing_info_present_flag
            if full {
                b.put(1001, 32); b.put(30000, 32); b.put(1, 1); b.put(0b00101, 5)  // equal interval, uvlc(4)
                b.put(1, 1)  // decoder_model_info_present_flag
                b.put(9, 5); b.put(1001, 32); b.put(4, 5); b.put(4, 5)  // buffer delay length 10
            }
            b.put(full ? 1 : 0, 1)  // initial_display_delay_present_flag
            b.put(full ? 1 : 0, 5)  // operating points − 1
            for op in 0..<(full ? 2 : 1) {
                b.put(op == 0 ? 0 : 0x101, 12); b.put(op == 0 ? level : 2, 5)
                if (op == 0 ? level : 2) > 7 { b.put(tier, 1) }
                if full { b.put(1, 1); b.put(500, 10); b.put(600, 10); b.put(0, 1) }  // decoder model for this op
                if full { b.put(1, 1); b.put(3, 4) }  // initial display delay for this op
            }
        }
        b.put(10, 4); b.put(10, 4); b.put(1919, 11); b.put(1079, 11)  // sizes
        if !reduced { b.put(full ? 1 : 0, 1); if full { b.put(5, 4); b.put(2, 3) } }  // frame ids
        b.put(0b011, 3)
        if !reduced {
            b.put(0b1111, 4); b.put(1, 1); b.put(0b11, 2)  // compound tools, order hint on, jnt, ref mvs
            b.put(0, 1); b.put(1, 1)  // screen content: not chosen, forced on
            b.put(0, 1); b.put(1, 1)  // integer mv: not chosen, forced
            b.put(6, 3)  // order hint bits − 1
        }
        b.put(0b011, 3)  // superres, cdef, restoration
        b.put(high ? 1 : 0, 1)
        if profile == 2 && high { b.put(twelve ? 1 : 0, 1) }
        if profile != 1 { b.put(0, 1) }  // mono_chrome
        b.put(0, 1)  // color_description_present_flag
        b.put(0, 8)  // the rest, as padding
        return [0x0A, UInt8(b.bytes.count)] + b.bytes  // OBU_SEQUENCE_HEADER with has_size_field
    }

    func testReadsTheFieldsThatNameAStream() {
        let common = AV1SequenceHeader(header(profile: 0, level: 8, tier: 0, high: false))
        XCTAssertEqual(common?.codecString, "av01.0.08M.08")
        XCTAssertEqual(AV1SequenceHeader(header(profile: 0, level: 13, tier: 1, high: true, full: true))?.codecString, "av01.0.13H.10")
        XCTAssertEqual(AV1SequenceHeader(header(profile: 2, level: 5, tier: 0, high: true, twelve: true))?.codecString, "av01.2.05M.12")
        XCTAssertEqual(AV1SequenceHeader(header(profile: 1, level: 4, tier: 0, high: true, reduced: true))?.codecString, "av01.1.04M.10")
        // In an av1C record, after a temporal delimiter OBU: the same.
        let av1C: [UInt8] = [0x81, 0x08, 0x0C, 0x00] + [0x12, 0x00] + header(profile: 0, level: 8, tier: 0, high: false)
        XCTAssertEqual(AV1SequenceHeader(av1C), common)
    }

    func testDamageIsNil() {
        let good = header(profile: 0, level: 13, tier: 1, high: true, full: true)
        XCTAssertNil(AV1SequenceHeader([]))
        XCTAssertNil(AV1SequenceHeader([0x12, 0x00]), "no sequence header")
        for cut in stride(from: 1, to: good.count - 3, by: 3) { XCTAssertNil(AV1SequenceHeader(Array(good.prefix(cut))), "cut at \(cut)") }
        XCTAssertNil(AV1SequenceHeader([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), "a size that never ends")
    }
}
