import Foundation
@testable import SDRifyLayers
@testable import SDRifyProbe
import SDRifyPresets
@testable import SDRifyTimeline
import SDRifyValues
import XCTest

/// What sdrify says when a value or a file is wrong (issue 54), called in-process: the nearest spelling, a list cut
/// to its first item, where malformed JSON goes wrong, a timeline and an overlay description told apart; and sdrify's
/// own mark on what it writes, found again.
final class MessageTests: FolderTestCase {
    func testDidYouMeanForChoicesAndKeys() {
        XCTAssertEqual(Spelling.nearest(to: "form", among: ["from", "to", "duration"]), "from")
        XCTAssertEqual(Spelling.nearest(to: "fdae", among: ["fade", "wipeleft"]), "fade")
        XCTAssertNil(Spelling.nearest(to: "zzzzzz", among: ["fade", "wipeleft"]), "nothing close: no guess")
        XCTAssertNil(Spelling.nearest(to: "fade", among: ["fade"]), "a known word is not misspelt")
        XCTAssertEqual(
            unknownChoice("fit", "cvoer", ["contain", "cover", "stretch"]),
            "unknown fit 'cvoer'; did you mean 'cover'? (one of: contain, cover, stretch)")
        XCTAssertEqual(unknownChoice("fit", "bogus", ["contain", "cover"]), "unknown fit 'bogus' (one of: contain, cover)")
    }

    func testAListInAMessageIsItsFirstItemAndHowManyMore() {
        XCTAssertEqual(firstAndMore([]), "")
        XCTAssertEqual(firstAndMore(["a.jpg"]), "a.jpg")
        XCTAssertEqual(firstAndMore((1...500).map { "IMG_\($0).jpg" }), "IMG_1.jpg and 499 more")
    }

    func testMalformedJSONSaysWhereItGoesWrong() {
        func at(_ text: String) -> String? { JSONPosition.ofFirstError(in: Array(text.utf8)) }
        XCTAssertNil(at(#"{"clips": [{"from": 1.5}], "music": null}"#), "valid JSON has no error")
        XCTAssertEqual(at("{\"clips\": [\n  {\"from\": 1.5,}\n]}"), "line 2, column 16")
        XCTAssertEqual(at("{\"clips\": [\n  {\"from\": 1.5}"), "line 2, column 16 (the file ends early)")
        XCTAssertEqual(at(#"{"a": tru}"#), "line 1, column 10", "where it can no longer go on: after tru")
        XCTAssertEqual(at("{\"a\": 1} x"), "line 1, column 10")
    }

    func testATimelineAndOverlaysAreToldApart() throws {
        let dir: URL = work
        func message(_ text: String, _ load: (String) throws -> Void) throws -> String {
            let path = dir.appendingPathComponent("f.json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            do { try load(path) } catch let e as SDRifyError { return e.message }
            return ""
        }
        let asOverlays = try message(#"{"clips": [{"file": "a.mp4"}]}"#) { _ = try OverlaySpec.load(jsonFile: $0) }
        XCTAssertTrue(asOverlays.hasSuffix("this is a timeline (it has clips), not overlays: give it to compose --timeline"), asOverlays)
        let base = OutputSpec(path: "o.mp4", preset: ExportPreset.named(ExportPreset.defaultName)!)
        let asTimeline = try message(#"{"titles": [{"text": "hi"}]}"#) { _ = try Timeline.load(jsonFile: $0, base: base) }
        XCTAssertTrue(asTimeline.hasSuffix("these are overlays (no clips), not a timeline: give them with --overlays"), asTimeline)
        let typo = try message(#"{"clips": [{"file": "a.mp4", "form": 1}]}"#) { _ = try Timeline.load(jsonFile: $0, base: base) }
        XCTAssertTrue(typo.hasSuffix("$.clips[0].form: unknown key; did you mean 'from'?"), typo)
        let cut = try message("{\"clips\": [\n") { _ = try Timeline.load(jsonFile: $0, base: base) }
        XCTAssertTrue(cut.hasSuffix("malformed JSON at line 2, column 1 (the file ends early)"), cut)
    }

    /// The mark sdrify puts on stills (what -y may replace) is found again, and only on what carries it.
    func testTheMarkOnStillsIsFoundAgain() throws {
        let dir: URL = work
        // The smallest files of each kind: a baseline JPEG's head, a PNG's signature and header, a lossless WebP.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0] + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
        let ihdr: [UInt8] = Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]
        let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + ihdr + [0x90, 0x77, 0x53, 0xDE] + [0, 0, 0, 0] + Array("IEND".utf8)
            + [0xAE, 0x42, 0x60, 0x82]
        let vp8l: [UInt8] = [0x2F, 0, 0, 0, 0, 0, 0, 0]  // a 1x1 lossless header (the rest is not read)
        var webp: [UInt8] =
            Array("RIFF".utf8) + [UInt8(4 + 8 + vp8l.count), 0, 0, 0] + Array("WEBP".utf8) + Array("VP8L".utf8) + [UInt8(vp8l.count), 0, 0, 0]
        webp += vp8l
        for (name, bytes) in [("a.jpg", jpeg), ("a.png", png), ("a.webp", webp)] {
            let plain = dir.appendingPathComponent("plain-" + name).path, marked = dir.appendingPathComponent("marked-" + name).path
            XCTAssertTrue(FileManager.default.createFile(atPath: plain, contents: Data(bytes)))
            XCTAssertTrue(FileManager.default.createFile(atPath: marked, contents: Data(OutputMark.stamped(bytes))))
            XCTAssertFalse(OutputMark.isMarked(path: plain), name)
            XCTAssertTrue(OutputMark.isMarked(path: marked), name)
            XCTAssertEqual(OutputMark.kind(head: OutputMark.stamped(bytes)), OutputMark.kind(head: bytes), "\(name) stays what it was")
        }
        // PNG's chunk CRC is the standard one (IEND's is AE 42 60 82).
        XCTAssertEqual(CRC32.of(Array("IEND".utf8)), 0xAE42_6082)
    }
}
