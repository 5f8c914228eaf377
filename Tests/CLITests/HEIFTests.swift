import Foundation
import XCTest

/// HEIF stills (HEIC, AVIF) wherever pictures are read: made by scripts/make-heif-vectors.py from one source picture
/// (one coded picture; a grid in `idat`, turned and mirrored; 10-bit HLG; iOS 18's structure with a gain map, a
/// `tmap` item and mattes; AV1), compared with ffmpeg's own reading of the source. Damaged files are exit 2.
final class HEIFTests: CLITestCase {
    /// The vectors, and the source's Y' as sdrify shows a BT.709 picture.
    func vectors() throws -> String {
        try shared("heif-vectors") { made in
            let source = made.appendingPathComponent("src.png").path
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=480x400", "-frames:v", "1", source])
            let r = try Support.run(
                "/usr/bin/python3",
                [Support.packageRoot.appendingPathComponent("scripts/make-heif-vectors.py").path, source, made.appendingPathComponent("heif").path])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        return file("heif")
    }

    static let asVideo = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"

    /// The photo as a one-picture composition at its own size; its first picture's Y'.
    func shown(_ path: String, _ name: String) throws -> [UInt8] {
        let r = try Support.sdrify("compose", path, "-o", file("\(name).mp4"), "--image-duration", "0.1", "--preset", "640x480", "--crf", "8")
        XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
        let v = Support.streams(try Support.ffprobe(file("\(name).mp4")), "video").first ?? [:]
        XCTAssertEqual(v["width"] as? Int, 480, name)
        XCTAssertEqual(v["height"] as? Int, 400, name)
        return try Support.lumaFrame(file("\(name).mp4"), index: 0)
    }

    func testHEIFPicturesShowAsTheirSource() throws {
        let dir = try vectors()
        let source = try Support.lumaFrame(file("src.png"), index: 0, filter: HEIFTests.asVideo)
        // Grid, turns and mirrors: the grid is stored turned and mirrored, so only the right reading is the source.
        for (name, least) in [("single.heic", 35.0), ("grid.heic", 35), ("ios18.heic", 35), ("single.avif", 35)] {
            let ours = try shown("\(dir)/\(name)", name)
            XCTAssertGreaterThan(Support.psnr(ours, source), least, "\(name) shows its source")
        }
        let mirrored = try Support.lumaFrame(file("src.png"), index: 0, filter: "vflip,\(HEIFTests.asVideo)")
        XCTAssertLessThan(Support.psnr(try shown("\(dir)/grid.heic", "grid-again"), mirrored), 20, "the grid is not shown mirrored")
    }

    /// A Display P3 photo is brought into BT.709's gamut: its colours come out more saturated than the same numbers
    /// read as BT.709 (the test picture's full primaries clip at BT.709's edge, so the difference is a few percent).
    func testADisplayP3PhotoIsConvertedIntoBT709() throws {
        let dir = try vectors()
        func saturation(_ name: String) throws -> Double {
            _ = try shown("\(dir)/\(name)", name)
            let yuv = try Support.rawFrame(file("\(name).mp4"), index: 0, pixelFormat: "yuv444p")
            let n = 480 * 400
            var total = 0.0
            for (cb, cr) in zip(yuv[n..<(2 * n)], yuv[(2 * n)...]) { total += abs(Double(cb) - 128) + abs(Double(cr) - 128) }
            return total / Double(n)
        }
        let bt709 = try saturation("single.heic"), p3 = try saturation("p3.heic")
        XCTAssertGreaterThan(p3, bt709 * 1.02, "P3 colours are wider than the same numbers in BT.709")
    }

    /// A 10-bit HLG photo is tone mapped as a video of the same picture is.
    func testAnHLGPhotoIsToneMappedAsVideoIs() throws {
        let dir = try vectors()
        try ffmpeg([
            "-loop", "1", "-i", file("src.png"), "-t", "0.2", "-vf",
            "zscale=tin=bt709:pin=bt709:min=bt709:rin=full:t=arib-std-b67:p=bt2020:m=bt2020nc:r=limited:npl=203,format=yuv420p10le",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
            "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", file("hlg.mp4")
        ])
        let r = try Support.sdrify(file("hlg.mp4"), file("hlg-video.mp4"), "--crf", "8")
        XCTAssertEqual(r.status, 0, r.stderr)
        let video = try Support.lumaFrame(file("hlg-video.mp4"), index: 0)
        let photo = try shown("\(dir)/hlg.heic", "hlg-photo")
        XCTAssertGreaterThan(Support.psnr(photo, video), 35, "the photo's picture is the video's")
        let untouched = try Support.lumaFrame(file("src.png"), index: 0, filter: HEIFTests.asVideo)
        XCTAssertGreaterThan(Support.psnr(photo, untouched), 10, "a picture, not noise")
    }

    /// A HEIC as a sticker and as the background of a sound-only input.
    func testHEIFAsStickerAndBackground() throws {
        let dir = try vectors()
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=640x480:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let s = try Support.sdrify(file("grey.mp4"), file("sticker.mp4"), "--sticker", "\(dir)/grid.heic@0,0")
        XCTAssertEqual(s.status, 0, s.stderr)
        let sticker = try Support.lumaFrame(file("sticker.mp4"), index: 0, filter: "crop=480:400:0:0")
        let source = try Support.lumaFrame(file("src.png"), index: 0, filter: HEIFTests.asVideo)
        XCTAssertGreaterThan(Support.psnr(sticker, source), 30)
        try ffmpeg(["-f", "lavfi", "-i", "sine=d=0.5", "-c:a", "aac", file("song.m4a")])
        let b = try Support.sdrify(file("song.m4a"), file("cover.mp4"), "--background", "\(dir)/single.heic")
        XCTAssertEqual(b.status, 0, b.stderr)
    }

    /// Cut short, overwritten numbers, a missing tile: exit 2 naming the file as a damaged HEIF image, nothing
    /// written; never a crash.
    func testDamagedHEIFIsInvalidInput() throws {
        let dir = try vectors()
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/grid.heic")))
        var cases: [(String, [UInt8])] = [("cut", Array(good.prefix(good.count / 2))), ("header", Array(good.prefix(200)))]
        // Every 4th byte of the meta box overwritten in turn (a sample of them): refused or shown, never a crash.
        let meta = (0..<good.count - 4).first { Array(good[$0..<$0 + 4]) == Array("meta".utf8) }!
        for at in stride(from: meta, to: meta + 400, by: 37) {
            var bad = good
            bad[at] ^= 0xFF
            cases.append(("byte\(at)", bad))
        }
        var refused = 0
        for (name, bytes) in cases {
            FileManager.default.createFile(atPath: file("\(name).heic"), contents: Data(bytes))
            let r = try Support.sdrify("compose", file("\(name).heic"), "-o", file("\(name).mp4"))
            XCTAssertTrue([0, 2, 3].contains(r.status), "\(name): \(r.status) \(r.stderr)")
            if r.status != 0 {
                refused += 1
                XCTAssertTrue(r.stderr.hasPrefix("sdrify: ") && r.stderr.contains("\(name).heic"), "\(name): \(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: file("\(name).mp4")))
            }
        }
        XCTAssertGreaterThan(refused, 4)
        let cut = try Support.sdrify("compose", file("cut.heic"), "-o", file("cut.mp4"))
        XCTAssertEqual(cut.status, 2)
        XCTAssertTrue(cut.stderr.contains("damaged HEIF"), cut.stderr)
    }

    /// compose's report says what each photo was: its own orientation (a turned grid is not EXIF 1) and its HDR kind.
    func testComposeReportsEachPhotosOrientationAndHDR() throws {
        let dir = try vectors()
        for (name, hdr) in [("grid.heic", "sdr"), ("hlg.heic", "hlg"), ("single.heic", "sdr")] {
            let probe = try Support.sdrify("probe", "\(dir)/\(name)")
            let exif = probe.stdout.range(of: #"orientation EXIF [0-9]"#, options: .regularExpression).map { Int(probe.stdout[$0].suffix(1))! } ?? 1
            let r = try Support.sdrify("compose", "\(dir)/\(name)", "-o", file("out.mp4"), "--image-duration", "0.1", "-y", "--json")
            XCTAssertEqual(r.status, 0, r.stderr)
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
            let clip = (report?["clips"] as? [[String: Any]])?.first ?? [:]
            XCTAssertEqual((clip["orientation"] as? [String: Any])?["exif"] as? Int, exif, name)
            XCTAssertEqual(clip["hdr"] as? String, hdr, name)
            if name == "grid.heic" { XCTAssertNotEqual(exif, 1, "the grid is turned") }
        }
    }
}
