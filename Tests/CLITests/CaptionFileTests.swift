import Foundation
import XCTest

/// `sdrify captions`: SRT, WebVTT, ASS, TTML/iTT, SCC and LRC in and out; SCC checked by ffmpeg's own 608 decoder; the
/// 608 validator and its repairs; caption files of every format burned in, on the input's clock.
final class CaptionFileTests: CLITestCase {
    func write(_ text: String, _ name: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    /// SRT cues as (start, end, text) from ffmpeg or sdrify output (tags and ffmpeg's positioning removed).
    func cues(_ srt: String) -> [(Double, Double, String)] {
        srt.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n").map(String.init)
            guard let t = lines.firstIndex(where: { $0.contains("-->") }) else { return nil }
            let times = lines[t].components(separatedBy: " --> ").map { s -> Double in
                let f = (s.split(separator: " ").first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(
                    of: ",", with: "."
                ).split(separator: ":").compactMap { Double($0) }
                return f.count == 3 ? f[0] * 3600 + f[1] * 60 + f[2] : -1
            }
            let text = lines[(t + 1)...].joined(separator: "\n")
                .replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
                .replacingOccurrences(of: "\\{[^}]*\\}", with: "", options: .regularExpression)
                .replacingOccurrences(of: "\\h", with: " ")
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            return (times[0], times.count > 1 ? times[1] : -1, text)
        }
    }

    let frame = 1001.0 / 30000

    /// SRT → SCC read back by ffmpeg's CEA-608 decoder: the same text (accents from 608's sets, italics) and times
    /// within a frame; and by sdrify's own SCC reader.
    func testSCCOutputReadsBackInFFmpeg() throws {
        let srt = try write(
            """
            1
            00:00:01,000 --> 00:00:03,000
            Hello <i>world</i> again, café

            2
            00:00:04,000 --> 00:00:06,500
            {\\an8}Second caption on top
            with two lines ¿sí? ♪

            """, "in.srt")
        let r = try Support.sdrify("captions", srt, file("out.scc"))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try read("out.scc").hasPrefix("Scenarist_SCC V1.0"))
        let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("out.scc"), "-f", "srt", "-"])
        XCTAssertEqual(ff.status, 0, ff.stderr)
        let expected: [(Double, Double, String)] = [(1, 3, "Hello world again, café"), (4, 6.5, "Second caption on top\nwith two lines ¿sí? ♪")]
        for reader in [
            ff.stdout,
            try { () -> String in
                XCTAssertEqual(try Support.sdrify("captions", file("out.scc"), file("back.srt")).status, 0)
                return try read("back.srt")
            }()
        ] {
            let got = cues(reader)
            XCTAssertEqual(got.count, 2, reader)
            for (g, e) in zip(got, expected) {
                XCTAssertEqual(g.0, e.0, accuracy: frame + 0.001, reader)
                XCTAssertEqual(g.1, e.1, accuracy: frame + 0.001, reader)
                XCTAssertEqual(g.2.replacingOccurrences(of: "  ", with: " "), e.2, reader)
            }
        }
        XCTAssertTrue(try read("back.srt").contains("{\\an8}Second"), "the top caption comes back at the top")
        XCTAssertTrue(try read("back.srt").contains("<i>"), "italics come back")
    }

    /// What 608 cannot hold is exit 2 naming the first problem, with no output; --fix repairs each and says so, and
    /// ffmpeg reads the repaired file.
    func testSCCValidatorAndFix() throws {
        let srt = try write(
            """
            1
            00:00:00,000 --> 00:00:02,000
            A line that is much too long for the thirty two columns of 608 — and so it wraps…

            2
            00:00:01,500 --> 00:00:02,500
            Overlapping

            3
            00:00:02,600 --> 00:00:03,000
            Too soon to load after the one before it

            4
            00:00:05,000 --> 00:00:06,000
            Emoji 😀 and €

            """, "bad.srt")
        let strict = try Support.sdrify("captions", srt, file("bad.scc"))
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("cue 1"), strict.stderr)
        XCTAssertEqual(strict.stderr.split(separator: "\n").count, 1, strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.scc")))
        let fixed = try Support.sdrify("captions", srt, file("bad.scc"), "--fix")
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        for words in ["32 columns", "not a 608 character", "starts before the previous", "frames to load", "'€'"] {
            XCTAssertTrue(fixed.stderr.contains(words), "\(words): \(fixed.stderr)")
        }
        let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", file("bad.scc"), "-f", "srt", "-"])
        let got = cues(ff.stdout)
        XCTAssertEqual(got.count, 4, ff.stdout)
        guard got.count == 4 else { return }
        XCTAssertTrue(got.allSatisfy { $0.2.split(separator: "\n").allSatisfy { $0.count <= 32 } }, ff.stdout)
        XCTAssertEqual(got[0].2.split(separator: "\n").count, 3, "wrapped to three rows")
        XCTAssertTrue(got[0].2.hasSuffix("wraps..."), got[0].2)
        XCTAssertTrue(got[3].2.contains("EUR"), got[3].2)
        for k in 1..<4 { XCTAssertGreaterThanOrEqual(got[k].0, got[k - 1].1 - 0.001, "one caption at a time") }
        XCTAssertGreaterThan(got[2].0, 2.6, "the caption too close to load starts later")
        // Every line of the file is sent in its own time: no two transmissions overlap at one word a frame.
        var busy = -1
        for line in try read("bad.scc").split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t")
            guard f.count == 2 else { continue }
            let tc = f[0].split(whereSeparator: { $0 == ":" || $0 == ";" }).compactMap { Int($0) }
            let minutes = tc[0] * 60 + tc[1]
            let start = (minutes * 60 + tc[2]) * 30 + tc[3] - 2 * (minutes - minutes / 10)
            XCTAssertGreaterThanOrEqual(start, busy, String(line))
            busy = start + f[1].split(separator: " ").count
        }
    }

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
        XCTAssertEqual(try Support.sdrify("captions", scc, file("roll.srt")).status, 0)
        let got = cues(try read("roll.srt"))
        let srt = try read("roll.srt")
        XCTAssertEqual(got.map(\.2), ["HI", "HI\n[O", "OK\nHI\n[O"], srt)
        XCTAssertEqual(got.first?.0 ?? 0, 1.001, accuracy: 0.002)
        XCTAssertEqual(got.last?.1 ?? 0, 4.004, accuracy: 0.002)
    }

    /// TTML with frames, ticks, offsets, nested time containers, referenced and inline styles and a top region.
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
        let r = try Support.sdrify("captions", ttml, file("out.vtt"))
        XCTAssertEqual(r.status, 0, r.stderr)
        let vtt = try read("out.vtt")
        let got = cues(vtt.replacingOccurrences(of: "WEBVTT\n", with: ""))
        XCTAssertEqual(got.map(\.2), ["Offset", "Framed words", "Ticks bold red\nline two"], vtt)
        guard got.count == 3 else { return }
        XCTAssertEqual(got[1].0, 11.2, accuracy: 0.001, "10 s + 1 s 5 frames at 25 fps")
        XCTAssertEqual(got[1].1, 12, accuracy: 0.001)
        XCTAssertEqual(got[2].0, 13, accuracy: 0.001, "10 s + 3e7 ticks at 1e7")
        XCTAssertEqual(got[2].1, 14.5, accuracy: 0.001)
        XCTAssertTrue(vtt.contains("<i>Framed words</i>"), vtt)
        XCTAssertTrue(vtt.contains("<b><c.red>bold red</c></b>"), vtt)
        XCTAssertTrue(vtt.contains("line:0"), "the top region: \(vtt)")
        let bad = try write("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\">x</p>", "bad.ttml")
        let e = try Support.sdrify("captions", bad, file("bad.srt"))
        XCTAssertEqual(e.status, 2, "a damaged file is invalid input: \(e.stderr)")
        XCTAssertTrue(e.stderr.contains("bad.ttml"), e.stderr)
        XCTAssertEqual(e.stderr.split(separator: "\n").count, 1, e.stderr)
    }

    /// SRT → iTT → SRT keeps text, styling, placement and times; the iTT is TTML in Apple's profile.
    func testITTRoundTrip() throws {
        let text =
            "1\n00:00:01,250 --> 00:00:02,500\n{\\an8}<i>Top</i> & <b>bold</b> <font color=\"#FFFF00\">yellow</font>\n\n"
            + "2\n00:01:02,000 --> 00:01:04,040\nTwo\nlines\n"
        let srt = try write(text, "a.srt")
        XCTAssertEqual(try Support.sdrify("captions", srt, file("a.itt")).status, 0)
        let itt = try read("a.itt")
        for part in [
            "xmlns=\"http://www.w3.org/ns/ttml\"", "ttp:frameRateMultiplier=\"1000 1001\"", "region=\"top\"",
            "tts:fontStyle=\"italic\"", "&amp;", "<br/>", "begin=\"00:01:02.000\" end=\"00:01:04.040\""
        ] {
            XCTAssertTrue(itt.contains(part), "\(part): \(itt)")
        }
        XCTAssertEqual(try Support.sdrify("captions", file("a.itt"), file("b.srt")).status, 0)
        XCTAssertEqual(try read("b.srt"), text)
    }

    /// LRC lyrics: several times for one line, an offset, a break, enhanced per-word times, the last line's length;
    /// written back as LRC that reads the same; told apart by content; a file with no time tag is damage (exit 2).
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
        XCTAssertEqual(try Support.sdrify("captions", lrc, file("song.srt")).status, 0)
        let got = cues(try read("song.srt"))
        let want: [(Double, Double, String)] = [
            (1.25, 2.75, "Chorus line"), (2.75, 4.75, "Second line & [more]"), (5.75, 7.75, "Word by word"),
            (7.75, 9.75, "Only word times"), (9.75, 11.75, "Chorus line")
        ]
        let srt = try read("song.srt")
        XCTAssertEqual(got.count, want.count, srt)
        for (g, w) in zip(got, want) {
            XCTAssertEqual(g.0, w.0, accuracy: 0.001, w.2)
            XCTAssertEqual(g.1, w.1, accuracy: 0.001, w.2)
            XCTAssertEqual(g.2, w.2)
        }
        XCTAssertTrue(srt.contains("Second line & [more]"), "the brackets are the lyric's own text")

        XCTAssertEqual(try Support.sdrify("captions", file("song.srt"), file("back.lrc")).status, 0)
        let back = try read("back.lrc")
        XCTAssertTrue(back.hasPrefix("[00:01.25]Chorus line\n[00:02.75]Second line & [more]\n[00:04.75]\n[00:05.75]Word by word\n"), back)
        XCTAssertEqual(try Support.sdrify("captions", file("back.lrc"), file("again.srt")).status, 0)
        XCTAssertEqual(try read("again.srt"), srt, "LRC written by sdrify reads back the same")

        // Told apart by content, whatever the name; no time tag at all is not lyrics.
        let misnamed = try write(try read("back.lrc"), "lyrics.txt")
        XCTAssertEqual(try Support.sdrify("captions", misnamed, file("misnamed.srt")).status, 0)
        XCTAssertEqual(try read("misnamed.srt"), srt)
        let tagsOnly = try write("[ti:Nothing]\n[ar:Nobody]\nno times here\n", "empty.lrc")
        let r = try Support.sdrify("captions", tagsOnly, file("empty.srt"))
        XCTAssertEqual(r.status, 2, r.stderr)
    }

    /// ASS dialogue with overrides → SRT; an unknown output extension is a usage error; no clobber.
    func testASSInAndErrors() throws {
        let ass = try write(
            """
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,{\\i1}Slanted{\\i0}\\Nsecond
            """, "a.ass")
        XCTAssertEqual(try Support.sdrify("captions", ass, file("a.srt")).status, 0)
        XCTAssertEqual(try read("a.srt"), "1\n00:00:01,000 --> 00:00:02,500\n<i>Slanted</i>\nsecond\n")
        let again = try Support.sdrify("captions", ass, file("a.srt"))
        XCTAssertEqual(again.status, 4, again.stderr)
        let unknown = try Support.sdrify("captions", ass, file("a.txt"))
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
    }

    /// SCC, TTML and LRC files burn in like SRT; captions follow the input's clock (a --start cut moves them) and
    /// --captions-offset moves them further.
    func testEveryFormatBurnsInOnTheInputsClock() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "4", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let srt = try write("1\n00:00:02,000 --> 00:00:03,000\nCAPTION\n", "c.srt")
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.scc")).status, 0)
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.ttml")).status, 0)
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.lrc")).status, 0)
        func shown(_ out: String, at n: Int) throws -> Bool {
            let a = try Support.rawFrame(out, index: n, pixelFormat: "yuv420p").prefix(320 * 240)
            let b = try Support.rawFrame(file("grey.mp4"), index: n, pixelFormat: "yuv420p").prefix(320 * 240)
            return zip(a, b).contains { abs(Int($0) - Int($1)) > 12 }
        }
        for name in ["c.scc", "c.ttml", "c.lrc"] {
            let r = try Support.sdrify(file("grey.mp4"), file("\(name).mp4"), "--captions", file(name))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(try shown(file("\(name).mp4"), at: 75), "\(name): on at 2.5 s")
            XCTAssertFalse(try shown(file("\(name).mp4"), at: 30), "\(name): off at 1 s")
        }
        // --start 1: the caption (2–3 s of the input) shows at 1–2 s of the output; --captions-offset 0.5 moves it on.
        let cut = try Support.sdrify(file("grey.mp4"), file("cut.mp4"), "--start", "1", "--captions", srt)
        XCTAssertEqual(cut.status, 0, cut.stderr)
        XCTAssertTrue(try shown(file("cut.mp4"), at: 45), "on at 1.5 s of the output")
        XCTAssertFalse(try shown(file("cut.mp4"), at: 75), "off at 2.5 s of the output")
        let moved = try Support.sdrify(file("grey.mp4"), file("moved.mp4"), "--captions", srt, "--captions-offset=-1.5")
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue(try shown(file("moved.mp4"), at: 20), "on at 0.67 s")
        XCTAssertFalse(try shown(file("moved.mp4"), at: 60), "off at 2 s")
    }

    /// --subtitles writes mov_text tracks with their languages; ffmpeg reads back the text and times; a cut moves and
    /// trims them with the picture.
    func testSoftSubtitleTracks() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let en = try write("1\n00:00:00,500 --> 00:00:01,500\nFirst <i>one</i>\n\n2\n00:00:02,000 --> 00:00:02,800\nSecond\n", "en.srt")
        let fr = try write("WEBVTT\n\n00:00.250 --> 00:01.000\nPremier\n", "fr.vtt")
        let r = try Support.sdrify(file("grey.mp4"), file("soft.mp4"), "--subtitles", "\(en):eng", "--subtitles", "\(fr):fra")
        XCTAssertEqual(r.status, 0, r.stderr)
        let subs = Support.streams(try Support.ffprobe(file("soft.mp4")), "subtitle")
        XCTAssertEqual(subs.map { $0["codec_name"] as? String }, ["mov_text", "mov_text"])
        XCTAssertEqual(subs.map { ($0["tags"] as? [String: Any])?["language"] as? String }, ["eng", "fra"])
        func track(_ path: String, _ n: Int) throws -> [(Double, Double, String)] {
            let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:s:\(n)", "-f", "srt", "-"])
            XCTAssertEqual(ff.status, 0, ff.stderr)
            return cues(ff.stdout)
        }
        let english = try track(file("soft.mp4"), 0)
        XCTAssertEqual(english.map(\.2), ["First one", "Second"])
        XCTAssertEqual(english.map(\.0), [0.5, 2.0])
        XCTAssertEqual(english.map(\.1), [1.5, 2.8])
        XCTAssertEqual(try track(file("soft.mp4"), 1).map(\.2), ["Premier"])
        let cut = try Support.sdrify(file("grey.mp4"), file("cut.mp4"), "--subtitles", en, "--start", "1", "--duration", "1.5")
        XCTAssertEqual(cut.status, 0, cut.stderr)
        let moved = try track(file("cut.mp4"), 0)
        XCTAssertEqual(moved.map(\.0), [0, 1.0])
        XCTAssertEqual(moved.map(\.1), [0.5, 1.5], "trimmed to the output's end")
        let missing = try Support.sdrify(file("grey.mp4"), file("x.mp4"), "--subtitles", file("none.srt"))
        XCTAssertEqual(missing.status, 64, missing.stderr)
    }

    /// The input's own text subtitle tracks are kept (retimed with a cut; --no-subtitles drops them), and one of
    /// them burns in with --captions input:N.
    func testInputSubtitleTracksAreKeptOrBurnedIn() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "3", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let srt = try write("1\n00:00:00,500 --> 00:00:01,500\nFirst <i>one</i>\n\n2\n00:00:02,000 --> 00:00:02,800\nSecond\n", "en.srt")
        try ffmpeg([
            "-i", file("grey.mp4"), "-i", srt, "-map", "0", "-map", "1", "-c:v", "copy", "-c:s", "mov_text",
            "-metadata:s:s:0", "language=deu", file("with.mp4")
        ])
        func track(_ path: String) throws -> [(Double, Double, String)] {
            let ff = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:s:0", "-f", "srt", "-"])
            return cues(ff.stdout)
        }
        XCTAssertEqual(try Support.sdrify(file("with.mp4"), file("kept.mp4")).status, 0)
        let kept = try track(file("kept.mp4"))
        XCTAssertEqual(kept.map(\.2), ["First one", "Second"])
        XCTAssertEqual(kept.map(\.0), [0.5, 2.0])
        XCTAssertEqual(
            Support.streams(try Support.ffprobe(file("kept.mp4")), "subtitle").first.flatMap {
                ($0["tags"] as? [String: Any])?["language"] as? String
            }, "deu")
        XCTAssertEqual(try Support.sdrify(file("with.mp4"), file("cut.mp4"), "--start", "1").status, 0)
        XCTAssertEqual(try track(file("cut.mp4")).map(\.0), [0, 1.0])
        XCTAssertEqual(try Support.sdrify(file("with.mp4"), file("none.mp4"), "--no-subtitles").status, 0)
        XCTAssertTrue(Support.streams(try Support.ffprobe(file("none.mp4")), "subtitle").isEmpty)
        // Burned in from the input's own track 1: drawn while the first cue shows, not before.
        let burn = try Support.sdrify(file("with.mp4"), file("burn.mp4"), "--captions", "input:1", "--no-subtitles")
        XCTAssertEqual(burn.status, 0, burn.stderr)
        func shown(_ n: Int) throws -> Bool {
            let a = try Support.rawFrame(file("burn.mp4"), index: n, pixelFormat: "yuv420p").prefix(320 * 240)
            let b = try Support.rawFrame(file("grey.mp4"), index: n, pixelFormat: "yuv420p").prefix(320 * 240)
            return zip(a, b).contains { abs(Int($0) - Int($1)) > 12 }
        }
        XCTAssertTrue(try shown(30))
        XCTAssertFalse(try shown(6))
        let wrong = try Support.sdrify(file("with.mp4"), file("x.mp4"), "--captions", "input:0")
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("not a subtitle track"), wrong.stderr)
    }
}
