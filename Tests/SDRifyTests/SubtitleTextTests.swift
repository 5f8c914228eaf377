@testable import SDRifyCaptions
import XCTest

/// SRT/WebVTT markup and cue settings turned into ASS.
final class SubtitleTextTests: XCTestCase {
    func testMarkupBecomesASSOverrides() {
        XCTAssertEqual(SubtitleParser.assText("<i>a</i> <b>b</b> <u>c</u>"), "{\\i1}a{\\i0} {\\b1}b{\\b0} {\\u1}c{\\u0}")
        XCTAssertEqual(SubtitleParser.assText("<font color=\"#FF8000\">x</font>"), "{\\c&H0080FF&}x{\\c}")
        XCTAssertEqual(SubtitleParser.assText("{\\an8}top"), "{\\an8}top")
        XCTAssertEqual(SubtitleParser.assText("a {note} b"), "a (note) b", "braces are not overrides")
        XCTAssertEqual(SubtitleParser.assText("<v Bob>hi <c.loud>there</c> <00:00:01.000>now"), "hi there now")
        XCTAssertEqual(SubtitleParser.assText("fish &amp; chips &lt;3"), "fish & chips <3")
        XCTAssertEqual(SubtitleParser.assText("a < b"), "a < b", "a lone < is text")
        XCTAssertEqual(SubtitleParser.plain("<i>{\\an8}x</i> &amp;"), "x &")
    }

    func testWebVTTSettingsAreRead() {
        let cues = SubtitleParser.cues("WEBVTT\n\nid\n00:01.000 --> 00:02.500 line:10% position:20%,line-left align:start\n<b>x</b>\n")
        XCTAssertEqual(cues.count, 1)
        XCTAssertEqual(cues.first?.settings, ["line": "10%", "position": "20%,line-left", "align": "start"])
        XCTAssertEqual(cues.first?.lines, ["<b>x</b>"])
        XCTAssertEqual(cues.first?.end, 2.5)
    }

    func testPlacement() {
        let style = CaptionStyle()  // margin 5 % of the short edge: 18 px at 640x360
        func tags(_ s: [String: String]) -> String { style.placement(s, width: 640, height: 360).tags }
        XCTAssertEqual(tags([:]), "")
        XCTAssertEqual(tags(["align": "start"]), "\\an1")
        XCTAssertEqual(tags(["line": "0"]), "\\an8")
        XCTAssertEqual(style.placement(["line": "1"], width: 640, height: 360).marginV, 43, "one line (1.25 × 19.8 px) below the margin")
        XCTAssertEqual(tags(["line": "50%", "position": "25%"]), "\\an8\\pos(160,180)")
        XCTAssertEqual(tags(["position": "90%", "align": "end"]), "\\an3\\pos(576,342)")
    }
}
