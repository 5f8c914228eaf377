@testable import SDRifyProbe
@testable import SDRifyValues
import XCTest

final class SEIReaderTests: XCTestCase {
    /// x265's master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1), max-cll=1000,400
    func testMasteringAndLightLevelFromAnHEVCPrefixSEI() {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let mdcv = [13250, 34500, 7500, 3000, 34000, 16000, 15635, 16450].flatMap(be16) + be32(10_000_000) + be32(1)
        let cll = be16(1000) + be16(400)
        let rbsp: [UInt8] = [137, UInt8(mdcv.count)] + mdcv + [144, 4] + cll + [0x80]
        let nal: [UInt8] = [39 << 1, 1] + rbsp  // prefix SEI header
        let unit = [0, 0, 0, UInt8(nal.count)] + nal
        let r = SEIReader(codec: .hevc, lengthSize: 4).read(unit)
        XCTAssertEqual(r.masteringDisplay?.redX ?? 0, 0.68, accuracy: 1e-9)
        XCTAssertEqual(r.masteringDisplay?.greenY ?? 0, 0.69, accuracy: 1e-9)
        XCTAssertEqual(r.masteringDisplay?.blueX ?? 0, 0.15, accuracy: 1e-9)
        XCTAssertEqual(r.masteringDisplay?.whitePointX ?? 0, 0.3127, accuracy: 1e-9)
        XCTAssertEqual(r.masteringDisplay?.maxLuminance ?? 0, 1000, accuracy: 1e-9)
        XCTAssertEqual(r.masteringDisplay?.minLuminance ?? 0, 0.0001, accuracy: 1e-12)
        XCTAssertEqual(r.contentLightLevel, ContentLightLevel(maxCLL: 1000, maxFALL: 400))
    }

    func testDisplayOrientationInAnnexBH264() {
        // cancel 0, hor_flip 0, ver_flip 0, anticlockwise_rotation 0x4000 (90°), repetition ue(0) = 1, ext 0.
        let payload: [UInt8] = [0b0000_1000, 0b0000_0000, 0b0001_0000]
        let nal: [UInt8] = [6, 47, UInt8(payload.count)] + payload + [0x80]
        let unit: [UInt8] = [0, 0, 0, 1, 9, 0xF0] + [0, 0, 0, 1] + nal + [0, 0, 1, 0x65, 0x88]
        let r = SEIReader(codec: .h264, lengthSize: nil).read(unit)
        XCTAssertEqual(r.displayMatrix.flatMap { Orientation(matrix: $0) }, .left, "90° anticlockwise is EXIF 8, as FFmpeg reads it")
        let flipped: [UInt8] = [0b0100_1000, 0, 0b0001_0000]  // hor_flip, 90°
        let f = SEIReader(codec: .h264, lengthSize: nil).read([0, 0, 1, 6, 47, 3] + flipped + [0x80])
        XCTAssertEqual(f.displayMatrix.map { $0.isMirrored }, true)
    }

    func testEmulationPreventionIsRemoved() {
        XCTAssertEqual(SEIReader.unescape([0, 0, 3, 1, 0, 0, 3, 0, 5]), [0, 0, 1, 0, 0, 0, 5])
    }

    func testArbitraryBytesNeverTrap() {
        var seed: UInt64 = 1
        for n in 0..<2000 {
            let bytes = (0..<(n % 97)).map { _ -> UInt8 in
                seed = seed &* 6364136223846793005 &+ 1; return UInt8(seed >> 56)
            }
            for codec in [SEIReader.Codec.h264, .hevc] {
                _ = SEIReader(codec: codec, lengthSize: nil).read(bytes)
                _ = SEIReader(codec: codec, lengthSize: 1 + n % 4).read(bytes)
            }
        }
    }
}
