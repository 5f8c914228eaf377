import Foundation
@testable import SDRify
@testable import SDRifyCaptions
import SDRifyValues
import XCTest

/// The caption readers and writers called as library functions (issue 56): each format's reader on the cues it
/// gives, each writer on the text it writes, round trips through both, and `CaptionConversion.converted` (what
/// `sdrify captions` writes) for the errors it stops with before any output opens. What only a process shows (SCC read back
/// by ffmpeg, the 608 validator's one line and exit 2 with nothing written, an existing output's exit 4, burn-in and
/// soft tracks) stays in CLITests.CaptionFileTests.
final class CaptionFormatTests: FolderTestCase {
    private func write(_ text: String, _ name: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    private func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    /// What `sdrify captions IN OUT` writes (`CaptionConversion.converted`), written to OUT plainly: the atomic output
    /// and its exit statuses are the process's, CLITests.CaptionFileTests'. Returns the number of cues.
    @discardableResult
    private func convert(_ input: String, _ output: String) throws -> Int {
        let (text, result) = try CaptionConversion.converted(input: input, output: file(output), fix: false)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(output)))
        return result.cues
    }

    /// The error `sdrify captions` stops with before it opens an output.
    private func refusal(_ input: String, _ output: String) -> SDRifyError? {
        do {
            _ = try CaptionConversion.converted(input: input, output: file(output), fix: false)
            XCTFail("\(input) → \(output) converted")
        } catch let e as SDRifyError { return e } catch { XCTFail("not an SDRifyError: \(error)") }
        return nil
    }

    /// A cue's text as a person reads it: its lines without markup (the readers' own `plain`), joined.
    private func text(_ cue: Cue) -> String { cue.lines.map(SubtitleParser.plain).joined(separator: "\n") }

    /// Roll-up and paint-on SCC (hand-written byte pairs) read as what the screen shows after each line.
    func testSCCRollUpAndPaintOn() throws {
        // RU2, CR, PAC row 15, "HI", CR, "YO"; then paint-on: RDC, PAC row 1, "OK"; EDM.
        let scc = try write(
            """
            Scenarist_SCC V1.0

            00:00:01;00\t9425 9425 94ad 94ad 94e0 94e0 c849

            00:00:02;00\t94ad 94ad 5bcf

            00:00:03;00\t9429 9429 9140 9140 4fcb

            00:00:04;00\t942c 942c

            """, "roll.scc")
        let cues = try CaptionFile.cues(scc)
        XCTAssertEqual(cues.map(text), ["HI", "HI\n[O", "OK\nHI\n[O"])
        XCTAssertEqual(cues.first?.start.seconds ?? 0, 1.001, accuracy: 0.002)
        XCTAssertEqual(cues.last?.end.seconds ?? 0, 4.004, accuracy: 0.002)
    }

    /// TTML with frames, ticks, offsets, nested time containers, referenced and inline styles and a top region: the
    /// cues read, and the WebVTT written from them; a damaged file is invalid input named in one line.
    func testTTMLReadsTimesStylesAndRegions() throws {
        let ttml = try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" xmlns:ttp="http://www.w3.org/ns/ttml#parameter"
                ttp:frameRate="25" ttp:tickRate="10000000">
              <head>
                <styling><style xml:id="it" tts:fontStyle="italic"/></styling>
                <layout><region xml:id="up" tts:origin="10% 5%" tts:extent="80% 20%"/></layout>
              </head>
              <body>
                <div begin="10s">
                  <p begin="00:00:01:05" end="00:00:02:00" style="it">Framed
                     words</p>
                  <p begin="30000000t" dur="1.5s" region="up">Ticks <span tts:fontWeight="bold" tts:color="#FF0000">bold red</span><br/>line two</p>
                </div>
                <p begin="500ms" end="1s">Offset</p>
              </body>
            </tt>
            """, "in.ttml")
        let cues = try CaptionFile.cues(ttml)
        XCTAssertEqual(cues.map(text), ["Offset", "Framed words", "Ticks bold red\nline two"])
        guard cues.count == 3 else { return }
        XCTAssertEqual(cues[0].start.seconds, 0.5, accuracy: 0.001)
        XCTAssertEqual(cues[0].end.seconds, 1, accuracy: 0.001)
        XCTAssertEqual(cues[1].start.seconds, 11.2, accuracy: 0.001, "10 s + 1 s 5 frames at 25 fps")
        XCTAssertEqual(cues[1].end.seconds, 12, accuracy: 0.001)
        XCTAssertEqual(cues[2].start.seconds, 13, accuracy: 0.001, "10 s + 3e7 ticks at 1e7")
        XCTAssertEqual(cues[2].end.seconds, 14.5, accuracy: 0.001)
        try convert(ttml, "out.vtt")
        let vtt = try read("out.vtt")
        XCTAssertTrue(vtt.contains("<i>Framed words</i>"), vtt)
        XCTAssertTrue(vtt.contains("<b><c.red>bold red</c></b>"), vtt)
        XCTAssertTrue(vtt.contains("line:0"), "the top region: \(vtt)")
        let bad = try write("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\">x</p>", "bad.ttml")
        let e = refusal(bad, "bad.srt")
        XCTAssertEqual(e?.status, .invalidInput, "a damaged file is invalid input: \(e?.message ?? "none")")
        XCTAssertTrue(e?.message.contains("bad.ttml") ?? false, e?.message ?? "")
        XCTAssertFalse(e?.message.contains("\n") ?? true, e?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.srt")))
    }

    /// SRT → iTT → SRT keeps text, styling, placement and times; the iTT is TTML in Apple's profile.
    func testITTRoundTrip() throws {
        let srt =
            "1\n00:00:01,250 --> 00:00:02,500\n{\\an8}<i>Top</i> & <b>bold</b> <font color=\"#FFFF00\">yellow</font>\n\n"
            + "2\n00:01:02,000 --> 00:01:04,040\nTwo\nlines\n"
        XCTAssertEqual(try convert(try write(srt, "a.srt"), "a.itt"), 2)
        let itt = try read("a.itt")
        for part in [
            "xmlns=\"http://www.w3.org/ns/ttml\"", "ttp:frameRateMultiplier=\"1000 1001\"", "region=\"top\"",
            "tts:fontStyle=\"italic\"", "&amp;", "<br/>", "begin=\"00:01:02.000\" end=\"00:01:04.040\""
        ] {
            XCTAssertTrue(itt.contains(part), "\(part): \(itt)")
        }
        try convert(file("a.itt"), "b.srt")
        XCTAssertEqual(try read("b.srt"), srt)
    }

    /// LRC lyrics: several times for one line, an offset, a break, enhanced per-word times, the last line's length;
    /// written back as LRC that reads the same; told apart by content; a file with no time tag is damage.
    func testLRCReadsLyricsAndWritesThemBack() throws {
        let lrc = try write(
            """
            [ti:Song]
            [ar:Someone]
            [offset:+250]
            [00:01.50][00:10.00]Chorus line
            [00:03.00]Second line & [more]
            [00:05.00]
            [00:06.00]<00:06.00>Word <00:06.40>by <00:06.80>word
            <00:08.00>Only word times
            """, "song.lrc")
        let cues = try CaptionFile.cues(lrc)
        let want: [(Double, Double, String)] = [
            (1.25, 2.75, "Chorus line"), (2.75, 4.75, "Second line & [more]"), (5.75, 7.75, "Word by word"),
            (7.75, 9.75, "Only word times"), (9.75, 11.75, "Chorus line")
        ]
        XCTAssertEqual(cues.count, want.count, "\(cues)")
        for (c, w) in zip(cues, want) {
            XCTAssertEqual(c.start.seconds, w.0, accuracy: 0.001, w.2)
            XCTAssertEqual(c.end.seconds, w.1, accuracy: 0.001, w.2)
            XCTAssertEqual(text(c), w.2)
        }
        try convert(lrc, "song.srt")
        let srt = try read("song.srt")
        XCTAssertTrue(srt.contains("Second line & [more]"), "the brackets are the lyric's own text: \(srt)")

        try convert(file("song.srt"), "back.lrc")
        let back = try read("back.lrc")
        XCTAssertTrue(back.hasPrefix("[00:01.25]Chorus line\n[00:02.75]Second line & [more]\n[00:04.75]\n[00:05.75]Word by word\n"), back)
        try convert(file("back.lrc"), "again.srt")
        XCTAssertEqual(try read("again.srt"), srt, "LRC written by sdrify reads back the same")

        // Told apart by content, whatever the name; no time tag at all is not lyrics.
        try convert(try write(back, "lyrics.txt"), "misnamed.srt")
        XCTAssertEqual(try read("misnamed.srt"), srt)
        let tagsOnly = try write("[ti:Nothing]\n[ar:Nobody]\nno times here\n", "empty.lrc")
        XCTAssertEqual(refusal(tagsOnly, "empty.srt")?.status, .invalidInput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("empty.srt")))
    }

    /// ASS dialogue with overrides → SRT; an unknown output extension is a usage error naming the ones there are.
    /// (An output already there is exit 4: CLITests.CaptionFileTests.testCaptionsExitStatuses.)
    func testASSInAndErrors() throws {
        let ass = try write(
            """
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,{\\i1}Slanted{\\i0}\\Nsecond
            """, "a.ass")
        try convert(ass, "a.srt")
        XCTAssertEqual(try read("a.srt"), "1\n00:00:01,000 --> 00:00:02,500\n<i>Slanted</i>\nsecond\n")
        let unknown = refusal(ass, "a.txt")
        XCTAssertEqual(unknown?.status, .usage)
        XCTAssertTrue(unknown?.message.contains(".srt, .vtt") ?? false, unknown?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("a.txt")))
    }
}
