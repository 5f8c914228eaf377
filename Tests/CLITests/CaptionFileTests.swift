import Foundation
import XCTest

/// `sdrify captions` as a process: SCC checked by ffmpeg's own 608 decoder; the 608 validator and its repairs; the exit
/// statuses; caption files of every format burned in, on the input's clock. (Each format's reader and writer is
/// SDRifyTests.CaptionFormatTests', in-process.)
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

    /// `sdrify captions` as a process: a file converts (exit 0), an output already there is exit 4 and left as it was,
    /// an unknown output extension exit 64 in one line. (Each format's reader and writer is
    /// SDRifyTests.CaptionFormatTests', in-process.)
    func testCaptionsExitStatuses() throws {
        let srt = try write("1\n00:00:01,000 --> 00:00:02,500\n<i>Slanted</i>\nsecond\n", "a.srt")
        XCTAssertEqual(try Support.sdrify("captions", srt, file("a.vtt")).status, 0)
        let vtt = try read("a.vtt")
        XCTAssertTrue(vtt.hasPrefix("WEBVTT") && vtt.contains("00:00:01.000 --> 00:00:02.500\n<i>Slanted</i>\nsecond"), vtt)
        let again = try Support.sdrify("captions", srt, file("a.vtt"))
        XCTAssertEqual(again.status, 4, again.stderr)
        XCTAssertEqual(try read("a.vtt"), vtt, "left as it was")
        let unknown = try Support.sdrify("captions", srt, file("a.txt"))
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
        XCTAssertEqual(unknown.stderr.split(separator: "\n").count, 1, unknown.stderr)
    }

    /// SCC, TTML and LRC files burn in like SRT; captions follow the input's clock (a --start cut moves them) and
    /// --captions-offset moves them further.
    func testEveryFormatBurnsInOnTheInputsClock() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "4", "-c:v", "libx264", "-pix_fmt", "yuv420p", file("grey.mp4")])
        let srt = try write("1\n00:00:02,000 --> 00:00:03,000\nCAPTION\n", "c.srt")
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.scc")).status, 0)
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.ttml")).status, 0)
        XCTAssertEqual(try Support.sdrify("captions", srt, file("c.lrc")).status, 0)
        // Whether pictures `at` of `out` differ from the grey clip's (their Y' planes); the grey's decoded once.
        let greyAt = [20, 30, 45, 60, 75]
        let grey = Dictionary(uniqueKeysWithValues: zip(greyAt, try Support.rawFrames(file("grey.mp4"), indices: greyAt, pixelFormat: "yuv420p")))
        func shown(_ out: String, at pictures: [Int]) throws -> [Bool] {
            try zip(pictures, Support.rawFrames(out, indices: pictures, pixelFormat: "yuv420p")).map { n, a in
                zip(a.prefix(320 * 240), grey[n]!.prefix(320 * 240)).contains { abs(Int($0) - Int($1)) > 12 }
            }
        }
        for name in ["c.scc", "c.ttml", "c.lrc"] {
            let r = try Support.sdrify(file("grey.mp4"), file("\(name).mp4"), "--captions", file(name))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try shown(file("\(name).mp4"), at: [75, 30]), [true, false], "\(name): on at 2.5 s, off at 1 s")
        }
        // --start 1: the caption (2–3 s of the input) shows at 1–2 s of the output; --captions-offset 0.5 moves it on.
        let cut = try Support.sdrify(file("grey.mp4"), file("cut.mp4"), "--start", "1", "--captions", srt)
        XCTAssertEqual(cut.status, 0, cut.stderr)
        XCTAssertEqual(try shown(file("cut.mp4"), at: [45, 75]), [true, false], "on at 1.5 s of the output, off at 2.5 s")
        let moved = try Support.sdrify(file("grey.mp4"), file("moved.mp4"), "--captions", srt, "--captions-offset=-1.5")
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(try shown(file("moved.mp4"), at: [20, 60]), [true, false], "on at 0.67 s, off at 2 s")
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
        let pictures = [30, 6]
        let burned = try Support.rawFrames(file("burn.mp4"), indices: pictures, pixelFormat: "yuv420p")
        let grey = try Support.rawFrames(file("grey.mp4"), indices: pictures, pixelFormat: "yuv420p")
        let shown = zip(burned, grey).map { a, b in zip(a.prefix(320 * 240), b.prefix(320 * 240)).contains { abs(Int($0) - Int($1)) > 12 } }
        XCTAssertEqual(shown, [true, false], "on at 1 s, not at 0.2 s")
        let wrong = try Support.sdrify(file("with.mp4"), file("x.mp4"), "--captions", "input:0")
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("not a subtitle track"), wrong.stderr)
    }
}
