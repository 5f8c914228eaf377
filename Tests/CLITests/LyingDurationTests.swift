import Foundation
import XCTest

/// Files whose containers lie about how long each picture lasts while the pictures' own times are right
/// (scripts/make-lying-durations.py: Matroska saying 1 ms, nothing or 100 ms per picture; MP4 with decode steps of
/// 1 ms or 1/15 s and composition offsets carrying the rest; a last sample said to last 0 or 2 s; with and without
/// B-frames). Timing comes from the pictures (issue 57): each converts to what its honest twin converts to, 30
/// pictures 1/30 s apart in a track of 1 s, its sample table in steps of the picture spacing; the rate probe and the
/// encoder see is 30; a range selects the same pictures as in the honest file.
final class LyingDurationTests: CLITestCase {
    private struct Lie { let name: String; let frames: Int; let spacing: Double; let honest: String; let why: String }

    private func corpus() throws -> [Lie] {
        let script = Support.packageRoot.appendingPathComponent("scripts/make-lying-durations.py").path
        try shared("lying-durations") { folder in
            let made = try Support.run(Support.tool("python3"), [script, folder.path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("expected.json"))) as? [String: Any]
        return (json ?? [:]).sorted { $0.key < $1.key }.map { name, value in
            let d = value as? [String: Any] ?? [:]
            return Lie(
                name: name, frames: d["frames"] as? Int ?? -1, spacing: d["spacing"] as? Double ?? 0, honest: d["honest"] as? String ?? "",
                why: d["why"] as? String ?? "")
        }
    }

    /// The output's video packets: (presentation time, decode time) in seconds, in decoding order. (ffprobe gives an
    /// MP4 packet with B-frames no duration of its own: the decode steps are the sample table's durations.)
    private func packets(_ path: String) throws -> [(pts: Double, dts: Double)] {
        let r = try Support.run(
            Support.tool("ffprobe"),
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.split(whereSeparator: \.isNewline).compactMap { line in
            let f = line.split(separator: ",").map { Double($0) }
            guard f.count >= 2, let pts = f[0], let dts = f[1] else { return nil }
            return (pts, dts)
        }
    }

    func testEveryPictureLastsItsSpacingWhateverTheContainerSays() throws {
        let lies = try corpus()
        XCTAssertGreaterThanOrEqual(lies.count, 12)
        for lie in lies {
            let out = file("\(lie.name).mp4")
            let r = try Support.sdrify(file(lie.name), out, "--preset", "960x540", "--json")
            XCTAssertEqual(r.status, 0, "\(lie.name) (\(lie.why)): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("damaged"), "\(lie.name): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            XCTAssertEqual(report["frames"] as? Int, lie.frames, lie.name)
            let rate = report["frame_rate"] as? [String: Any] ?? [:]
            XCTAssertEqual(rate["source"] as? String, "30", "\(lie.name): \(rate)")
            let video = Support.streams(try Support.ffprobe(out), "video").first ?? [:]
            XCTAssertEqual(Int(video["nb_frames"] as? String ?? ""), lie.frames, lie.name)
            // The track lasts as long as its pictures; each picture as long as the step to the next (a Matroska
            // source's millisecond times round 1/30 s to 33 or 34 ms).
            let tolerance = lie.name.hasSuffix(".mkv") ? 0.0015 : 0.0001
            XCTAssertEqual(
                Double(video["duration"] as? String ?? "") ?? 0, Double(lie.frames) * lie.spacing, accuracy: 2 * tolerance, "\(lie.name): length")
            let shown = try packets(out)
            XCTAssertEqual(shown.count, lie.frames, lie.name)
            for times in [shown.map(\.pts).sorted(), shown.map(\.dts)] {
                for (a, b) in zip(times, times.dropFirst()) { XCTAssertEqual(b - a, lie.spacing, accuracy: tolerance, "\(lie.name): at \(a) s") }
            }
            // probe says the pictures' rate; the average is the container's where the pictures do not contradict it
            // (within 1.5 times theirs: a last sample of 0 makes 31), never the lie's 1000 or 10.
            let probe = try Support.sdrify("probe", file(lie.name), "--json")
            let v = (try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any])?["video"] as? [String: Any] ?? [:]
            XCTAssertEqual(v["frame_rate"] as? Double ?? 0, 30, accuracy: 0.001, lie.name)
            XCTAssertLessThan(abs(log((v["average_frame_rate"] as? Double ?? 1) / 30)), log(1.5), "\(lie.name): \(v["average_frame_rate"] ?? "")")
        }
    }

    /// A range of a lying file is the same pictures at the same times as the range of its honest twin (the seek in an
    /// index of 1 ms decode steps lands after the start: read from the start instead), with --fps and --speed too.
    func testARangeOfALyingFileIsTheRangeOfItsTwin() throws {
        // The HTC case and the two MP4 lies that were refused (every file is cut by the conformance suite's full run).
        let kinds = ["mkv_1ms_bframes.mkv", "mp4_1ms_bframes.mp4", "mp4_last_long.mp4"]
        let lies = try corpus().filter { kinds.contains($0.name) }
        XCTAssertEqual(lies.count, kinds.count)
        for lie in lies {
            for options in [["--start", "0.2", "--end", "0.7"], ["--start", "0.4", "--fps", "24"], ["--end", "0.6", "--speed", "2"]] {
                let lying = file("\(lie.name).range.mp4"), honest = file("\(lie.name).twin.mp4")
                let a = try Support.sdrify([file(lie.name), lying, "-y"] + options)
                let b = try Support.sdrify([file(lie.honest), honest, "-y"] + options)
                XCTAssertEqual(a.status, 0, "\(lie.name) \(options): \(a.stderr)")
                XCTAssertEqual(b.status, 0, "\(lie.honest) \(options): \(b.stderr)")
                let x = try packets(lying).map(\.pts).sorted(), y = try packets(honest).map(\.pts).sorted()
                XCTAssertEqual(x.count, y.count, "\(lie.name) \(options): \(x.count) pictures, its twin \(y.count)")
                for (p, q) in zip(x, y) { XCTAssertEqual(p, q, accuracy: 0.0015, "\(lie.name) \(options)") }
                let first = try Support.lumaFrame(lying, index: 0), twin = try Support.lumaFrame(honest, index: 0)
                XCTAssertGreaterThan(Support.psnr(first, twin), 40, "\(lie.name) \(options): the first picture is the twin's")
            }
        }
    }
}
