import Foundation
import XCTest

/// Burned-in captions (libass): placement, timing, real CJK glyphs, ASS styles, WebVTT, errors.
final class CaptionTests: CLITestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
    }

    func burn(_ captions: String, named name: String) throws -> String {
        try Data(captions.utf8).write(to: URL(fileURLWithPath: file(name)))
        let out = file("\(name).mp4")
        let r = try Support.sdrify(file("grey.mp4"), out, "--preset", "640x480", "--crf", "4", "--captions", file(name))
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    func luma(_ path: String, _ index: Int) throws -> [UInt8] {
        Array(try Support.rawFrame(path, index: index, pixelFormat: "yuv420p").prefix(320 * 240))
    }

    /// Rows (0–239) where the picture differs from the plain grey clip.
    func changedRows(_ path: String, _ index: Int) throws -> [Int] {
        let a = try luma(path, index), b = try luma(file("grey.mp4"), index)
        guard a.count == 320 * 240, b.count == 320 * 240 else {
            XCTFail("\(path): no picture \(index)")
            return []
        }
        return (0..<240).filter { y in (0..<320).contains { x in abs(Int(a[y * 320 + x]) - Int(b[y * 320 + x])) > 12 } }
    }

    func testSRTWithJapaneseAndLatinDrawsInTheBottomThirdOnlyWhileOn() throws {
        let out = try burn("1\n00:00:00,500 --> 00:00:01,500\nHello こんにちは 😀\nsecond line\n", named: "a.srt")
        let rows = try changedRows(out, 30)   // t = 1.0
        XCTAssertGreaterThan(rows.count, 10, "glyphs drawn")
        XCTAssertGreaterThanOrEqual(rows.min() ?? 0, 160, "only in the bottom third")
        XCTAssertEqual(try changedRows(out, 6), [], "not before its start")    // t = 0.2
        XCTAssertEqual(try changedRows(out, 54), [], "not after its end")      // t = 1.8
    }

    /// The same captions saved as UTF-8, UTF-16 (with its byte-order mark, as Windows tools write it) and
    /// Windows-1252 (old SRT files) burn in identically.
    func testCaptionTextEncodings() throws {
        let text = "1\r\n00:00:00,000 --> 00:00:01,500\r\nCafé naïve “quoted”\r\n"
        let utf8 = try burn(text, named: "utf8.srt")
        let encodings: [(String, String.Encoding)] = [("utf16.srt", .utf16LittleEndian), ("cp1252.srt", .windowsCP1252)]
        for (name, encoding) in encodings {
            var bytes = try XCTUnwrap(text.data(using: encoding), name)
            if encoding == .utf16LittleEndian { bytes.insert(contentsOf: [0xFF, 0xFE], at: 0) }
            try bytes.write(to: URL(fileURLWithPath: file(name)))
            let out = file("\(name).mp4")
            let r = try Support.sdrify(file("grey.mp4"), out, "--preset", "640x480", "--crf", "4", "--captions", file(name))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertGreaterThan(try changedRows(out, 15).count, 10, "\(name): drawn")
            XCTAssertEqual(try luma(out, 15), try luma(utf8, 15), "\(name): same glyphs as UTF-8")
        }
    }

    func testJapaneseGlyphsAreNotTofu() throws {
        // Five code points no font has render as five missing-glyph boxes at the same places a tofu rendering
        // of five Japanese characters would use; real glyphs must look different.
        let ja = try burn("1\n00:00:00,500 --> 00:00:01,500\n日本語です\n", named: "ja.srt")
        let tofu = try burn("1\n00:00:00,500 --> 00:00:01,500\n\u{0378}\u{0379}\u{0380}\u{0381}\u{0382}\n", named: "tofu.srt")
        let a = try luma(ja, 30), b = try luma(tofu, 30), grey = try luma(file("grey.mp4"), 30)
        let boxPixels = (0..<(320 * 240)).filter { abs(Int(b[$0]) - Int(grey[$0])) > 12 }.count
        XCTAssertGreaterThan(boxPixels, 100, "the missing-glyph boxes are drawn, so the comparison means something")
        let differing = (0..<(320 * 240)).filter { abs(Int(a[$0]) - Int(b[$0])) > 16 }.count
        XCTAssertGreaterThan(differing, boxPixels / 2, "Japanese glyphs differ from missing-glyph boxes")
    }

    func testASSKeepsItsOwnStyle() throws {
        let ass = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 640
        PlayResY: 480

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Top,DejaVu Sans,40,&H0000FFFF,&H0000FFFF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,8,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.50,0:00:01.50,Top,,0,0,0,,Lyrics up here

        """
        let out = try burn(ass, named: "top.ass")
        let rows = try changedRows(out, 30)
        XCTAssertGreaterThan(rows.count, 5)
        XCTAssertLessThan(rows.max() ?? 240, 80, "the style's top alignment is kept, scaled to the output")
    }

    func testWebVTT() throws {
        let out = try burn("WEBVTT\n\nintro\n00:00.500 --> 00:01.500 line:90%\n<v Speaker>Hello <b>there</b>\n", named: "a.vtt")
        XCTAssertGreaterThan(try changedRows(out, 30).count, 5)
        XCTAssertEqual(try changedRows(out, 54), [])
    }

    func testUnreadableCaptionsExit64() throws {
        let r = try Support.sdrify(file("grey.mp4"), file("x.mp4"), "--captions", file("missing.srt"))
        XCTAssertEqual(r.status, 64, r.stderr)
        try Data("nothing timed here\n".utf8).write(to: URL(fileURLWithPath: file("empty.srt")))
        let e = try Support.sdrify(file("grey.mp4"), file("x.mp4"), "--captions", file("empty.srt"))
        XCTAssertEqual(e.status, 64, e.stderr)
        XCTAssertTrue(e.stderr.contains("no captions"), e.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.mp4")))
    }
}
