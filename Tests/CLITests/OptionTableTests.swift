import Foundation
import Synchronization
import XCTest

@testable import SDRify

/// Every option the library declares (CommandOptions) is checked the same way by every command that takes it: a bad
/// value is one `sdrify:` line naming the option and its range (and nothing else on stderr), exit 64, the same words
/// in the JSON error object, and nothing written. Each command's help shows the option with the table's help.
final class OptionTableTests: CLITestCase {
    /// The commands, as a user types them up to the options (OUT is a file or folder that must not appear).
    func commands(_ input: String) -> [String: [String]] {
        [
            "convert": [input, file("out.mp4")],
            "hls": ["hls", input, file("out")],
            "compose": ["compose", input, "-o", file("out.mp4")],
            "thumbnail": ["thumbnail", input, file("out.jpg")],
            "sheet": ["sheet", input, file("out.jpg")],
            "sprites": ["sprites", input, file("out")],
            "probe": ["probe", input, "--scene-stats"]
        ]
    }

    func testEachBadValueGetsTheOneMessageInEachCommand() throws {
        let picture = ["convert", "hls"], encoding = ["convert", "hls", "compose"], rendering = encoding + ["thumbnail", "sheet", "sprites"]
        let everyCommand = rendering + ["probe"]
        let cases: [(args: [String], message: String, commands: [String])] = [
            (["--start", "-1"], "--start must be 0 or more seconds", ["convert", "hls", "probe"]),
            (["--duration", "0"], "--duration must be more than 0 seconds", ["convert", "hls", "probe"]),
            (["--fps", "500"], "--fps must be a rate from 1 to 240 (30, 29.97 or 30000/1001)", encoding),
            (["--audio-track", "e1"], "--audio-track: expected a track number, a language code (eng, fra…) or all, not 'e1'", ["convert"]),
            (["--audio-track", "all"], "--audio-track: expected a track number or a language code (eng, fra…), not 'all'", ["hls"]),
            (["--metadata", "most"], "--metadata must be minimal or keep, not 'most'", ["convert"]),
            (["--rotate", "45"], "--rotate must be 90, 180 or 270 (degrees clockwise), not 45", picture),
            (["--flip", "x"], "--flip must be h or v, not 'x'", picture),
            (["--crop", "1,2,3"], "--crop: expected X,Y,W,H in whole pixels (X and Y 0 or more, W and H 2 or more), not '1,2,3'", picture),
            (["--speed", "5"], "--speed must be from 0.25 to 4, not 5.0", picture),
            (["--speed-audio", "loud"], "--speed-audio must be keep or mute, not 'loud'", picture),
            (["--slow-motion", "on"], "--slow-motion must be auto or off, not 'on'", picture),
            (["--loudness", "3"], "--loudness must be from -70 to 0 LUFS, not 3.0", encoding),
            (["--background", "#12"], "--background: expected #RRGGBB, blur[:RADIUS] or an image file, not '#12'", ["convert", "compose"]),
            (["--background", file("missing.png")], "--background: cannot read \(file("missing.png"))", ["convert", "compose"]),
            (["--fit", "squash"], "--fit: unknown fit 'squash' (one of: contain, cover, stretch)", ["compose"]),
            (["--image-duration", "0"], "--image-duration must be more than 0 seconds", ["compose"]),
            (["--music-volume", "-1"], "--music-volume must be 0 or more", ["compose"]),
            (["--tonemap", "magic"], "--tonemap: unknown tone-map operator 'magic' (one of: auto", rendering),
            (["--threads", "-2"], "--threads must be 0 or more", rendering),
            (["--exposure", "3"], "--exposure must be from -2 to 2 stops, not 3.0", rendering),
            (["--max-bitrate", "9"], "--max-bitrate: expected a rate from 50k to 1000M (4M, 2500k), not '9'", encoding),
            (["--poster", file("p.jpg"), "--poster-at", "-1"], "--poster-at must be 0 or more seconds", ["convert", "compose"]),
            (["--at", "-1"], "--at must be 0 or more seconds", ["thumbnail"]),
            (["--segment", "0.5"], "--segment must be from 1 to 30 seconds, not 0.5", ["hls"]),
            (["--ladder", "720,9"], "--ladder: '9' is not a rung (a short edge from 16 to 4320 pixels)", ["hls"]),
            (["--codec", "vp9"], "--codec must be h264, hevc or av1, not 'vp9'", encoding),
            (["--codec", "av1", "--crf", "0"], "--crf must be between 1 and 63", encoding),
            (["--codec", "av1", "--encoder-preset", "fast"], "--encoder-preset must be one of 0, 1, 2", encoding),
            (["--jobs", "65"], "--jobs must be from 1 to 64", ["convert"]),
            (["--max-pixels", "0"], "--max-pixels must be more than 0", everyCommand),
            (["--max-duration", "0"], "--max-duration must be more than 0 seconds", everyCommand),
            (["--max-memory", "lots"], "--max-memory: expected bytes like 800M or 2G, not 'lots'", everyCommand),
            (["--timeout", "-1"], "--timeout must be more than 0 seconds", everyCommand)
        ]
        let typed = commands(Support.vector("orient_1.mp4"))
        let runs = cases.flatMap { c in c.commands.map { (args: typed[$0]! + c.args + ["--json"], message: c.message) } }
        XCTAssertEqual(runs.count, cases.map(\.commands.count).reduce(0, +))
        // Side by side (each run is a process of the debug build); one run says it twice: the `sdrify:` line on
        // stderr and the error object on stdout.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: runs.count) { i in
            let (args, message) = runs[i]
            guard let r = try? Support.sdrify(args) else { return failures.withLock { $0.append("\(args): did not run") } }
            let object = (try? JSONSerialization.jsonObject(with: r.stdoutData)) as? [String: Any]
            let said = "sdrify: " + (object?["error"] as? String ?? "?") + "\n"
            if r.status != 64 || object?["exit_code"] as? Int != 64 || !r.stderr.hasPrefix("sdrify: " + message) || r.stderr != said {
                failures.withLock { $0.append("\(args): exit \(r.status), stderr \(r.stderr), stdout \(r.stdout)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        for name in ["out.mp4", "out.jpg", "out", "p.jpg"] { XCTAssertFalse(FileManager.default.fileExists(atPath: file(name)), name) }
    }

    /// The help each command prints for a table option is the table's, under the table's name.
    func testHelpComesFromTheTable() throws {
        let shown: [(String, [String])] = [
            ("convert", ["start", "duration", "fps", "audio-track", "metadata", "rotate", "speed", "loudness", "tonemap", "threads", "jobs"]),
            ("hls", ["start", "duration", "fps", "segment", "ladder", "codec", "max-bitrate"]),
            ("compose", ["fps", "fit", "background", "image-duration", "music-volume", "poster-at"]),
            ("thumbnail", ["at", "tonemap", "timeout"]),
            ("probe", ["start", "duration", "max-memory"])
        ]
        func entry<T, V>(_ option: CommandOption<T, V>) -> (String, String) { (option.name, option.help) }
        let o = CommandOptions.self
        let table = [
            entry(o.start), entry(o.duration), entry(o.at), entry(o.imageDuration), entry(o.posterAt), entry(o.timeout), entry(o.fps),
            entry(o.background), entry(o.rotate), entry(o.threads), entry(o.jobs), entry(o.audioTrack), entry(o.metadata), entry(o.speed),
            entry(o.loudness), entry(o.musicVolume), entry(o.toneMap), entry(o.segment), entry(o.ladder), entry(o.codec), entry(o.maxBitRate),
            entry(o.fit), entry(o.maxMemory)
        ]
        for (command, options) in shown {
            let help = try Support.sdrify(command, "--help")
            XCTAssertEqual(help.status, 0, command)
            let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // the columns rewrapped
            for name in options {
                XCTAssertTrue(text.contains("--\(name)"), "\(command) --help names --\(name)")
                let words = table.first { $0.0 == name }!.1.split(whereSeparator: \.isWhitespace).prefix(6).joined(separator: " ")
                XCTAssertTrue(text.contains(words), "\(command) --help: --\(name) says '\(words)'")
            }
        }
    }
}
