import Foundation
import XCTest

@testable import sdrify

/// Every long option of every command, misspelt by one edit, with and without a value, gets "did you mean" naming
/// it (the value after a misspelt option was taken for one more file: "3 files given").
final class OptionSpellingTests: CLITestCase {
    /// Each command's long options, as the parser declares them (what `sdrify --experimental-dump-help` prints).
    private func longOptions() throws -> [String: [String]] {
        let root = try JSONSerialization.jsonObject(with: Data(SDRifyCommand._dumpHelp().utf8)) as? [String: Any]
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

    /// In-process: every case through `OptionWords` (which option a refused command line names, and the nearest one
    /// the command has), and the first of each command through the whole of `ParsedCommandLine`, as `main` reads a
    /// command line (a parse in a debug build costs a third of a second: ArgumentParser checks its declarations each
    /// time). That a refusal is one `sdrify:` line and exit 64 on a real process is testOneDashAndUnknownOptions'.
    func testEveryLongOptionMisspeltGetsDidYouMean() throws {
        let positional: [String: [String]] = [
            "convert": ["in.mov", "out.mp4"], "compose": ["in.mov", "-o", "out.mp4"], "hls": ["in.mov", "ladder"],
            "thumbnail": ["in.mov", "t.jpg"], "sheet": ["in.mov", "s.jpg"], "sprites": ["in.mov", "sprites"],
            "captions": ["in.srt", "out.vtt"], "tap": ["in.mov", "lyrics.txt"], "probe": ["in.mov"], "presets": []
        ]
        let options = try longOptions()
        XCTAssertEqual(Set(options.keys), Set(positional.keys), "a command without a line here")
        var cases: [(words: [String], name: String, whole: Bool)] = []
        for (command, names) in options.sorted(by: { $0.key < $1.key }) {
            XCTAssertFalse(names.isEmpty, command)
            for (i, name) in names.enumerated() {
                // One edit: the first letter doubled ("--ppreset").
                let typo = "--" + String(name.prefix(1)) + name
                for value in [[], ["3"]] {
                    let words = (command == "convert" ? [] : [command]) + (positional[command] ?? []) + [typo] + value
                    cases.append((words, name, i == 0))
                }
            }
        }
        var failures: [String] = []
        for (words, name, whole) in cases {
            let said: String
            if whole {
                guard case .refused(let message, let status) = ParsedCommandLine(words), status == 64 else {
                    failures.append("\(words): not refused with exit 64")
                    continue
                }
                said = message
            } else {
                guard let unknown = OptionWords.firstUnknown(in: words) else {
                    failures.append("\(words): no unknown option found")
                    continue
                }
                said = OptionWords.message(unknown, command: OptionWords.command(of: words))
            }
            if !said.contains("Did you mean '--\(name)'?") || said.contains("\n") { failures.append("\(words): \(said)") }
        }
        XCTAssertEqual(failures, [])
        XCTAssertGreaterThan(cases.count, 400)  // 450 when written: every command's every long option, twice
        XCTAssertEqual(cases.filter(\.whole).count, 2 * options.count)
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
