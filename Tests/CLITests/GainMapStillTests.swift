import Foundation
import SDRifyProbe
import SDRifyValues
import XCTest

/// `--gain-map` (issue 44): a still of HDR input as an Ultra HDR JPEG. Every JPEG reader shows its base (the SDR
/// thumbnail); our own reader finds the gain map and its metadata, and the HDR picture rebuilt from them with the
/// published formulas matches the HDR render (`convert --range hdr`) in PQ.
final class GainMapStillTests: CLITestCase {
    /// The HDR picture a gain-map JPEG rebuilds on a screen with all the headroom it asks for: linear BT.709, 1 = SDR
    /// white, packed R, G, B; and the base alone, the same way.
    func rebuild(_ path: String) throws -> (hdr: [Double], base: [Double], width: Int, height: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let found = try GainMapJPEG.read(bytes)
        let mapFile = file("map.jpg")
        try Data(bytes[found.gainMap]).write(to: URL(fileURLWithPath: mapFile))
        let base = Support.streams(try Support.ffprobe(path), "video").first ?? [:]
        let map = Support.streams(try Support.ffprobe(mapFile), "video").first ?? [:]
        let (w, h) = (base["width"] as? Int ?? 0, base["height"] as? Int ?? 0)
        let (mw, mh) = (map["width"] as? Int ?? 0, map["height"] as? Int ?? 0)
        XCTAssertGreaterThan(mw, 0)
        let sdr = try Support.rawFrame(path, index: 0, pixelFormat: "rgb24"), stored = try Support.rawFrame(mapFile, index: 0, pixelFormat: "rgb24")
        func srgb(_ v: UInt8) -> Double { let s = Double(v) / 255; return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4) }
        var hdr = [Double](repeating: 0, count: w * h * 3), light = hdr
        for y in 0..<h {
            for x in 0..<w {
                let m = ((y * mh / h) * mw + x * mw / w) * 3  // the map's pixel over this one
                for c in 0..<3 {
                    let i = (y * w + x) * 3 + c
                    light[i] = srgb(sdr[i])
                    hdr[i] = found.metadata.hdr(sdr: light[i], stored: Double(stored[m + c]) / 255, channel: c)
                }
            }
        }
        return (hdr, light, w, h)
    }

    /// PSNR in PQ (signal 0…1) of two linear pictures (1 = 203 cd/m²), negatives as 0.
    func pqPSNR(_ a: [Double], _ b: [Double]) -> Double {
        var sse = 0.0
        for i in 0..<a.count {
            let d = PQ.encode(max(a[i], 0) * 203) - PQ.encode(max(b[i], 0) * 203)
            sse += d * d
        }
        return 10 * log10(Double(a.count) / max(sse, 1e-12))
    }

    /// Picture `index` of an HDR file as linear BT.709 (1 = 203 cd/m²), packed R, G, B.
    func linear(_ path: String, _ index: Int) throws -> [Double] {
        let bytes = try Support.rawFrame(path, index: index, pixelFormat: "gbrpf32le", filter: "zscale=t=linear:npl=203:p=bt709")
        let planes = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let n = planes.count / 3
        var out = [Double](repeating: 0, count: planes.count)
        for i in 0..<n { out[i * 3] = Double(planes[2 * n + i]); out[i * 3 + 1] = Double(planes[i]); out[i * 3 + 2] = Double(planes[n + i]) }
        return out
    }

    func check(_ source: String, at index: Int, time: String, minimum: Double, overBase: Double) throws {
        let still = file("still.jpg"), plain = file("plain.jpg"), kept = file("kept.mp4")
        XCTAssertEqual(try Support.sdrify(["thumbnail", source, still, "--gain-map", "--at", time, "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify(["thumbnail", source, plain, "--at", time, "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([source, kept, "--range", "hdr", "--preset", "HighestQuality", "-q"]).status, 0)
        // Any JPEG reader: the base, the plain thumbnail's picture.
        let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", still, "-f", "null", "-"])
        XCTAssertEqual(r.stderr, "", "ffmpeg reads it as a plain JPEG")
        let psnr = Support.psnr(
            try Support.rawFrame(still, index: 0, pixelFormat: "rgb24"), try Support.rawFrame(plain, index: 0, pixelFormat: "rgb24"))
        XCTAssertGreaterThanOrEqual(psnr, 38, "the base is the SDR thumbnail (\(psnr) dB)")
        // Our reader and the published formulas: the HDR render's picture.
        let (hdr, base, _, _) = try rebuild(still)
        let reference = try linear(kept, index)
        XCTAssertEqual(hdr.count, reference.count)
        guard hdr.count == reference.count else { return }
        let rebuilt = pqPSNR(hdr, reference), alone = pqPSNR(base, reference)
        print("gain map \(URL(fileURLWithPath: source).lastPathComponent): rebuilt HDR \(rebuilt) dB in PQ (the base alone \(alone) dB)")
        XCTAssertGreaterThanOrEqual(rebuilt, minimum, "the HDR rebuilt from the file")
        XCTAssertGreaterThan(rebuilt, alone + overBase, "the gain map brings the HDR back")
    }

    /// Synthetic bars (sharp saturated edges: the hardest case for a map at half resolution) and a real clip.
    func testThumbnailRebuildsTheHDR() throws {
        // 3 dB over the base on the synthetic bars: their saturated colours over SDR white keep their saturation in the
        // base, dimmed, not whitened (issue 55), so the base alone is already 27 dB from the HDR (18.7 when they were
        // whitened); and a channel at 0 on a bar's edge is one no gain brings back.
        try check(Support.vector("pq_hevc_hdr10.mp4"), at: 15, time: "0.5", minimum: 28, overBase: 3)
    }

    func testARealClipsGainMap() throws {
        guard RealMediaTests.present() else { return }
        try check(RealMediaTests.folder.appendingPathComponent("androidx_dolbyVision-hdr.MOV").path, at: 1, time: "0.05", minimum: 36, overBase: 8)
    }

    /// `sheet --gain-map`: the tiles' HDR above SDR white on an HDR screen, the time labels the base's own there.
    func testContactSheetCarriesTheTilesHDRNotTheLabels() throws {
        let sheet = file("sheet.jpg"), plain = file("plain.jpg")
        let source = Support.vector("pq_hevc_hdr10.mp4")
        XCTAssertEqual(try Support.sdrify(["sheet", source, sheet, "--grid", "2x2", "--width", "640", "--gain-map", "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify(["sheet", source, plain, "--grid", "2x2", "--width", "640", "-q"]).status, 0)
        let (hdr, base, w, h) = try rebuild(sheet)
        XCTAssertGreaterThan(hdr.max() ?? 0, 1.5, "tiles brighter than SDR white on an HDR screen")
        // The base is the plain sheet's picture (4:4:4 against 4:2:0 JPEG: close, not equal).
        let psnr = Support.psnr(
            try Support.rawFrame(sheet, index: 0, pixelFormat: "rgb24"), try Support.rawFrame(plain, index: 0, pixelFormat: "rgb24"))
        XCTAssertGreaterThanOrEqual(psnr, 32.5, "the base is the plain sheet (\(psnr) dB; its labels' and bars' sharp edges in 4:4:4 against 4:2:0)")
        // A label's white letters (the brightest base pixels low in the tiles, where only text is that white) rebuild
        // as themselves: gain 1 where the labels are (within the map's 8 bits and its JPEG around the letters' edges).
        let gap = 8, tileHeight = (h - 3 * gap) / 2
        var checked = 0
        for y in (gap + tileHeight * 3 / 4)..<(gap + tileHeight) {
            for x in gap..<(w / 2) {
                let i = (y * w + x) * 3
                if base[i] > 0.95, base[i + 1] > 0.95, base[i + 2] > 0.95 {
                    XCTAssertEqual(hdr[i + 1], base[i + 1], accuracy: 0.1, "label pixel (\(x), \(y))")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10, "white label pixels found")
    }

    /// A poster beside the video (convert), with and without the HDR kept; SDR input gets a plain JPEG and says so;
    /// a gain map in PNG is refused.
    func testPosterAndWhatIsRefused() throws {
        let source = Support.vector("pq_hevc_hdr10.mp4")
        for extra in [[], ["--range", "hdr"]] {
            let poster = file("poster.jpg")
            let r = try Support.sdrify([source, file("out.mp4"), "--poster", poster, "--gain-map", "-y", "-q"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let found = try GainMapJPEG.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: poster))))
            XCTAssertGreaterThan(found.metadata.hdrCapacityMax, 0.5, "\(extra): HDR above SDR white")
        }
        let sdr = file("sdr.jpg")
        let r = try Support.sdrify(["thumbnail", Support.vector("sdr_h264_aac.mp4"), sdr, "--gain-map"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("--gain-map: nothing HDR to keep"), r.stderr)
        XCTAssertThrowsError(try GainMapJPEG.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: sdr)))))
        for args in [["thumbnail", source, file("x.png"), "--gain-map"], [source, file("x.mp4"), "--poster", file("x.webp"), "--gain-map"]] {
            let refused = try Support.sdrify(args)
            XCTAssertEqual(refused.status, 64, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("JPEG"), refused.stderr)
        }
    }
}
