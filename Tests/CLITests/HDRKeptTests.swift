import Foundation
import SDRifyMeasure
import XCTest

/// `convert --range hdr` (issue 44): the HDR kept, upright, 10-bit BT.2020 in the source's transfer, its static
/// metadata carried, its light the source's (compared with ffmpeg's own decode of the source, in PQ); SDR placed at
/// BT.2408's 203 cd/m² and back through sdrify's tone map; what it cannot carry refused before any output exists.
final class HDRKeptTests: CLITestCase {
    func report(_ r: Support.Result) throws -> [String: Any] {
        XCTAssertEqual(r.status, 0, r.stderr)
        return try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    func video(_ path: String) throws -> [String: Any] { Support.streams(try Support.ffprobe(path), "video").first ?? [:] }

    /// Stream side data by type, from ffprobe.
    func sideData(_ path: String) throws -> [String: [String: Any]] {
        let r = try Support.run(
            Support.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let list = ((json["streams"] as? [[String: Any]])?.first?["side_data_list"] as? [[String: Any]]) ?? []
        return Dictionary(list.map { ($0["side_data_type"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Picture `index` as 16-bit R'G'B' in PQ (the same zimg conversion on both sides of a comparison).
    func pqFrame(_ path: String, _ index: Int) throws -> [UInt16] { try pqFrames(path, [index])[0] }
    func pqFrames(_ path: String, _ indices: [Int]) throws -> [[UInt16]] {
        try Support.rawFrames(path, indices: indices, pixelFormat: "rgb48le", filter: "zscale=t=smpte2084:npl=203").map { bytes in
            bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        }
    }

    func assertHDRStream(_ v: [String: Any], transfer: String, codec: String = "hevc", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(v["codec_name"] as? String, codec, file: file, line: line)
        XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p10le", file: file, line: line)
        XCTAssertEqual(v["color_primaries"] as? String, "bt2020", file: file, line: line)
        XCTAssertEqual(v["color_space"] as? String, "bt2020nc", file: file, line: line)
        XCTAssertEqual(v["color_transfer"] as? String, transfer, file: file, line: line)
        XCTAssertEqual(v["color_range"] as? String, "tv", file: file, line: line)
        if codec == "hevc" {
            XCTAssertEqual(v["profile"] as? String, "Main 10", file: file, line: line)
            XCTAssertEqual(v["codec_tag_string"] as? String, "hvc1", file: file, line: line)
        }
    }

    func testPQKeepsItsLightTagsAndMetadata() throws {
        let source = Support.vector("pq_hevc_hdr10.mp4"), out = file("pq.mp4")
        let json = try report(try Support.sdrify([source, out, "--range", "hdr", "--preset", "HighestQuality", "--json"]))
        XCTAssertEqual(json["range"] as? String, "pq")
        XCTAssertEqual(json["codec"] as? String, "hevc")
        XCTAssertEqual(json["tonemap"] as? String, "none", "nothing is tone mapped")
        let v = try video(out), s = try video(source)
        assertHDRStream(v, transfer: "smpte2084")
        XCTAssertEqual(v["width"] as? Int, s["width"] as? Int)
        XCTAssertEqual(v["height"] as? Int, s["height"] as? Int)
        XCTAssertEqual(v["nb_frames"] as? String, s["nb_frames"] as? String, "every picture")
        // The source's mastering display and light level (its SEI), in the MP4's boxes.
        let side = try sideData(out)
        let mastering = try XCTUnwrap(side["Mastering display metadata"], "mdcv")
        XCTAssertEqual(mastering["max_luminance"] as? String, "10000000/10000")
        XCTAssertEqual(mastering["min_luminance"] as? String, "1/10000")
        XCTAssertEqual(mastering["green_y"] as? String, "34500/50000")
        let light = try XCTUnwrap(side["Content light level metadata"], "clli")
        XCTAssertEqual(light["max_content"] as? Int, 1000)
        XCTAssertEqual(light["max_average"] as? Int, 400)
        // Its light is the source's (only the encoder between them).
        let pictures = [0, 12, 24]
        for (index, (a, b)) in zip(pictures, zip(try pqFrames(source, pictures), try pqFrames(out, pictures))) {
            let psnr = Support.psnr(a, b)
            print("PQ kept, picture \(index): \(psnr) dB")
            XCTAssertGreaterThanOrEqual(psnr, 40, "picture \(index): PQ-domain PSNR \(psnr) dB")
        }
    }

    func testHLGPortraitComesUprightAndStaysHLG() throws {
        let source = Support.vector("hlg_portrait.mov"), out = file("hlg.mp4")
        let json = try report(try Support.sdrify([source, out, "--range", "hdr", "--preset", "HighestQuality", "--json"]))
        XCTAssertEqual(json["range"] as? String, "hlg")
        let v = try video(out)
        assertHDRStream(v, transfer: "arib-std-b67")
        XCTAssertNil(try sideData(out)["Display Matrix"], "upright pixels, identity matrix")
        // ffmpeg turns the source by its matrix: the same picture, the same size.
        let upright = try pqFrame(source, 3), ours = try pqFrame(out, 3)
        XCTAssertEqual(upright.count, ours.count, "the source's displayed size")
        if upright.count == ours.count {
            let psnr = Support.psnr(upright, ours)
            XCTAssertGreaterThanOrEqual(psnr, 40, "PQ-domain PSNR \(psnr) dB")
        }
        XCTAssertLessThan(v["width"] as? Int ?? 0, v["height"] as? Int ?? 0, "portrait")
    }

    func testFixedRateAndTurnOnTheHDRKept() throws {
        let source = Support.vector("pq_hevc_hdr10.mp4"), out = file("turned.mp4"), oracle = file("oracle.mp4")
        XCTAssertEqual(try Support.sdrify([source, out, "--range", "hdr", "--fps", "24", "--rotate", "90", "-q"]).status, 0)
        try ffmpeg(["-i", source, "-vf", "fps=24", "-c:v", "libx264", "-preset", "ultrafast", oracle])
        let v = try video(out), s = try video(source), o = try video(oracle)
        assertHDRStream(v, transfer: "smpte2084")
        XCTAssertEqual(v["nb_frames"] as? String, o["nb_frames"] as? String, "ffmpeg's fps filter makes as many pictures")
        XCTAssertEqual(v["width"] as? Int, s["height"] as? Int, "turned")
        XCTAssertEqual(v["height"] as? Int, s["width"] as? Int, "turned")
        // The first picture is the source's first, turned a quarter clockwise (ffmpeg's transpose=clock).
        let turned = try Support.rawFrame(source, index: 0, pixelFormat: "rgb48le", filter: "transpose=clock,zscale=t=smpte2084:npl=203")
        let ours = try pqFrame(out, 0)
        let psnr = Support.psnr(turned.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }, ours)
        XCTAssertGreaterThanOrEqual(psnr, 40, "PQ-domain PSNR \(psnr) dB")
    }

    /// `--hdr-output`: the SDR file and the HDR kept from one decode; the SDR one shows the picture a plain
    /// conversion shows (tone mapped from the HDR render instead of the source: PSNR ≥ 40 dB), the HDR one what
    /// `--range hdr` makes; both with every picture and the sound.
    func testBothFilesFromOneDecode() throws {
        let source = Support.vector("hlg_hevc_aac.mov"), sdr = file("sdr.mp4"), hdr = file("hdr.mp4")
        let plain = file("plain.mp4"), kept = file("kept.mp4")
        let json = try report(try Support.sdrify([source, sdr, "--hdr-output", hdr, "--json"]))
        XCTAssertEqual(json["hdr_output"] as? String, hdr)
        XCTAssertEqual(json["range"] as? String, "sdr")
        XCTAssertEqual(try Support.sdrify([source, plain, "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([source, kept, "--range", "hdr", "-q"]).status, 0)
        let v = try video(sdr), h = try video(hdr)
        XCTAssertEqual(v["color_transfer"] as? String, "bt709")
        XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p")
        assertHDRStream(h, transfer: "arib-std-b67")
        for (ours, theirs) in [(sdr, plain), (hdr, kept)] {
            let a = try Support.ffprobe(ours), b = try Support.ffprobe(theirs)
            XCTAssertEqual(Support.streams(a, "video").first?["nb_frames"] as? String, Support.streams(b, "video").first?["nb_frames"] as? String)
            XCTAssertEqual(Support.streams(a, "audio").count, 1, "\(ours): the sound")
        }
        let psnr = Support.psnr(
            try Support.rawFrame(sdr, index: 10, pixelFormat: "rgb24"), try Support.rawFrame(plain, index: 10, pixelFormat: "rgb24"))
        XCTAssertGreaterThanOrEqual(psnr, 40, "the SDR file shows a plain conversion's picture (\(psnr) dB)")
        XCTAssertEqual(Support.psnr(try pqFrame(hdr, 10), try pqFrame(kept, 10)), 99, "the HDR file is --range hdr's, bit for bit")
        // The same file twice, or with --range hdr, is refused.
        for extra in [["--hdr-output", file("x.mp4")], ["--hdr-output", hdr, "--range", "hdr"]] {
            let r = try Support.sdrify([source, file("x.mp4")] + extra)
            XCTAssertEqual(r.status, 64, r.stderr)
        }
    }

    /// One picture alone: x265's 10-bit library leaves its decode time unset (any value), which the muxer refused
    /// (exit 4) most of the time. Three runs, each must write it.
    func testOnePictureIsWritten() throws {
        let one = file("one.mp4")
        try ffmpeg(["-i", Support.vector("sdr_h264_aac.mp4"), "-frames:v", "1", "-an", one])
        for run in 1...3 {
            let out = file("one-hdr-\(run).mp4")
            let r = try Support.sdrify([one, out, "--range", "hdr", "-q"])
            XCTAssertEqual(r.status, 0, "run \(run): \(r.stderr)")
            XCTAssertEqual(try video(out)["nb_frames"] as? String, "1")
        }
    }

    func testAV1CarriesHDR() throws {
        let out = file("av1.mp4")
        let json = try report(try Support.sdrify([Support.vector("pq_hevc_hdr10.mp4"), out, "--range", "hdr", "--codec", "av1", "--json"]))
        XCTAssertEqual(json["codec"] as? String, "av1")
        assertHDRStream(try video(out), transfer: "smpte2084", codec: "av1")
        XCTAssertNotNil(try sideData(out)["Mastering display metadata"])
    }

    /// SDR white lands at HLG 0.75 (BT.2408: 203 cd/m² on the 1000 cd/m² display), and an SDR picture comes back
    /// through sdrify's own tone map as it was (mean CIEDE2000 of the photographic areas ≤ 1.5).
    func testSDRIsPlacedAt203AndComesBack() throws {
        let white = file("white.mp4"), placed = file("white-hdr.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "color=white:s=128x128:d=0.2", "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-colorspace", "bt709", "-c:v", "libx264", "-qp", "0", white
        ])
        let json = try report(try Support.sdrify([white, placed, "--range", "hdr", "--json"]))
        XCTAssertEqual(json["range"] as? String, "hlg", "HDR made of SDR is HLG")
        let yuv = try Support.rawFrame(placed, index: 0, pixelFormat: "yuv420p10le")
        let y = yuv.withUnsafeBytes { Int($0.load(fromByteOffset: (64 * 128 + 64) * 2, as: UInt16.self)) }
        XCTAssertEqual(Double(y - 64) / 876, 0.75, accuracy: 0.005, "SDR white at HLG 75 %")

        let layout = try RoundTripLayout.load(Support.vector("roundtrip_layout.json"))
        let sdr = file("sdr.mp4"), hdr = file("hdr.mp4"), back = file("back.mp4")
        try ffmpeg([
            "-i", Support.vector("roundtrip_reference.png"), "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-c:v", "libx264", "-crf", "6", sdr
        ])
        XCTAssertEqual(try Support.sdrify([sdr, hdr, "--range", "hdr", "--preset", "HighestQuality", "--crf", "10", "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([hdr, back, "--preset", "HighestQuality", "--crf", "10", "-q"]).status, 0)
        let difference = RoundTrip.photoDifference(
            yuv: try Support.rawFrame(back, index: 0, pixelFormat: "yuv420p"), reference: try Support.rawFrame(sdr, index: 0, pixelFormat: "rgb24"),
            layout: layout)
        print("SDR → HDR → SDR: mean ΔE00 \(difference.mean), p95 \(difference.p95)")
        XCTAssertLessThanOrEqual(difference.mean, 1.5, "mean CIEDE2000")
    }

    func testWhatItCannotCarryIsRefused() throws {
        let source = Support.vector("pq_hevc_hdr10.mp4"), out = file("refused.mp4")
        let hdr = ["--range", "hdr"]
        let cases: [([String], String)] = [
            (hdr + ["--codec", "h264"], "h264 (x264) does not carry HDR"), (hdr + ["--preset", "Passthrough"], "Passthrough"),
            (["--range", "wide"], "--range must be sdr or hdr")
        ]
        for (extra, named) in cases {
            let r = try Support.sdrify([source, out] + extra)
            XCTAssertEqual(r.status, 64, "\(extra): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(named), "\(extra) names the problem: \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(extra): no output")
        }
    }

    /// Picture `index` as SDR display light encoded for the gamma 2.2 screen (0…1, packed planes): an SDR file read as
    /// its screen shows it, an HDR one as the light it places there (1 = 203 cd/m²); beyond white clipped.
    func sdrSignal(_ path: String, _ index: Int, hdr: Bool) throws -> [Double] {
        let filter =
            hdr ? "zscale=t=linear:npl=203:p=bt709,format=gbrpf32le" : "zscale=tin=bt470m:min=709:pin=709:rin=limited:t=linear:p=709,format=gbrpf32le"
        let bytes = try Support.rawFrame(path, index: index, pixelFormat: "gbrpf32le", filter: filter)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }.map { pow(min(max(Double($0), 0), 1), 1 / 2.2) }
    }

    /// `compose --range hdr`: an HDR clip kept, an SDR clip and a colour placed in it at 203 cd/m², faded between in
    /// the signal; as many pictures as the SDR composition; each clip's picture the light it has on its own.
    func testCompositionKeepsTheHDRAndPlacesSDRInIt() throws {
        let pq = Support.vector("pq_hevc_hdr10.mp4"), sdr = file("soft.mp4")
        // Bars softened (saturation 0.6, contrast 0.8): no channel pinned at 0 or 1, where any encoder's chroma
        // error is all there is to measure.
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=1,eq=saturation=0.6:contrast=0.8", "-pix_fmt", "yuv420p", "-color_primaries",
            "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-c:v", "libx264", "-crf", "12", sdr
        ])
        let out = file("composed.mp4"), plain = file("plain.mp4")
        let clips = [pq, sdr, "color:#3366cc:1"]
        let json = try report(
            try Support.sdrify(["compose"] + clips + ["-o", out, "--range", "hdr", "--transition", "fade:0.4", "--crf", "8", "--json"]))
        XCTAssertEqual(json["range"] as? String, "pq", "the first HDR clip's kind")
        XCTAssertEqual(try Support.sdrify(["compose"] + clips + ["-o", plain, "--transition", "fade:0.4", "-q"]).status, 0)
        let v = try video(out)
        assertHDRStream(v, transfer: "smpte2084")
        XCTAssertEqual(v["nb_frames"] as? String, try video(plain)["nb_frames"] as? String, "the SDR composition's pictures")
        // The HDR clip as it was (picture 5, before the fade), in PQ.
        let kept = Support.psnr(try pqFrame(pq, 5), try pqFrame(out, 5))
        XCTAssertGreaterThanOrEqual(kept, 40, "the HDR clip kept (\(kept) dB)")
        // The SDR clip's picture 15 (clip 2 starts at 30 − 12: a 0.4 s fade at 30 fps) and the colour's, as the SDR
        // screen shows them.
        let middle = 30 - 12 + 15
        let placed = Support.psnr(
            try sdrSignal(sdr, 15, hdr: false).map { UInt8(($0 * 255).rounded()) },
            try sdrSignal(out, middle, hdr: true).map { UInt8(($0 * 255).rounded()) })
        XCTAssertGreaterThanOrEqual(placed, 34, "the SDR clip at 203 cd/m² (\(placed) dB)")
        let colour = try sdrSignal(out, 62, hdr: true), n = colour.count / 3  // 30 + 30 + 30 − 2 × 12 = 66 pictures
        XCTAssertEqual(n, 640 * 360)
        guard n == 640 * 360 else { return }
        let expected = [0x66, 0xCC, 0x33].map { Double($0) / 255 }  // planes G, B, R of #3366cc
        for (p, value) in expected.enumerated() { XCTAssertEqual(colour[p * n + n / 2], value, accuracy: 0.02, "the colour clip, plane \(p)") }
        // Refused: a codec without HDR.
        let r = try Support.sdrify(["compose", pq, sdr, "-o", file("x.mp4"), "--range", "hdr", "--codec", "h264"])
        XCTAssertEqual(r.status, 64, r.stderr)
    }

    /// A phone's Dolby Vision 8.4 clip keeps its HLG base, upright; the Dolby Vision configuration is not claimed.
    func testDolbyVisionKeepsItsHLGBase() throws {
        guard RealMediaTests.present() else { return }
        let source = RealMediaTests.folder.appendingPathComponent("androidx_dolbyVision-hdr.MOV").path, out = file("dv.mp4")
        let json = try report(try Support.sdrify([source, out, "--range", "hdr", "--preset", "HighestQuality", "--json"]))
        XCTAssertEqual(json["range"] as? String, "hlg")
        assertHDRStream(try video(out), transfer: "arib-std-b67")
        let side = try sideData(out)
        XCTAssertNil(side["DOVI configuration record"], "no Dolby Vision claimed: the enhancement is not written")
        XCTAssertNil(side["Display Matrix"], "upright")
        let upright = try pqFrame(source, 1), ours = try pqFrame(out, 1)
        XCTAssertEqual(upright.count, ours.count)
        if upright.count == ours.count { XCTAssertGreaterThanOrEqual(Support.psnr(upright, ours), 40) }
    }
}
