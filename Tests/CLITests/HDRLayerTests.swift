import Foundation
import XCTest

/// Layers on the HDR kept (issue 44): stickers, titles and captions at graphics white (BT.2408: 203 cd/m², PQ 58 %,
/// HLG 75 %), never above it; effects in the HDR's own levels, looking as they do on SDR; and the SDR beside the HDR
/// kept with its layers drawn in SDR, as a plain SDR run draws them.
final class HDRLayerTests: CLITestCase {
    /// An opaque 64×64 sticker of `colour` (ffmpeg's colour name or 0xRRGGBB).
    func sticker(_ colour: String, _ name: String) throws -> String {
        let path = file(name)
        try ffmpeg(["-f", "lavfi", "-i", "color=\(colour):s=64x64", "-frames:v", "1", path])
        return path
    }

    func captions() throws -> String {
        let path = file("c.srt")
        try "1\n00:00:00,000 --> 00:00:05,000\nWHITE LETTERS\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Picture `index` as 10-bit Y'CbCr planes.
    func planes(_ path: String, _ index: Int, width: Int, height: Int) throws -> (y: [Int], cb: [Int], cr: [Int]) {
        let bytes = try Support.rawFrame(path, index: index, pixelFormat: "yuv420p10le")
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)).map(Int.init) }
        let n = width * height
        return (Array(samples[0..<n]), Array(samples[n..<(n + n / 4)]), Array(samples[(n + n / 4)..<(n + n / 2)]))
    }

    /// BT.2408's graphics white, as published: PQ 58 % (203 cd/m²), HLG 75 %; 10-bit limited-range luma codes.
    let graphicsWhite = ["pq": 64 + 876 * 0.5807, "hlg": 64 + 876 * 0.75]

    func testGraphicsSitAtGraphicsWhiteNeverAbove() throws {
        let white = try sticker("white", "white.png"), srt = try captions()
        for (source, kind) in [("pq_hevc_hdr10.mp4", "pq"), ("hlg_hevc_aac.mov", "hlg")] {
            let out = file("\(kind).mp4")
            let r = try Support.sdrify([
                Support.vector(source), out, "--range", "hdr", "--crf", "4", "--sticker", "\(white)@10,10", "--captions", srt, "-y", "-q"
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
            let v = Support.streams(try Support.ffprobe(out), "video").first ?? [:]
            let (w, h) = (v["width"] as? Int ?? 0, v["height"] as? Int ?? 0)
            XCTAssertEqual(v["pix_fmt"] as? String, "yuv420p10le")
            guard w > 0, h > 0 else { continue }
            let p = try planes(out, 0, width: w, height: h)
            let expected = graphicsWhite[kind]!
            XCTAssertEqual(Double(p.y[40 * w + 40]), expected, accuracy: 3, "\(kind): the sticker's white")
            XCTAssertEqual(Double(p.cb[20 * (w / 2) + 20]), 512, accuracy: 3, "\(kind): white has no colour")
            XCTAssertEqual(Double(p.cr[20 * (w / 2) + 20]), 512, accuracy: 3, "\(kind): white has no colour")
            // The captions' letters: white at most (the source's own highlights may be anywhere else).
            let band = (h * 8 / 10)..<h
            let withoutCaptions = file("\(kind)-plain.mp4")
            XCTAssertEqual(try Support.sdrify([Support.vector(source), withoutCaptions, "--range", "hdr", "--crf", "4", "-y", "-q"]).status, 0)
            let under = try planes(withoutCaptions, 0, width: w, height: h)
            // (Types spelled out: inferred, this line took the type checker 7.5 s.)
            let columns = (w / 4)..<(3 * w / 4)
            let inBand: [Int] = band.flatMap { (y: Int) -> [Int] in columns.map { (x: Int) -> Int in y * w + x } }
            let changed: [Int] = inBand.filter { (i: Int) -> Bool in abs(p.y[i] - under.y[i]) > 40 }
            XCTAssertGreaterThan(changed.count, 200, "\(kind): the captions are drawn")
            let brightest = changed.map { p.y[$0] }.max() ?? 0
            XCTAssertLessThanOrEqual(Double(brightest), expected + 6, "\(kind): captions never above graphics white")
            XCTAssertGreaterThanOrEqual(Double(brightest), expected - 12, "\(kind): the letters reach graphics white")
        }
    }

    /// A coloured sticker keeps its colour: ffmpeg's own conversion of the PQ output back to SDR light (203 cd/m² =
    /// white) gives the sticker's sRGB-coded red.
    func testStickerColourComesBackThroughFFmpeg() throws {
        let red = try sticker("0xE03020", "red.png"), out = file("red.mp4")
        let r = try Support.sdrify([Support.vector("pq_hevc_hdr10.mp4"), out, "--range", "hdr", "--crf", "4", "--sticker", "\(red)@10,10", "-y", "-q"]
        )
        XCTAssertEqual(r.status, 0, r.stderr)
        let bytes = try Support.rawFrame(out, index: 0, pixelFormat: "gbrpf32le", filter: "zscale=t=linear:npl=203:p=bt709,format=gbrpf32le")
        let light = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let n = light.count / 3, w = 640, i = 40 * w + 40
        XCTAssertEqual(n, 640 * 360)
        guard n == 640 * 360 else { return }
        let (g, b, rr) = (light[i], light[n + i], light[2 * n + i])  // planes G, B, R
        for (got, want, name) in [(rr, 0xE0, "red"), (g, 0x30, "green"), (b, 0x20, "blue")] {
            let signal = pow(Double(min(max(got, 0), 1)), 1 / 2.2) * 255
            XCTAssertEqual(signal, Double(want), accuracy: 6, "\(name) of #E03020 as the SDR screen shows it")
        }
    }

    /// Effects on SDR footage kept as HDR (HLG, SDR at 203 cd/m²) look as the same effects done on SDR and then placed
    /// in HDR: compared in the HDR signal, region by region. Geometry (blocks, blur, swirl) matches closely; effects on
    /// levels are done in the HDR's own signal (adjust's luma on the grey each level places), so they match less
    /// closely, but a level or tint stated in 8-bit SDR codes and not scaled to the HDR would be far off.
    func testEffectsLookAsTheyDoOnSDR() throws {
        let source = file("src.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x360:r=10:d=1,eq=saturation=0.7:contrast=0.85", "-pix_fmt", "yuv420p", "-color_primaries",
            "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-c:v", "libx264", "-qp", "0", source
        ])
        // Each effect in its own 160×180 cell, with the least PSNR (dB, 16-bit R'G'B') measured less a margin.
        let regions: [(String, String, Double)] = [
            ("pixelate", #""block": 16"#, 36), ("blur", #""radius": 20"#, 40), ("pointillize", #""size": 14"#, 29), ("grayscale", "", 30),
            ("sepia", #""strength": 1"#, 25), ("adjust", #""brightness": 0.1, "contrast": 1.3, "saturation": 0.5"#, 28),
            ("vignette", #""strength": 0.8"#, 25), ("vortex", #""angle": 200"#, 38)
        ]
        let effects = regions.enumerated().map { i, e in
            let (x, y) = (i % 4 * 160, i / 4 * 180)
            let extra = e.1.isEmpty ? "" : ", \(e.1)"
            return #"{"type": "\#(e.0)"\#(extra), "region": {"x": \#(x), "y": \#(y), "width": 160, "height": 180}}"#
        }
        let json = file("fx.json")
        try #"{"effects": [\#(effects.joined(separator: ","))]}"#.write(toFile: json, atomically: true, encoding: .utf8)
        let sdr = file("sdr.mp4"), hdr = file("hdr.mp4"), placed = file("placed.mp4")
        for (input, out, extra) in [
            (source, sdr, ["--overlays", json]), (source, hdr, ["--range", "hdr", "--overlays", json]), (sdr, placed, ["--range", "hdr"])
        ] {
            let r = try Support.sdrify([input, out, "--crf", "6", "-y", "-q"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        func rgb(_ path: String) throws -> [UInt16] {
            try Support.rawFrame(path, index: 5, pixelFormat: "rgb48le").withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        }
        let a = try rgb(placed), b = try rgb(hdr)
        XCTAssertEqual(a.count, 640 * 360 * 3)
        guard a.count == b.count, a.count == 640 * 360 * 3 else { return }
        for (i, e) in regions.enumerated() {
            let (x0, y0) = (i % 4 * 160, i / 4 * 180)
            var sa: [UInt16] = [], sb: [UInt16] = []
            for y in (y0 + 4)..<(y0 + 176) {
                for x in (x0 + 4)..<(x0 + 156) { for c in 0..<3 { sa.append(a[(y * 640 + x) * 3 + c]); sb.append(b[(y * 640 + x) * 3 + c]) } }
            }
            let psnr = Support.psnr(sa, sb)
            print("\(e.0): on the HDR kept against on SDR then placed, \(psnr) dB")
            XCTAssertGreaterThanOrEqual(psnr, e.2, "\(e.0) on the HDR kept looks as on SDR (\(psnr) dB)")
        }
    }

    /// `--hdr-output` with layers: the HDR file is what `--range hdr` makes; the SDR file has its layers drawn in SDR
    /// over the tone-mapped picture, as a plain SDR run has them (not tone-mapped graphics white).
    func testTheSDRBesideTheHDRHasItsLayersInSDR() throws {
        let white = try sticker("white", "white.png"), srt = try captions(), source = Support.vector("pq_hevc_hdr10.mp4")
        let fx = file("fx.json")
        try #"{"effects": [{"type": "sepia", "strength": 1, "region": {"x": 320, "y": 0, "width": 160, "height": 180}}]}"#
            .write(toFile: fx, atomically: true, encoding: .utf8)
        let layers = ["--sticker", "\(white)@10,10", "--captions", srt, "--overlays", fx]
        let sdr = file("sdr.mp4"), hdr = file("hdr.mp4"), kept = file("kept.mp4"), plain = file("plain.mp4")
        XCTAssertEqual(try Support.sdrify([source, sdr, "--hdr-output", hdr] + layers + ["-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([source, kept, "--range", "hdr"] + layers + ["-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([source, plain] + layers + ["-q"]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: hdr), FileManager.default.contents(atPath: kept), "the HDR file is --range hdr's")
        let a = try Support.rawFrame(sdr, index: 3, pixelFormat: "yuv420p"), b = try Support.rawFrame(plain, index: 3, pixelFormat: "yuv420p")
        let psnr = Support.psnr(a, b)
        XCTAssertGreaterThanOrEqual(psnr, 45, "the SDR file against a plain SDR run with the same layers (\(psnr) dB)")
        XCTAssertEqual(a.count, 640 * 360 * 3 / 2)
        if a.count == 640 * 360 * 3 / 2 { XCTAssertEqual(Int(a[40 * 640 + 40]), 235, accuracy: 1, "the sticker is SDR white there") }
    }

    /// `hls --ranges sdr,hdr` with a sticker: SDR white on the SDR rung, graphics white on the HDR one.
    func testTwoRangeLadderDrawsEachInItsRange() throws {
        let white = try sticker("white", "white.png"), ladder = file("ladder")
        let r = try Support.sdrify([
            "hls", Support.vector("pq_hevc_hdr10.mp4"), ladder, "--ranges", "sdr,hdr", "--crf", "4", "--sticker", "\(white)@10,10", "-q"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        func first(_ name: String) throws -> String {
            let joined = file("\(name).mp4")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(ladder)/\(name)_init.mp4"))
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: "\(ladder)/\(name)_00001.m4s")))
            try bytes.write(to: URL(fileURLWithPath: joined))
            return joined
        }
        let sdr = try Support.rawFrame(try first("360p"), index: 0, pixelFormat: "yuv420p")
        XCTAssertEqual(sdr.count, 640 * 360 * 3 / 2)
        if sdr.count == 640 * 360 * 3 / 2 { XCTAssertEqual(Int(sdr[40 * 640 + 40]), 235, accuracy: 2, "SDR white on the SDR rung") }
        let hdr = try planes(try first("360p-hdr"), 0, width: 640, height: 360)
        XCTAssertEqual(Double(hdr.y[40 * 640 + 40]), graphicsWhite["pq"]!, accuracy: 3, "graphics white on the HDR rung")
    }

    /// A composition kept as HDR takes titles and captions too.
    func testCompositionKeepsItsTitlesOnTheHDR() throws {
        let overlays = file("titles.json")
        try ##"{"titles": [{"text": "TITLE", "start": 0, "end": 2, "size": 60, "color": "#FFFFFF"}]}"##
            .write(toFile: overlays, atomically: true, encoding: .utf8)
        let out = file("composed.mp4")
        let r = try Support.sdrify([
            "compose", Support.vector("pq_hevc_hdr10.mp4"), "color:#202020:1", "-o", out, "--range", "hdr", "--overlays", overlays,
            "--captions", try captions(), "--crf", "4", "-q"
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try planes(out, 40, width: 640, height: 360)  // the grey colour clip (from picture 30): only the layers are bright
        let brightest = p.y.max() ?? 0
        XCTAssertEqual(Double(brightest), graphicsWhite["pq"]!, accuracy: 6, "the title's and captions' white in PQ, never above")
    }
}
