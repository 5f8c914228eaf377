import Foundation
import XCTest

/// Burned-in captions (libass): placement, timing, real CJK glyphs, ASS styles, WebVTT, errors.
final class CaptionTests: CLITestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try makeGreyClip()
    }

    func burn(_ captions: String, named name: String) throws -> String {
        try Data(captions.utf8).write(to: URL(fileURLWithPath: file(name)))
        let out = file("\(name).mp4")
        let r = try Support.sdrify(file("grey.mp4"), out, "--preset", "640x480", "--crf", "4", "--captions", file(name))
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    /// Picture `index`'s Y' plane, read once per file as it is (the grey clip is compared with every output, and an
    /// output with more than one thing).
    func luma(_ path: String, _ index: Int) throws -> [UInt8] {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let key = "\(path) \(index) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0)"
        if let known = pictures[key] { return known }
        let y = Array(try Support.rawFrame(path, index: index, pixelFormat: "yuv420p").prefix(320 * 240))
        pictures[key] = y
        return y
    }
    private var pictures: [String: [UInt8]] = [:]

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
        let rows = try changedRows(out, 30)  // t = 1.0
        XCTAssertGreaterThan(rows.count, 10, "glyphs drawn")
        XCTAssertGreaterThanOrEqual(rows.min() ?? 0, 160, "only in the bottom third")
        XCTAssertEqual(try changedRows(out, 6), [], "not before its start")  // t = 0.2
        XCTAssertEqual(try changedRows(out, 54), [], "not after its end")  // t = 1.8
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

    /// Columns (0–319) where frame `index` differs from the grey clip.
    func changedColumns(_ path: String, _ index: Int) throws -> [Int] {
        let a = try luma(path, index), b = try luma(file("grey.mp4"), index)
        guard a.count == 320 * 240, b.count == 320 * 240 else { return [] }
        return (0..<320).filter { x in (0..<240).contains { y in abs(Int(a[y * 320 + x]) - Int(b[y * 320 + x])) > 12 } }
    }

    /// In portrait the default size follows the short edge, and a long cue is set smaller to stay on two lines
    /// (before: 5.5 % of the height, seven lines over 40 % of the picture).
    func testPortraitCaptionsFollowTheShortEdgeAndStayOnTwoLines() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=240x426:rate=30", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("tall.mp4")])
        let text = "1\n00:00:00,000 --> 00:00:01,000\nA long caption that people write when they say a lot in one breath, more than fits\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: file("long.srt")))
        try Data("1\n00:00:00,000 --> 00:00:01,000\nHi\n".utf8).write(to: URL(fileURLWithPath: file("short.srt")))
        var spans: [String: Int] = [:]
        for name in ["long.srt", "short.srt"] {
            let r = try Support.sdrify(file("tall.mp4"), file("\(name).mp4"), "--crf", "4", "--captions", file(name))
            XCTAssertEqual(r.status, 0, r.stderr)
            let y = Array(try Support.rawFrame(file("\(name).mp4"), index: 15, pixelFormat: "yuv420p").prefix(240 * 426))
            let grey = Array(try Support.rawFrame(file("tall.mp4"), index: 15, pixelFormat: "yuv420p").prefix(240 * 426))
            guard y.count == 240 * 426 else { return XCTFail("no picture") }
            let rows: [Int] = (0..<426).filter { (r: Int) -> Bool in
                (0..<240).contains { (x: Int) -> Bool in abs(Int(y[r * 240 + x]) - Int(grey[r * 240 + x])) > 12 }
            }
            XCTAssertGreaterThan(rows.count, 5, name)
            XCTAssertGreaterThan(rows.min() ?? 0, 330, "\(name): at the bottom")
            spans[name] = (rows.max() ?? 0) - (rows.min() ?? 0) + 1
        }
        // One line of 5.5 % of 240 (13 px) is about 16 rows with its outline; two lines of smaller text fit in 2.2 lines.
        let line = try XCTUnwrap(spans["short.srt"])
        XCTAssertLessThan(line, 22, "the size follows the short edge (5.5 % of 426 would be 23 px)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(spans["long.srt"]), line * 22 / 10, "at most two lines")
    }

    /// Style from the command line: position, colour and size.
    func testCaptionStyleOptions() throws {
        try Data("1\n00:00:00,000 --> 00:00:01,500\nRed on top\n".utf8).write(to: URL(fileURLWithPath: file("c.srt")))
        let plain = try burn("1\n00:00:00,000 --> 00:00:01,500\nRed on top\n", named: "plain.srt")
        let out = file("styled.mp4")
        let r = try Support.sdrify(
            file("grey.mp4"), out, "--preset", "640x480", "--crf", "4", "--captions", file("c.srt"),
            "--caption-position", "top", "--caption-color", "#FF0000", "--caption-size", "12%", "--caption-margin", "0")
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try changedRows(out, 15), plainRows = try changedRows(plain, 15)
        XCTAssertLessThan(rows.max() ?? 240, 80, "on top")
        XCTAssertLessThan(rows.min() ?? 240, 8, "no margin")
        XCTAssertGreaterThan(rows.count, plainRows.count * 3 / 2, "larger than the default 5.5 %")
        let frame = try Support.rawFrame(out, index: 15, pixelFormat: "yuv420p")
        let chromaRed: Int = 320 * 240 + 160 * 120
        XCTAssertGreaterThan(frame[chromaRed...].max() ?? 0, 200, "red text")
        for bad in [["--caption-position", "side"], ["--caption-size", "0"], ["--caption-color", "red"], ["--caption-outline", "-1"]] {
            let e = try Support.sdrify([file("grey.mp4"), file("bad.mp4"), "--captions", file("c.srt")] + bad)
            XCTAssertEqual(e.status, 64, "\(bad): \(e.stderr)")
        }
    }

    /// SRT <i> and <b> change the glyphs but are not drawn as text; <font color> colours; {\an8} moves to the top.
    func testSRTTagsAreHonoured() throws {
        let plain = try burn("1\n00:00:00,000 --> 00:00:01,500\nSlanted words\n", named: "p.srt")
        let italic = try burn("1\n00:00:00,000 --> 00:00:01,500\n<i>Slanted words</i>\n", named: "i.srt")
        let bold = try burn("1\n00:00:00,000 --> 00:00:01,500\n<b>Slanted words</b>\n", named: "b.srt")
        let top = try burn("1\n00:00:00,000 --> 00:00:01,500\n{\\an8}Slanted <font color=\"#00FF00\">words</font>\n", named: "t.srt")
        let width = try changedColumns(plain, 15).count
        XCTAssertGreaterThan(width, 40)
        for (name, out) in [("italic", italic), ("bold", bold)] {
            XCTAssertNotEqual(try luma(out, 15), try luma(plain, 15), "\(name) differs")
            XCTAssertEqual(Double(try changedColumns(out, 15).count), Double(width), accuracy: Double(width) * 0.2, "\(name): the tag is not drawn")
        }
        XCTAssertLessThan(try changedRows(top, 15).max() ?? 240, 80, "{\\an8}: at the top")
        let frame = try Support.rawFrame(top, index: 15, pixelFormat: "yuv420p")
        XCTAssertLessThan(frame[(320 * 240)..<(320 * 240 + 160 * 120)].min() ?? 255, 90, "green (low Cb) in the coloured word")
    }

    /// WebVTT line, position and align settings.
    func testWebVTTCueSettings() throws {
        let out = try burn(
            "WEBVTT\n\n00:00.000 --> 00:01.500 line:0 align:start\nTop left\n\n00:00.000 --> 00:01.500 line:60% position:90% align:end\nRight\n",
            named: "pos.vtt")
        let y = try luma(out, 15), grey = try luma(file("grey.mp4"), 15)
        guard y.count == 320 * 240, grey.count == y.count else { return XCTFail("no picture") }
        func changed(_ xs: Range<Int>, _ ys: Range<Int>) -> Int {
            var n = 0
            for r in ys { for x in xs where abs(Int(y[r * 320 + x]) - Int(grey[r * 320 + x])) > 12 { n += 1 } }
            return n
        }
        XCTAssertGreaterThan(changed(0..<160, 0..<60), 20, "line:0 align:start: top left")
        XCTAssertEqual(changed(160..<320, 0..<60), 0, "nothing top right")
        XCTAssertGreaterThan(changed(160..<320, 120..<180), 20, "line:60% position:90% align:end: right, below the middle")
        XCTAssertEqual(changed(0..<320, 190..<240), 0, "nothing at the default bottom place")
    }

    /// Caption style in the overlay description, and its errors named by JSON path.
    func testCaptionStyleInJSON() throws {
        try Data("1\n00:00:00,000 --> 00:00:01,500\nFrom JSON\n".utf8).write(to: URL(fileURLWithPath: file("c.srt")))
        try Data(##"{"captions": [{"file": "c.srt", "position": "top", "size": "8%", "box_color": "#000000"}]}"##.utf8)
            .write(to: URL(fileURLWithPath: file("o.json")))
        let r = try Support.sdrify(file("grey.mp4"), file("o.mp4"), "--preset", "640x480", "--crf", "4", "--overlays", file("o.json"))
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try changedRows(file("o.mp4"), 15)
        XCTAssertLessThan(rows.max() ?? 240, 80, "on top")
        XCTAssertLessThan(try luma(file("o.mp4"), 15).min() ?? 255, 24, "a black box behind the text")
        try Data(#"{"captions": [{"file": "c.srt", "position": "side"}]}"#.utf8).write(to: URL(fileURLWithPath: file("bad.json")))
        let e = try Support.sdrify(file("grey.mp4"), file("bad.mp4"), "--overlays", file("bad.json"))
        XCTAssertEqual(e.status, 64, e.stderr)
        XCTAssertTrue(e.stderr.contains("$.captions[0].position"), e.stderr)
    }

    /// A path that names nothing is a wrong command line (64); a caption file without captions is damaged input (2).
    func testMissingCaptionsExit64AndEmptyOnesExit2() throws {
        let r = try Support.sdrify(file("grey.mp4"), file("x.mp4"), "--captions", file("missing.srt"))
        XCTAssertEqual(r.status, 64, r.stderr)
        try Data("nothing timed here\n".utf8).write(to: URL(fileURLWithPath: file("empty.srt")))
        let e = try Support.sdrify(file("grey.mp4"), file("x.mp4"), "--captions", file("empty.srt"))
        XCTAssertEqual(e.status, 2, e.stderr)
        XCTAssertTrue(e.stderr.contains("no captions") && e.stderr.contains("empty.srt"), e.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.mp4")))
    }

    /// A title at the bottom and captions at the bottom, shown together (docs/compose.md, "Layers that share the
    /// screen"): the captions keep their place and the title stands above them, their pixels apart. A title while no
    /// caption shows keeps its own place.
    func testTitleStandsClearOfCaptionsAtTheSameEdge() throws {
        try "1\n00:00:00,000 --> 00:00:01,000\nCaption words here\n".write(toFile: file("cap.srt"), atomically: true, encoding: .utf8)
        let overlays =
            ##"{"titles": [{"text": "TITLE", "position": "bottom-center", "color": "#FF0000", "end": 1}, "##
            + ##"{"text": "LATER", "position": "bottom-center", "color": "#FF0000", "start": 1.2}], "captions": [{"file": "cap.srt"}]}"##
        try overlays.write(toFile: file("both.json"), atomically: true, encoding: .utf8)
        let r = try Support.sdrify(file("grey.mp4"), file("both.mp4"), "--crf", "4", "--overlays", file("both.json"))
        XCTAssertEqual(r.status, 0, r.stderr)
        // Red title: rows where Cr rises; white captions: rows where the luma is near white.
        func rows(_ index: Int) throws -> (title: [Int], captions: [Int]) {
            let frame = try Support.rawFrame(file("both.mp4"), index: index, pixelFormat: "yuv420p")
            XCTAssertEqual(frame.count, 320 * 240 * 3 / 2)
            let chromaRed: Int = 320 * 240 + 160 * 120
            let cr: [UInt8] = Array(frame[chromaRed...])
            let titleRows: [Int] = (0..<120).filter { (y: Int) -> Bool in (0..<160).contains { (x: Int) -> Bool in cr[y * 160 + x] > 170 } }
            let title: [Int] = titleRows.flatMap { (y: Int) -> [Int] in [2 * y, 2 * y + 1] }
            let captions: [Int] = (0..<240).filter { (y: Int) -> Bool in
                (0..<320).contains { (x: Int) -> Bool in frame[y * 320 + x] > 220 && cr[(y / 2) * 160 + x / 2] < 140 }
            }
            return (title, captions)
        }
        let together = try rows(15)
        XCTAssertFalse(together.title.isEmpty, "the title shows")
        XCTAssertFalse(together.captions.isEmpty, "the captions show")
        XCTAssertLessThan(together.title.max() ?? 0, together.captions.min() ?? 0, "title above the captions, apart")
        XCTAssertGreaterThan(together.captions.min() ?? 0, 240 / 2, "the captions kept their place at the bottom")
        // After the captions: the later title sits at the bottom margin, lower than the first one stood.
        let alone = try rows(45)
        XCTAssertTrue(alone.captions.isEmpty)
        XCTAssertGreaterThan(alone.title.max() ?? 0, together.title.max() ?? 0)
    }
}
