import Foundation
import XCTest

/// Valid files of unusual shape (scripts/make-unusual-vectors.py: spliced MPEG-TS, a stream joined mid-GOP, Matroska
/// B-frames, a variable-rate screen recording, one picture, sound before the pictures, open-GOP HEVC cut at a CRA,
/// an edit list of many segments) convert without a false alarm: exit 0, no damage reported, the pictures a player
/// shows. The counterpart of HostileInputTests, where the same disorder inside MP4 stays damage.
final class UnusualInputTests: CLITestCase {
    private struct Expectation { let frames: Int?; let why: String }

    private func corpus() throws -> [String: Expectation] {
        let script = Support.packageRoot.appendingPathComponent("scripts/make-unusual-vectors.py").path
        try shared("unusual-vectors") { folder in
            let made = try Support.run(Support.tool("python3"), [script, folder.path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("expected.json"))) as? [String: Any]
        return (json ?? [:]).mapValues { v in
            let d = v as? [String: Any] ?? [:]
            return Expectation(frames: d["frames"] as? Int, why: d["why"] as? String ?? "")
        }
    }

    /// The pictures ffmpeg decodes from the file (what a player built on it shows).
    private func decodedPictures(_ path: String) throws -> Int {
        let r = try Support.run(
            Support.tool("ffprobe"),
            ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return r.stdout.split(whereSeparator: \.isNewline).compactMap { Int($0.filter(\.isNumber)) }.first ?? -1  // (TS adds a program line)
    }

    func testValidButUnusualFilesConvertWithoutAlarm() throws {
        let files = try corpus()
        XCTAssertGreaterThanOrEqual(files.count, 10)
        for (name, expected) in files.sorted(by: { $0.key < $1.key }) {
            let output = file("\(name).out.mp4")
            let r = try Support.sdrify(file(name), output, "--json")
            XCTAssertEqual(r.status, 0, "\(name) (\(expected.why)): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("damaged"), "\(name): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            let frames = try expected.frames ?? decodedPictures(file(name))
            XCTAssertEqual(report["frames"] as? Int, frames, "\(name) (\(expected.why))")
            XCTAssertEqual(report["decode_errors"] as? Int, 0, name)
        }
    }

    /// `cat a.ts b.ts` whose second part starts over, leaps ahead or goes back: re-based, once told, the sound still
    /// under the pictures, and the second part's first picture right after the first part's last.
    func testSplicedTransportStreamsPlayOneAfterTheOther() throws {
        _ = try corpus()
        for name in ["spliced_overlap.ts", "spliced_jump.ts", "spliced_back.ts"] {
            let output = file("\(name).mp4")
            let r = try Support.sdrify(file(name), output)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr.components(separatedBy: "timestamp discontinuity").count, 2, "one warning: \(r.stderr)")
            let probe = try Support.ffprobe(output)
            for type in ["video", "audio"] {
                let duration = Double(Support.streams(probe, type).first?["duration"] as? String ?? "") ?? 0
                XCTAssertEqual(duration, 4.0, accuracy: 0.15, "\(name) \(type)")
            }
            // Picture 60 is the second part's first (testsrc2 at 0 s again), as in a conversion of part one alone.
            let first = try Support.lumaFrame(output, index: 0), sixtieth = try Support.lumaFrame(output, index: 60)
            XCTAssertGreaterThan(Support.psnr(first, sixtieth), 30, name)
            // A composition (and --fps) counts the re-based pictures, not the headers' span across the splice.
            let composed = try Support.sdrify("compose", file(name), "--output", file("\(name).composed.mp4"), "--json")
            XCTAssertEqual(composed.status, 0, composed.stderr)
            XCTAssertEqual((try JSONSerialization.jsonObject(with: composed.stdoutData) as? [String: Any])?["frames"] as? Int, 120, name)
            // A range that ends after the splice but before the end is told of it too.
            let cut = try Support.sdrify(file(name), file("\(name).cut.mp4"), "--duration", "3", "--json")
            XCTAssertEqual(cut.status, 0, cut.stderr)
            XCTAssertEqual(cut.stderr.components(separatedBy: "timestamp discontinuity").count, 2, "one warning: \(cut.stderr)")
            XCTAssertEqual((try JSONSerialization.jsonObject(with: cut.stdoutData) as? [String: Any])?["frames"] as? Int, 90, name)
            let constant = try Support.sdrify(file(name), file("\(name).30.mp4"), "--fps", "30", "--json")
            XCTAssertEqual(constant.status, 0, constant.stderr)
            XCTAssertEqual((try JSONSerialization.jsonObject(with: constant.stdoutData) as? [String: Any])?["frames"] as? Int, 120, name)
        }
    }
}
