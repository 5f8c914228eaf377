import Foundation
import XCTest

@testable import SDRifyProbe

/// The gain-map JPEG container (Ultra HDR's MPF index and XMP, ISO 21496-1): what `assemble` writes `read` finds
/// again, exactly; a phone's Ultra HDR photo reads; damage is an error, never a crash.
final class GainMapJPEGTests: XCTestCase {
    /// A minimal JPEG's bytes: SOI, one comment segment, SOS, a few scan bytes, EOI.
    func jpeg(_ comment: String) -> [UInt8] {
        [0xFF, 0xD8] + GainMapJPEG.segment(0xFE, Array(comment.utf8)) + [0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34, 0xFF, 0xD9]
    }

    func testWhatIsWrittenReadsBack() throws {
        let primary = jpeg("base"), map = jpeg("gain map")
        for metadata in [
            GainMapMetadata(gainMapMin: [-1.5, -0.25, -3], gainMapMax: [2, 1.25, 0.5], gamma: [1, 1.2, 0.8], hdrCapacityMax: 2),
            GainMapMetadata(gainMapMin: [0, 0, 0], gainMapMax: [2.5, 2.5, 2.5], hdrCapacityMin: 0.5, hdrCapacityMax: 2.5)
        ] {
            let file = try GainMapJPEG.assemble(primary: primary, gainMap: map, metadata: metadata)
            let found = try GainMapJPEG.read(file)
            // The primary is the original with the container's segments after its SOI; the map ends the file.
            XCTAssertEqual(Array(file[found.primary].suffix(primary.count - 2)), Array(primary.dropFirst(2)))
            XCTAssertEqual(Array(file[found.gainMap].suffix(map.count - 2)), Array(map.dropFirst(2)))
            XCTAssertEqual(found.primary.upperBound, found.gainMap.lowerBound, "MPF's sizes and offsets agree")
            for c in 0..<3 {
                XCTAssertEqual(found.metadata.gainMapMin[c], metadata.gainMapMin[c], accuracy: 1e-6)
                XCTAssertEqual(found.metadata.gainMapMax[c], metadata.gainMapMax[c], accuracy: 1e-6)
                XCTAssertEqual(found.metadata.gamma[c], metadata.gamma[c], accuracy: 1e-6)
                XCTAssertEqual(found.metadata.offsetSDR[c], 1.0 / 64, accuracy: 1e-6)
            }
            XCTAssertEqual(found.metadata.hdrCapacityMax, metadata.hdrCapacityMax, accuracy: 1e-6)
            // ISO 21496-1's binary copy says the same.
            let segments = try GainMapJPEG.segments(file, from: found.gainMap.lowerBound)
            let iso = try XCTUnwrap(segments.first { file[$0.payload].starts(with: GainMapJPEG.isoNamespace) })
            let binary = try GainMapJPEG.isoMetadata(Array(file[(iso.payload.lowerBound + GainMapJPEG.isoNamespace.count)..<iso.payload.upperBound]))
            for c in 0..<3 { XCTAssertEqual(binary.gainMapMax[c], metadata.gainMapMax[c], accuracy: 1e-6) }
            XCTAssertEqual(binary.hdrCapacityMin, metadata.hdrCapacityMin, accuracy: 1e-6)
        }
    }

    /// The published formulas: a stored value and its log2 gain, and the HDR light rebuilt, both ways.
    func testTheFormulasInvertEachOther() {
        let m = GainMapMetadata(gainMapMin: [-1, -1, -1], gainMapMax: [3, 3, 3], gamma: [2, 2, 2], hdrCapacityMax: 3)
        for g in stride(from: -1.0, through: 3.0, by: 0.25) {
            XCTAssertEqual(m.log2Gain(stored: m.encode(log2Gain: g, channel: 0), channel: 0), g, accuracy: 1e-9)
        }
        let stored = m.encode(log2Gain: 2, channel: 1)
        XCTAssertEqual(m.hdr(sdr: 0.5, stored: stored, channel: 1), (0.5 + 1.0 / 64) * 4 - 1.0 / 64, accuracy: 1e-9)
        XCTAssertEqual(m.hdr(sdr: 0.5, stored: stored, channel: 1, headroom: 0), 0.5, accuracy: 1e-9, "an SDR screen shows the base")
        XCTAssertEqual(m.hdr(sdr: 0.5, stored: stored, channel: 1, headroom: 1.5), (0.5 + 1.0 / 64) * 2 - 1.0 / 64, accuracy: 1e-9)
    }

    /// A phone's Ultra HDR photo (../shared/realmedia): its gain map found through MPF, its hdrgm values read.
    func testAPhonesUltraHDRPhotoReads() throws {
        guard let path = RealMedia.path("mishaal_Ultra_HDR_Samples_Originals_05.jpg") else { return }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let found = try GainMapJPEG.read(bytes)
        XCTAssertEqual(Array(bytes[found.gainMap].prefix(3)), [0xFF, 0xD8, 0xFF])
        XCTAssertEqual(found.gainMap.count, 37085, "the XMP container's Item:Length for the gain map")
        XCTAssertEqual(found.metadata.gainMapMax[0], 2.205275, accuracy: 1e-6)
        XCTAssertEqual(found.metadata.hdrCapacityMax, 2.205275, accuracy: 1e-6)
        XCTAssertEqual(found.metadata.gainMapMin, [0, 0, 0])
        XCTAssertEqual(found.metadata.offsetSDR, [0, 0, 0])
    }

    func testDamageIsAnErrorNeverACrash() throws {
        let file = try GainMapJPEG.assemble(
            primary: jpeg("base"), gainMap: jpeg("map"), metadata: GainMapMetadata(gainMapMin: [0, 0, 0], gainMapMax: [1, 1, 1], hdrCapacityMax: 1))
        XCTAssertThrowsError(try GainMapJPEG.read(jpeg("no map")))
        XCTAssertThrowsError(try GainMapJPEG.read([0x89, 0x50, 0x4E, 0x47]))
        for cut in stride(from: 0, to: file.count, by: 7) { _ = try? GainMapJPEG.read(Array(file.prefix(cut))) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed sequence: the same damage every run
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % 1_000_003)
        }
        for _ in 0..<300 {
            var damaged = file
            for _ in 0..<4 { damaged[next() % damaged.count] = UInt8(next() % 256) }
            _ = try? GainMapJPEG.read(damaged)
        }
    }
}
