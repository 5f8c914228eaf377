@testable import SDRifyMedia
@testable import SDRifyProbe
@testable import SDRifyToneMap
@testable import SDRifyValues
import XCTest

/// Level 1 of a Dolby Vision RPU, read through the whole RPU syntax (libavcodec 5.1 stops before it).
final class DolbyVisionRPUTests: FolderTestCase {

    /// Writes H.26x-style fields, for building RPUs.
    struct BitWriter {
        var bits: [Int] = []
        mutating func put(_ v: Int, _ n: Int) { for i in stride(from: n - 1, through: 0, by: -1) { bits.append((v >> i) & 1) } }
        mutating func ue(_ v: Int) {
            let n = v + 1, width = Int.bitWidth - n.leadingZeroBitCount
            put(0, width - 1); put(n, width)
        }
        mutating func se(_ v: Int) { ue(v > 0 ? 2 * v - 1 : -2 * v) }
        mutating func align() { while bits.count % 8 != 0 { bits.append(0) } }
        var bytes: [UInt8] {
            var b = bits
            while b.count % 8 != 0 { b.append(0) }
            return stride(from: 0, to: b.count, by: 8).map { i in UInt8(b[i..<i + 8].reduce(0) { $0 << 1 | $1 }) }
        }
    }

    /// A profile 8.4-like RPU: fixed-point coefficients, polynomial and MMR pieces, no NLQ, colour metadata, then
    /// a level-2 block before level 1 (so it must be skipped by its length).
    func rpu(min: Int, max: Int, avg: Int) -> [UInt8] {
        var w = BitWriter()
        w.put(2, 6); w.put(18, 11); w.put(1, 4); w.put(0, 4)  // rpu_type, rpu_format, profile, level
        w.put(1, 1); w.put(0, 1); w.put(0, 2); w.ue(23)  // seq info, chroma flag, fixed coefficients, log2 denom
        w.put(0, 2); w.put(0, 1)  // normalized idc, full range
        w.ue(2); w.ue(2); w.ue(4)  // BL/EL/VDR depth − 8
        w.put(0, 1); w.put(0, 3); w.put(0, 1); w.put(1, 1)  // filters, reserved, disable_residual
        w.put(1, 1); w.put(0, 1)  // dm present, use previous
        w.ue(0); w.ue(0); w.ue(0)  // rpu id, mapping colour space, chroma format
        w.ue(1); for p in [0, 512, 511] { w.put(p, 10) }  // luma: 3 pivots
        for _ in 0..<2 { w.ue(0); w.put(0, 10); w.put(1023, 10) }  // chroma: 2 pivots each
        w.ue(0); w.ue(0)  // partitions
        // Luma piece 1: polynomial order 2; piece 2: MMR order 1.
        w.ue(0); w.ue(1); for c in [-3, 1, 0] { w.se(c); w.put(12345, 23) }
        w.ue(1); w.put(0, 2); w.se(0); w.put(1, 23); for _ in 0..<7 { w.se(-1); w.put(7, 23) }
        for _ in 0..<2 { w.ue(0); w.ue(0); w.put(0, 1); for _ in 0..<2 { w.se(0); w.put(0, 23) } }
        w.ue(0); w.ue(0); w.ue(0)  // dm ids, scene refresh
        for _ in 0..<(9 + 9) { w.put(0x1234, 16) }; for _ in 0..<3 { w.put(0x0123_4567, 32) }
        w.put(0, 16); w.put(0, 16); w.put(0, 16); w.put(0, 32); w.put(12, 5); w.put(0, 2); w.put(0, 2); w.put(0, 2)
        w.put(62, 12); w.put(3079, 12); w.put(42, 10)  // source min/max PQ, diagonal
        w.ue(2); w.align()
        w.ue(11); w.put(2, 8); for _ in 0..<6 { w.put(2048, 12) }; w.put(0, 13); w.put(0, 3)  // level 2, 11 bytes
        w.ue(5); w.put(1, 8); w.put(min, 12); w.put(max, 12); w.put(avg, 12); w.put(0, 4)  // level 1, 5 bytes
        w.put(0, 32); w.put(0x80, 8)  // CRC, terminator
        // Escaped as in a NAL unit: 00 00 followed by 00-03 gets a 03.
        var escaped: [UInt8] = [0x19], zeros = 0
        for b in w.bytes {
            if zeros >= 2 && b <= 3 { escaped.append(3); zeros = 0 }
            escaped.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return escaped
    }

    func testLevel1AfterPolynomialMMRAndOtherBlocks() {
        let l1 = DolbyVisionLevel1.read(rpu: rpu(min: 7, max: 3000, avg: 1500))
        XCTAssertEqual(l1, DolbyVisionLevel1(minPQ: 7, averagePQ: 1500, maxPQ: 3000))
        XCTAssertEqual(l1?.maxLuminance ?? 0, PQ.decode(3000.0 / 4095), accuracy: 1e-9)
    }

    func testDamagedRPUsGiveNothing() {
        let good = rpu(min: 7, max: 3000, avg: 1500)
        XCTAssertNil(DolbyVisionLevel1.read(rpu: Array(good.prefix(60))), "cut short")
        XCTAssertNil(DolbyVisionLevel1.read(rpu: [0x19]))
        XCTAssertNil(DolbyVisionLevel1.read(rpu: [0x20] + good.dropFirst()), "not an RPU")
        for i in stride(from: 1, to: good.count, by: 7) {  // any byte flipped: no crash, any answer or none
            var bad = good
            bad[i] ^= 0xFF
            _ = DolbyVisionLevel1.read(rpu: bad)
        }
    }

    /// A Dolby Vision stream on a PQ base without MaxCLL of its own (profile 8.1-like: x265's PQ pictures, an RPU after
    /// each): the light its level-1 metadata adds up to, read without decoding, and carried by the HDR kept.
    func testLevel1AddsUpToTheLightTheHDRKeptCarries() throws {
        let dir: URL = work
        func run(_ tool: String, _ args: [String]) throws -> Int32 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [tool] + args
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus
        }
        let plain = dir.appendingPathComponent("pq.h265").path
        XCTAssertEqual(
            try run(
                "ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=128x72:r=10:d=0.3", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                    "-x265-params", "log-level=none:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc", "-f", "hevc", plain
                ]), 0)
        // Each picture's slice gets an RPU NAL unit (type 62) after it; the shots' peaks and averages differ.
        let shots = [(max: 2000, avg: 900), (max: 3100, avg: 1300), (max: 2600, avg: 1500)]
        let stream = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain)))
        var starts: [Int] = []
        for i in 0..<(stream.count - 3) where stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 { starts.append(i) }
        var out: [UInt8] = [], picture = 0
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : stream.count
            out += stream[start..<end]
            if (stream[start + 3] >> 1) & 0x3F < 32 {  // a slice: this picture's RPU follows it
                let shot = shots[min(picture, shots.count - 1)]
                out += [0, 0, 0, 1, 0x7C, 0x01] + rpu(min: 10, max: shot.max, avg: shot.avg)
                picture += 1
            }
        }
        XCTAssertEqual(picture, 3, "three pictures")
        let dv = dir.appendingPathComponent("dv81.h265").path
        try Data(out).write(to: URL(fileURLWithPath: dv))

        let light = try XCTUnwrap(try Prober.dolbyVisionLight(path: dv))
        XCTAssertEqual(light.maxCLL, Int(PQ.decode(3100.0 / 4095).rounded()), "the brightest shot's peak")
        XCTAssertEqual(light.maxFALL, Int(PQ.decode(1500.0 / 4095).rounded()), "the brightest shot's average")
        XCTAssertNil(try Prober.dolbyVisionLight(path: plain), "no RPU, no light (after one packet)")

        // The HDR kept carries it in the MP4's clli box.
        let sdrify = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sdrify").path
        guard FileManager.default.isExecutableFile(atPath: sdrify) else { return XCTFail("no sdrify beside the tests at \(sdrify)") }
        let kept = dir.appendingPathComponent("kept.mp4").path
        XCTAssertEqual(try run(sdrify, [dv, kept, "--range", "hdr", "-q"]), 0)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = [
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=max_content,max_average", "-of", "csv=p=0", kept
        ]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        XCTAssertTrue(text.contains("\(light.maxCLL),\(light.maxFALL)"), "clli in the output: \(text)")
    }

    /// The real iPhone clip's level 1 must describe its own pictures: its peak agrees with the peak sdrify
    /// measures on them, its average lies between its min and max.
    func testLevel1OfARealIPhoneClipAgreesWithItsPictures() throws {
        guard let path = RealMedia.path("androidx_dolbyVision-hdr.MOV") else { return }
        let (info, demuxer, _) = try Prober.open(path: path, allowTruncated: false)
        let decoder = try Decoder(videoOf: demuxer, threads: 1)
        let packet = try Packet()
        var frame: Frame? = nil
        while frame == nil, try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == demuxer.videoStreamIndex else { continue }
            try decoder.send(packet)
            frame = try decoder.receive()
        }
        let picture = try XCTUnwrap(frame)
        let metadata = try XCTUnwrap(picture.dynamicHDR, "every picture carries an RPU")
        XCTAssertEqual(metadata.source, .dolbyVision)
        let format = try XCTUnwrap(picture.format)
        let color = picture.color.resolved(width: info.video.width, height: info.video.height)
        let measured = SceneMeter(format: format, color: color, width: picture.width, height: picture.height).measure(picture)
        XCTAssertEqual(log2(metadata.peak / 203), measured.percentile(0.999), accuracy: 0.25, "peak \(metadata.peak) cd/m²")
        XCTAssertLessThan(metadata.average, metadata.peak)
        XCTAssertGreaterThan(metadata.average, 203 * exp2(measured.percentile(0.05)))
    }
}
