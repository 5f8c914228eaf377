@testable import SDRifyValues
import XCTest

final class ProbeModelTests: XCTestCase {
    func testJSONSerialisationKeepsOrderNullsAndEscapes() {
        let v = JSONValue.object([
            ("b", .int(1)), ("a", .null), ("s", .string("q\"\\\n\u{1}é")), ("d", .double(0.5)),
            ("n", .double(.nan)), ("arr", .array([.bool(true), .double(2)]))
        ])
        XCTAssertEqual(v.serialized(), #"{"b":1,"a":null,"s":"q\"\\\n\u0001é","d":0.5,"n":null,"arr":[true,2]}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(v.serialized(pretty: true).utf8)) as? [String: Any]
        XCTAssertEqual(parsed?["b"] as? Int, 1)
    }

    func testSourcePeakSanitisesMetadata() {
        let md = MasteringDisplay(
            redX: 0.68, redY: 0.32, greenX: 0.265, greenY: 0.69, blueX: 0.15, blueY: 0.06,
            whitePointX: 0.3127, whitePointY: 0.329, minLuminance: 0.0001, maxLuminance: 4000)
        XCTAssertEqual(
            HDRMetadata(masteringDisplay: md, contentLightLevel: ContentLightLevel(maxCLL: 1500, maxFALL: 400))
                .sourcePeak(for: .pq), 1500)
        XCTAssertEqual(HDRMetadata(masteringDisplay: md).sourcePeak(for: .pq), 4000)
        XCTAssertEqual(
            HDRMetadata(masteringDisplay: md, contentLightLevel: ContentLightLevel(maxCLL: 0, maxFALL: 0))
                .sourcePeak(for: .pq), 4000, "MaxCLL 0 means absent")
        var bad = md; bad.maxLuminance = 50
        XCTAssertEqual(HDRMetadata(masteringDisplay: bad).sourcePeak(for: .pq), 1000, "< 100 cd/m² means absent")
        bad.maxLuminance = 1000; bad.minLuminance = 1000
        XCTAssertEqual(HDRMetadata(masteringDisplay: bad).sourcePeak(for: .pq), 1000, "min ≥ max means absent")
        XCTAssertEqual(HDRMetadata().sourcePeak(for: .pq), 1000)
        XCTAssertEqual(HDRMetadata(masteringDisplay: md).sourcePeak(for: .hlg), 1000, "HLG uses its nominal peak")
    }

    func testMalformedMasteringAndLightLevelsAreNamedAndIgnored() {
        let good = MasteringDisplay(
            redX: 0.708, redY: 0.292, greenX: 0.170, greenY: 0.797, blueX: 0.131, blueY: 0.046,
            whitePointX: 0.3127, whitePointY: 0.329, minLuminance: 0.005, maxLuminance: 4000)
        XCTAssertNil(good.defect, "BT.2020 primaries (red on the spectral locus) are a real display")
        var swapped = good; swapped.minLuminance = 4000; swapped.maxLuminance = 0.005
        var disordered = good; (disordered.redX, disordered.greenX) = (good.greenX, good.redX)
        var strayWhite = good; strayWhite.whitePointX = 0.05; strayWhite.whitePointY = 0.9
        var absurd = good; absurd.maxLuminance = 1e7
        for bad in [swapped, disordered, strayWhite, absurd] {
            XCTAssertNotNil(bad.defect, "\(bad)")
            let md = HDRMetadata(masteringDisplay: bad)
            XCTAssertEqual(md.sourcePeak(for: .pq), 1000, "ignored: the default peak")
            XCTAssertEqual(md.warnings.count, 1)
            XCTAssertTrue(md.warnings[0].hasSuffix("ignored"), md.warnings[0])
        }
        let light = ContentLightLevel(maxCLL: 400, maxFALL: 900)
        XCTAssertNotNil(light.defect)
        XCTAssertEqual(HDRMetadata(masteringDisplay: good, contentLightLevel: light).sourcePeak(for: .pq), 4000)
        XCTAssertNil(ContentLightLevel(maxCLL: 0, maxFALL: 0).defect, "0 is unknown, not malformed")
    }

    func testUntaggedColourIsResolvedBySize() {
        let untagged = ColorDescription()
        XCTAssertEqual(untagged.resolved(width: 1920, height: 1080).matrix, .bt709)
        XCTAssertEqual(untagged.resolved(width: 720, height: 480).matrix, .smpte170m)
        let hlg = ColorDescription(transfer: .aribStdB67)
        XCTAssertEqual(hlg.resolved(width: 640, height: 360).primaries, .bt2020)
        XCTAssertEqual(hlg.hdrKind, .hlg)
        XCTAssertEqual(ColorDescription(transfer: .smpte2084).hdrKind, .pq)
    }

    func testFfprobeNames() {
        XCTAssertEqual(TransferCharacteristic.aribStdB67.name, "arib-std-b67")
        XCTAssertEqual(TransferCharacteristic.smpte2084.name, "smpte2084")
        XCTAssertEqual(MatrixCoefficients.bt2020nc.name, "bt2020nc")
        XCTAssertEqual(ColorRange.limited.name, "tv")
        XCTAssertEqual(ColorPrimaries.bt2020.name, "bt2020")
    }
}
