import Foundation
import XCTest

/// Stickers in the upright SDR output frame: placement, timing, opacity, keyframes, animation, validation.
final class OverlayTests: CLITestCase {

    // BT.709 limited-range codes of full magenta (R = B = 255, G = 0).
    let magenta = (y: 16 + 219 * 0.2848, cb: 128 + 224 * (1 - 0.2848) / 1.8556, cr: 128 + 224 * (1 - 0.2848) / 1.5748)

    struct Picture {
        let w: Int, h: Int, bytes: [UInt8]
        func y(_ x: Int, _ y: Int) -> Double { Double(bytes[y * w + x]) }
        func cb(_ x: Int, _ y: Int) -> Double { Double(bytes[w * h + (y / 2) * (w / 2) + x / 2]) }
        func cr(_ x: Int, _ y: Int) -> Double { Double(bytes[w * h + (w / 2) * (h / 2) + (y / 2) * (w / 2) + x / 2]) }
    }

    func picture(_ path: String, at index: Int, _ w: Int, _ h: Int) throws -> Picture { try pictures(path, at: [index], w, h)[0] }

    /// The same of each of `indices`, decoded together.
    func pictures(_ path: String, at indices: [Int], _ w: Int, _ h: Int) throws -> [Picture] {
        try zip(indices, Support.rawFrames(path, indices: indices, pixelFormat: "yuv420p")).map { index, bytes in
            guard bytes.count == w * h * 3 / 2 else {
                XCTFail("\(path): no \(w)x\(h) picture \(index)")
                return Picture(w: w, h: h, bytes: [UInt8](repeating: 0, count: w * h * 3 / 2))
            }
            return Picture(w: w, h: h, bytes: bytes)
        }
    }

    func makeGrey() throws {
        try makeGreyClip()
        try ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=40x30", "-frames:v", "1", file("magenta.png")])
    }

    func convert(_ input: String, _ output: String, _ extra: [String]) throws {
        let r = try Support.sdrify([input, output, "--preset", "640x480", "--crf", "4", "--overwrite"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// Sticker pictures in every common still format and sample layout, at an odd width (swscale's SIMD paths write
    /// past a row's end: an unpadded buffer corrupted the heap for JPEG, WebP and TIFF).
    func testStickerFormatsAndLayouts() throws {
        try makeGrey()
        let stickers: [(String, [String])] = [
            ("m.jpg", []), ("m.webp", []), ("m.tiff", []), ("m.bmp", []), ("m16.png", ["-pix_fmt", "rgba64be"]),
            ("mpal.png", ["-pix_fmt", "pal8"]), ("mya.png", ["-pix_fmt", "ya8"])
        ]
        let outside = try picture(file("grey.mp4"), at: 5, 320, 240).y(100, 100)
        for (name, args) in stickers {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=41x31", "-frames:v", "1"] + args + [file(name)])
            try convert(file("grey.mp4"), file("\(name).mp4"), ["--sticker", "\(file(name))@20,30"])
            let p = try picture(file("\(name).mp4"), at: 5, 320, 240)
            if name == "mya.png" {  // grey with alpha: no colour, its stored grey level as limited-range luma
                let level = Double(try Support.rawFrame(file(name), index: 0, pixelFormat: "gray")[15 * 41 + 20])
                XCTAssertEqual(p.y(40, 45), 16 + 219 * level / 255, accuracy: 4, name)
                XCTAssertEqual(p.cr(40, 45), 128, accuracy: 4, name)
            } else {
                XCTAssertEqual(p.y(40, 45), magenta.y, accuracy: 4, name)
                XCTAssertEqual(p.cr(40, 45), magenta.cr, accuracy: 4, name)
            }
            XCTAssertEqual(p.y(100, 100), outside, accuracy: 3, "\(name): outside")
        }
    }

    /// A phone photo as a sticker shows the way its EXIF orientation says, as image viewers show it.
    func testJPEGStickerFollowsItsEXIFOrientation() throws {
        try makeGrey()
        // 40×20, red left half, blue right half, tagged EXIF 6 ("rotate 90° clockwise to view"): upright it is
        // 20×40, red on top, blue below.
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=red:size=20x20", "-f", "lavfi", "-i", "color=c=blue:size=20x20",
            "-filter_complex", "[0][1]hstack", "-frames:v", "1", "-q:v", "2", file("plain.jpg")
        ])
        var jpeg = try Data(contentsOf: URL(fileURLWithPath: file("plain.jpg")))
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1, at: 2)
        try jpeg.write(to: URL(fileURLWithPath: file("exif6.jpg")))
        try convert(file("grey.mp4"), file("exif.mp4"), ["--sticker", "\(file("exif6.jpg"))@20,30"])
        let p = try picture(file("exif.mp4"), at: 5, 320, 240), grey = try picture(file("grey.mp4"), at: 5, 320, 240)
        XCTAssertGreaterThan(p.cr(29, 38), 200, "red on top")
        XCTAssertGreaterThan(p.cb(29, 60), 200, "blue below")
        XCTAssertEqual(p.y(45, 35), grey.y(45, 35), accuracy: 3, "20 pixels wide once upright")
    }

    func testStickerAtItsExactBoxOnlyWhileActive() throws {
        try makeGrey()
        try convert(file("grey.mp4"), file("out.mp4"), ["--sticker", "\(file("magenta.png"))@20,30,0.5-1.5"])
        let shown = try pictures(file("out.mp4"), at: [30, 10, 50], 320, 240)
        let on = shown[0]  // t = 1.0
        let grey = try picture(file("grey.mp4"), at: 30, 320, 240)
        for (x, y) in [(20, 30), (59, 30), (20, 59), (59, 59), (40, 45)] {
            XCTAssertEqual(on.y(x, y), magenta.y, accuracy: 3, "inside at \(x),\(y)")
            XCTAssertEqual(on.cr(x, y), magenta.cr, accuracy: 3)
        }
        for (x, y) in [(19, 45), (60, 45), (40, 29), (40, 60), (200, 200)] {
            XCTAssertEqual(on.y(x, y), grey.y(x, y), accuracy: 3, "outside at \(x),\(y)")
        }
        for (index, off) in zip([10, 50], shown.dropFirst()) {  // t = 0.33 and 1.67: not showing
            XCTAssertEqual(off.y(40, 45), grey.y(40, 45), accuracy: 3, "frame \(index)")
        }
    }

    func testHalfOpacityBlendsHalfway() throws {
        try makeGrey()
        try Data(#"{"stickers": [{"image": "magenta.png", "x": 20, "y": 30, "opacity": 0.5}]}"#.utf8).write(to: URL(fileURLWithPath: file("o.json")))
        try convert(file("grey.mp4"), file("half.mp4"), ["--overlays", file("o.json")])
        let p = try picture(file("half.mp4"), at: 15, 320, 240), grey = try picture(file("grey.mp4"), at: 15, 320, 240)
        XCTAssertEqual(p.y(40, 45), (magenta.y + grey.y(40, 45)) / 2, accuracy: 3)
        XCTAssertEqual(p.cr(40, 45), (magenta.cr + grey.cr(40, 45)) / 2, accuracy: 3)
    }

    func testKeyframedStickerIsAtTheInterpolatedPositionMidway() throws {
        try makeGrey()
        let json = #"{"stickers": [{"image": "magenta.png", "x": 0, "y": 100, "keyframes": [{"t": 0, "x": 0}, {"t": 2, "x": 200}]}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: file("k.json")))
        try convert(file("grey.mp4"), file("k.mp4"), ["--overlays", file("k.json")])
        let p = try picture(file("k.mp4"), at: 30, 320, 240)  // t = 1.0: x = 100
        let row = (0..<320).map { p.y($0, 115) }
        let left = row.firstIndex { abs($0 - magenta.y) < 10 }
        XCTAssertEqual(left, 100, "left edge midway between 0 and 200")
        XCTAssertEqual(row.lastIndex { abs($0 - magenta.y) < 10 }, 139)
    }

    func testAnimatedGIFShowsItsFramesInOrder() throws {
        try makeGrey()
        // Three 0.2 s frames: red, green, blue.
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:size=40x40:rate=5", "-frames:v", "3", "-vf",
            "format=rgb24,geq=r='if(eq(N\\,0)\\,255\\,0)':g='if(eq(N\\,1)\\,255\\,0)':b='if(eq(N\\,2)\\,255\\,0)'",
            file("rgb.gif")
        ])
        try convert(file("grey.mp4"), file("gif.mp4"), ["--sticker", "\(file("rgb.gif"))@100,100"])
        func colour(_ p: Picture) -> String {
            let (cb, cr) = (p.cb(120, 120), p.cr(120, 120))
            if cr > 200 { return "red" }
            if cb > 200 { return "blue" }
            if cb < 100 && cr < 100 { return "green" }
            return "other(\(cb),\(cr))"
        }
        let shown = try pictures(file("gif.mp4"), at: [3, 9, 15, 21, 27], 320, 240).map(colour)
        XCTAssertEqual(shown, ["red", "green", "blue", "red", "green"], "0.1, 0.3, 0.5, 0.7 (looped), 0.9 s")
    }

    func testPositionsAreInTheUprightFrameOfAPortraitHDRSource() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=magenta:size=40x30", "-frames:v", "1", file("magenta.png")])
        try Data("1\n00:00:00,000 --> 00:00:02,000\nPortrait caption\n".utf8).write(to: URL(fileURLWithPath: file("c.srt")))
        // x = 10 % of 540 = 54, y = 900 px: near the bottom-left of the upright 540x960 picture.
        let plain = file("plain.mp4")
        XCTAssertEqual(try Support.sdrify([Support.vector("sample_hlg_portrait.mov"), plain, "--preset", "960x540", "--crf", "4"]).status, 0)
        let r = try Support.sdrify([
            Support.vector("sample_hlg_portrait.mov"), file("p.mp4"), "--preset", "960x540", "--crf", "4",
            "--sticker", "\(file("magenta.png"))@10%,900", "--captions", file("c.srt")
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try picture(file("p.mp4"), at: 5, 540, 960), base = try picture(plain, at: 5, 540, 960)
        XCTAssertEqual(p.y(70, 915), magenta.y, accuracy: 4)
        XCTAssertEqual(p.cr(70, 915), magenta.cr, accuracy: 4)
        XCTAssertEqual(p.y(50, 915), base.y(50, 915), accuracy: 6, "left of the sticker untouched")
        // The caption sits in the bottom third of the upright picture, centred.
        let changed = (0..<960).filter { y in (100..<440).contains { x in abs(p.y(x, y) - base.y(x, y)) > 40 } && !(900..<930).contains(y) }
        XCTAssertFalse(changed.isEmpty, "caption drawn")
        XCTAssertGreaterThanOrEqual(changed.min() ?? 0, 640, "in the bottom third of the upright frame")
    }

    func testBadOverlayDescriptionsExit64BeforeAnyOutput() throws {
        try makeGrey()
        let cases: [(String, String)] = [
            (#"{"stickers": [{"image": "magenta.png", "x": 1, "y": 2, "colour": "red"}]}"#, "$.stickers[0].colour: unknown key"),
            (#"{"stickers": [{"image": "magenta.png", "x": 1, "y": 2, "start": 2, "end": 1}]}"#, "$.stickers[0].end: is before start"),
            (#"{"stickers": [{"image": "nope.png", "x": 1, "y": 2}]}"#, "$.stickers[0].image"),
            (#"{"stickers": [{"image": "magenta.png", "x": 1, "y": 2, "width": -5}]}"#, "$.stickers[0].width"),
            (#"{"stickers": [{"image": "magenta.png", "x": "5px", "y": 2}]}"#, "$.stickers[0].x"),
            (#"{"stickers": [{"image": "magenta.png", "x": 1, "y": 2, "keyframes": [{"x": 3}]}]}"#, "$.stickers[0].keyframes[0].t"),
            (#"{"stickers": [{"image": "magenta.png", "x": 1, "y": 2, "keyframes": [{"t": 2}, {"t": 1}]}]}"#, "$.stickers[0].keyframes[1].t"),
            (#"{"stickers": ["#, "malformed JSON")
        ]
        for (i, (json, words)) in cases.enumerated() {
            let path = file("bad\(i).json")
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            let output = file("never\(i).mp4")
            let r = try Support.sdrify(file("grey.mp4"), output, "--overlays", path)
            XCTAssertEqual(r.status, 64, "\(json): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(words) && r.stderr.contains(path), "\(words) in \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: file("fake.png")))
        let r = try Support.sdrify(file("grey.mp4"), file("never.mp4"), "--sticker", "\(file("fake.png"))@1,1")
        XCTAssertEqual(r.status, 2, "a damaged picture is invalid input: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("fake.png"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mp4") && $0 != "grey.mp4" }, [])
    }
}
