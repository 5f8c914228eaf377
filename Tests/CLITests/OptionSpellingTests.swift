import Foundation
import Synchronization
import XCTest

/// Every long option of every command, misspelt by one edit, with and without a value, gets "did you mean" naming
/// it (the value after a misspelt option was taken for one more file: "3 files given").
final class OptionSpellingTests: CLITestCase {
    /// Each command's long options, as the parser declares them (sdrify --experimental-dump-help).
    private func longOptions() throws -> [String: [String]] {
        let r = try Support.sdrify("--experimental-dump-help")
        let root = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
        let commands = (root?["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? []
        var options: [String: [String]] = [:]
        for command in commands {
            guard let name = command["commandName"] as? String, name != "help", command["shouldDisplay"] as? Bool != false else { continue }
            options[name] = (command["arguments"] as? [[String: Any]] ?? []).flatMap { argument in
                (argument["names"] as? [[String: Any]] ?? []).compactMap { n in n["kind"] as? String == "long" ? n["name"] as? String : nil }
            }.filter { $0 != "help" && $0 != "version" }
        }
        return options
    }

    func testEveryLongOptionMisspeltGetsDidYouMean() throws {
        let positional: [String: [String]] = [
            "convert": ["in.mov", "out.mp4"], "compose": ["in.mov", "-o", "out.mp4"], "hls": ["in.mov", "ladder"],
            "thumbnail": ["in.mov", "t.jpg"], "sheet": ["in.mov", "s.jpg"], "sprites": ["in.mov", "sprites"],
            "captions": ["in.srt", "out.vtt"], "tap": ["in.mov", "lyrics.txt"], "probe": ["in.mov"], "presets": []
        ]
        let options = try longOptions()
        XCTAssertEqual(Set(options.keys), Set(positional.keys), "a command without a line here")
        var cases: [(words: [String], name: String)] = []
        for (command, names) in options.sorted(by: { $0.key < $1.key }) {
            XCTAssertFalse(names.isEmpty, command)
            for name in names {
                // One edit: the first letter doubled ("--ppreset").
                let typo = "--" + String(name.prefix(1)) + name
                for value in [[], ["3"]] {
                    cases.append(((command == "convert" ? [] : [command]) + (positional[command] ?? []) + [typo] + value, name))
                }
            }
        }
        // Side by side: each run is a process of the debug build.
        let failures = Mutex<[String]>([])
        let all = cases
        DispatchQueue.concurrentPerform(iterations: all.count) { i in
            let (words, name) = all[i]
            guard let r = try? Support.sdrify(words) else { return failures.withLock { $0.append("\(words): did not run") } }
            if r.status != 64 || !r.stderr.contains("Did you mean '--\(name)'?") || r.stderr.split(separator: "\n").count != 1 {
                failures.withLock { $0.append("\(words): exit \(r.status), \(r.stderr)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let checked = cases.count
        XCTAssertGreaterThan(checked, 100)
    }

    /// A long option with one dash (`-preset`), and an option no command has, are named as they were typed.
    func testOneDashAndUnknownOptions() throws {
        let one = try Support.sdrify("in.mov", "out.mp4", "-preset", "960x540")
        XCTAssertEqual(one.status, 64)
        XCTAssertEqual(one.stderr, "sdrify: unknown option '-preset'. Did you mean '--preset'? (see sdrify convert --help)\n")
        let none = try Support.sdrify("in.mov", "out.mp4", "--colour", "red")
        XCTAssertEqual(none.status, 64)
        XCTAssertEqual(none.stderr, "sdrify: unknown option '--colour' (see sdrify convert --help)\n")
        // Values that start with a dash are values, not options.
        let negative = try Support.sdrify("in.mov", "out.mp4", "--captions-offset", "-2", "--presets", "960x540")
        XCTAssertTrue(negative.stderr.contains("unknown option '--presets'. Did you mean '--preset'?"), negative.stderr)
    }

    /// Each command's help lists what it takes: hls sizes by its ladder and takes no --preset (its help listed one that
    /// it then refused); the help texts say what the options do (both codecs checked, LRC among the caption formats).
    func testHelpListsWhatEachCommandTakes() throws {
        let hls = try Support.sdrify("hls", "--help")
        XCTAssertFalse(hls.stdout.contains("--preset <"), hls.stdout)
        XCTAssertTrue(hls.stdout.contains("--ladder"), hls.stdout)
        for command in ["convert", "compose"] { XCTAssertTrue(try Support.sdrify(command, "--help").stdout.contains("--preset <preset>"), command) }
        let r = try Support.sdrify("hls", Support.vector("sdr_h264_aac.mp4"), file("ladder"), "--preset", "960x540")
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("unknown option '--preset'"), r.stderr)
        // (The help wraps its lines: read as one.)
        func help(_ command: String) throws -> String {
            try Support.sdrify(command, "--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        XCTAssertTrue(try help("convert").contains("H.264 and HEVC slice data"))
        XCTAssertTrue(try help("captions").contains("SCC and LRC lyrics"))
    }
}
