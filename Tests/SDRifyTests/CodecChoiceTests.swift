@testable import SDRifyMedia
@testable import SDRifyPresets
import SDRifyTimeline
import SDRifyValues
import XCTest

/// `--codec`: a preset written with another codec keeps its size and takes that codec's CRF and speed of about
/// the same quality and speed; with its own codec, and for Passthrough, it is unchanged (the SDR outputs of today
/// stay bit for bit what they were).
final class CodecChoiceTests: XCTestCase {
    func testAPresetTranslatedToAnotherCodec() throws {
        let base = try XCTUnwrap(ExportPreset.named("960x540"))  // x264, CRF 23, veryfast
        let av1 = base.encoded(with: .av1)
        XCTAssertEqual(av1.codec, .av1)
        XCTAssertEqual(av1.box, base.box)
        XCTAssertEqual(av1.crf, 35)
        XCTAssertEqual(av1.encoderSpeed, "11")
        XCTAssertTrue(VideoCodec.av1.catalog.crfRange.contains(av1.crf))
        XCTAssertTrue(VideoCodec.av1.catalog.speedPresets.contains(av1.encoderSpeed))
        let hevc = base.encoded(with: .hevc)
        XCTAssertEqual([hevc.crf], [26], "the HEVC presets' own offset")
        XCTAssertEqual(hevc.encoderSpeed, "veryfast")
        // Back from HEVC to H.264 through x264's scale; the highest quality stays the highest.
        let fromHEVC = try XCTUnwrap(ExportPreset.named("HEVC1920x1080")).encoded(with: .h264)
        XCTAssertEqual([fromHEVC.crf], [23])
        let best = try XCTUnwrap(ExportPreset.named("HighestQuality")).encoded(with: .av1)
        XCTAssertLessThan(best.crf, av1.crf)
        XCTAssertEqual(best.encoderSpeed, "8", "medium")
        for name in ExportPreset.all.map(\.name) {
            let p = try XCTUnwrap(ExportPreset.named(name))
            for codec in VideoCodec.allCases where !p.passthrough {
                let q = p.encoded(with: codec)
                XCTAssertTrue(codec.catalog.crfRange.contains(q.crf), "\(name) as \(codec)")
                XCTAssertTrue(codec.catalog.speedPresets.contains(q.encoderSpeed), "\(name) as \(codec)")
            }
        }
    }

    func testItsOwnCodecAndPassthroughAreUnchanged() throws {
        for name in ExportPreset.all.map(\.name) {
            let p = try XCTUnwrap(ExportPreset.named(name))
            let same = p.encoded(with: p.codec)
            XCTAssertEqual([same.crf], [p.crf], name)
            XCTAssertEqual(same.encoderSpeed, p.encoderSpeed, name)
        }
        let copy = try XCTUnwrap(ExportPreset.named("Passthrough")).encoded(with: .av1)
        XCTAssertTrue(copy.passthrough)
        XCTAssertEqual(copy.codec, .h264, "Passthrough writes no codec; OutputSpec refuses --codec with it")
    }

    /// `--range hdr` without `--codec`: a preset whose codec carries no HDR (x264) is written with HEVC, one that
    /// does keeps its own; `--codec` still decides, and H.264 with HDR is the one problem named.
    func testTheHDRKeptChoosesACodecThatCarriesIt() throws {
        var out = OutputSpec(path: "a.mp4", preset: try XCTUnwrap(ExportPreset.named("960x540")))
        XCTAssertEqual(out.preset.codec, .h264)
        out.range = .hdr
        XCTAssertEqual(out.preset.codec, .hevc)
        XCTAssertEqual(out.preset.box, try XCTUnwrap(ExportPreset.named("960x540")).box)
        XCTAssertNil(out.encodingProblem())
        out.codec = .av1
        XCTAssertEqual(out.preset.codec, .av1)
        XCTAssertNil(out.encodingProblem())
        out.codec = .h264
        XCTAssertEqual(out.encodingProblem()?.setting, "codec")
        out.namedPreset = try XCTUnwrap(ExportPreset.named("HEVC1920x1080"))
        out.codec = nil
        XCTAssertEqual(out.preset.crf, 26, "its own codec: unchanged")
        XCTAssertEqual(RangeRequest.hdr.kind(firstHDRSource: nil), .hlg, "HDR made of SDR is HLG")
        XCTAssertEqual(RangeRequest.hdr.kind(firstHDRSource: .pq), .pq)
        XCTAssertEqual(RangeRequest.sdr.kind(firstHDRSource: .pq), .sdr)
    }
}
