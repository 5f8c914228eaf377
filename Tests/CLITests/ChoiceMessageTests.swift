import Foundation
import XCTest

/// A value that is not among the choices is named in the error before the choices are listed, for every kind of
/// choice (exit 64, one line, nothing written).
final class ChoiceMessageTests: CLITestCase {
    func testTheBadValueIsNamed() throws {
        let input = Support.vector("orient_1.mp4")
        try #"{"effects": [{"type": "sparkle"}]}"#.write(toFile: file("effect.json"), atomically: true, encoding: .utf8)
        try #"{"effects": [{"type": "adjust", "keyframes": [{"t": 0, "easing": "bounce"}]}]}"#
            .write(toFile: file("easing.json"), atomically: true, encoding: .utf8)
        try #"{"clips": [{"file": "INPUT", "transition": "swirl:1"}, {"file": "INPUT"}]}"#.replacingOccurrences(of: "INPUT", with: input)
            .write(toFile: file("edit.json"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["compose", input, input, "-o", file("o.mp4"), "--transition", "bogus"], "unknown transition 'bogus' (one of: none, fade"),
            (["compose", input, input, "-o", file("o.mp4"), "--transition", "fade:-1"], "'fade:-1'"),
            (["compose", input, "-o", file("o.mp4"), "--fit", "squash"], "unknown fit 'squash' (one of: contain, cover, stretch)"),
            ([input, file("o.mp4"), "--tonemap", "magic"], "unknown tone-map operator 'magic' (one of: auto"),
            ([input, file("o.mp4"), "--preset", "999x999"], "unknown preset '999x999' (one of: 640x480"),
            ([input, file("o.mp4"), "--caption-position", "left"], "unknown caption position 'left' (one of: bottom, top, center)"),
            ([input, file("o.mp4"), "--overlays", file("effect.json")], "unknown effect 'sparkle' (one of:"),
            ([input, file("o.mp4"), "--overlays", file("easing.json")], "unknown easing 'bounce' (one of: linear"),
            (["compose", "--timeline", file("edit.json"), "-o", file("o.mp4")], "unknown transition 'swirl' (one of:")
        ]
        for (args, message) in cases {
            let r = try Support.sdrify(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.mp4")))
        }
    }
}
