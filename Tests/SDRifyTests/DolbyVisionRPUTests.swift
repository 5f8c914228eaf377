@testable import SDRify
import XCTest

/// Level 1 of a Dolby Vision RPU, read through the whole RPU syntax (libavcodec 5.1 stops before it).
final class DolbyVisionRPUTests: XCTestCase {
    static let realClip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("../shared/realmedia/androidx_dolbyVision-hdr.MOV").standardized.path

    func testLevel1FromARealIPhoneRPU() throws {
        let path = DolbyVisionRPUTests.realClip
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("shared real media not present") }
        let (_, demuxer, _) = try Prober.open(path: path, allowTruncated: false)
        let decoder = try Decoder(videoOf: demuxer, threads: 1)
        let packet = try Packet()
        var found: [DynamicHDRMetadata] = []
        while found.count < 3, try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == demuxer.videoStreamIndex else { continue }
            try decoder.send(packet)
            while let frame = try decoder.receive() { if let d = frame.dynamicHDR { found.append(d) } }
        }
        XCTAssertFalse(found.isEmpty, "every picture carries an RPU")
        for d in found {
            print("DV L1", d)
            XCTAssertEqual(d.source, .dolbyVision)
        }
    }
}
