import Foundation
import XCTest

/// Pictures in pictures (issue 45): videos shown over a clip (`"pip"`), placed and moved as stickers are, from their
/// own `from`, with rounded corners and a border, their sound mixed; opened only while they show.
final class PictureInPictureTests: CLITestCase {
    func clip(_ name: String, grey: Int, seconds: Double, tone: Int? = nil) throws -> String {
        try greyClip(name, grey: grey, size: "640x360", seconds: seconds, tone: tone)
    }

    func compose(_ clips: String, _ name: String = "pip.mp4") throws -> (report: [String: Any], out: String) {
        let timeline = file("pip.json"), out = file(name)
        try #"{"clips": [\#(clips)]}"#.write(toFile: timeline, atomically: true, encoding: .utf8)
        let r = try Support.sdrify(["compose", "--timeline", timeline, "--output", out, "--crf", "8", "-y", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return ((try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]) ?? [:], out)
    }

    /// Luma of picture `n` (640×360).
    func luma(_ path: String, _ n: Int) throws -> [UInt8] {
        let l = try Support.lumaFrame(path, index: n)
        XCTAssertEqual(l.count, 640 * 360)
        return l.count == 640 * 360 ? l : [UInt8](repeating: 0, count: 640 * 360)
    }

    func testPlacedShownAndGoneOnTime() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 3), pip = try clip("over.mp4", grey: 235, seconds: 3)
        let (report, out) = try compose(
            #"{"file": "\#(main)", "pip": [{"file": "\#(pip)", "x": 100, "y": 50, "width": 160, "start": 0.5, "end": 2}]}"#)
        XCTAssertEqual(report["frames"] as? Int, 90)
        let reported = ((report["clips"] as? [[String: Any]])?.first?["pip"] as? [[String: Any]])?.first
        XCTAssertEqual(reported?["start"] as? Double ?? -1, 0.5, accuracy: 0.001, "the report: where it starts on the output")
        XCTAssertEqual(reported?["duration"] as? Double ?? -1, 1.5, accuracy: 0.001, "and how long it shows")
        let before = try luma(out, 10), during = try luma(out, 30), after = try luma(out, 65)
        func at(_ l: [UInt8], _ x: Int, _ y: Int) -> Double { Double(l[y * 640 + x]) }
        XCTAssertEqual(at(before, 180, 95), 64, accuracy: 4, "not yet")
        XCTAssertEqual(at(during, 180, 95), 235, accuracy: 4, "the pip in its place")
        // 160 wide in its own 16:9 shape: 90 high, from (100, 50).
        for (x, y) in [(102, 52), (257, 52), (102, 137), (257, 137)] { XCTAssertEqual(at(during, x, y), 235, accuracy: 6, "inside at \(x),\(y)") }
        for (x, y) in [(96, 95), (263, 95), (180, 46), (180, 143)] { XCTAssertEqual(at(during, x, y), 64, accuracy: 6, "outside at \(x),\(y)") }
        XCTAssertEqual(at(after, 180, 95), 64, accuracy: 4, "gone after its end")
    }

    func testRoundedCornersBorderAndOpacity() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 2), pip = try clip("over.mp4", grey: 235, seconds: 2)
        let (_, out) = try compose(
            ##"{"file": "\##(main)", "pip": [{"file": "\##(pip)", "x": 100, "y": 50, "width": 320, "radius": 40, "border": 6, "border_color": "#ff0000"}, {"file": "\##(pip)", "x": 460, "y": 200, "width": 160, "opacity": 0.5}]}"##
        )
        let rgb = try Support.rawFrame(out, index: 15, pixelFormat: "rgb24")
        XCTAssertEqual(rgb.count, 640 * 360 * 3)
        guard rgb.count == 640 * 360 * 3 else { return }
        func px(_ x: Int, _ y: Int) -> [Int] { let i = (y * 640 + x) * 3; return [Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2])] }
        XCTAssertEqual(px(102, 52)[0], 64, accuracy: 8, "the corner is cut: the main picture shows")
        let band = px(260, 53)
        XCTAssertGreaterThan(band[0], 200, "the border is red: \(band)"); XCTAssertLessThan(band[1], 60, "the border is red: \(band)")
        XCTAssertEqual(px(260, 140)[1], 235, accuracy: 6, "the pip inside its border")
        // Half opaque: half way between the main picture and the pip.
        XCTAssertEqual(Double(px(540, 245)[1]), (64.0 + 235) / 2, accuracy: 8, "half opacity")
    }

    /// `from` is the pip's own time: its first picture shown is its picture at `from`.
    func testFromIsThePipsOwnClock() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 2)
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=640x360:r=30:d=3,format=yuv420p,geq=lum='16+3*N':cb=128:cr=128", "-c:v", "libx264",
            "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", file("counter.mp4")
        ])
        let (_, out) = try compose(
            #"{"file": "\#(main)", "pip": [{"file": "\#(file("counter.mp4"))", "x": 0, "y": 0, "width": 640, "start": 0.5, "from": 1}]}"#)
        // Output picture 15 is the pip's first: its picture 30 (Y' 16 + 90, read back in full range).
        let first = Double(try luma(out, 15)[180 * 640 + 320]), later = Double(try luma(out, 25)[180 * 640 + 320])
        XCTAssertEqual(first, (106 - 16) * 255 / 219.0, accuracy: 4, "its picture at 1 s")
        XCTAssertEqual(later, (136 - 16) * 255 / 219.0, accuracy: 4, "ten pictures on")
    }

    /// The pip's sound plays while it shows, at its volume.
    func testSoundWhileItShows() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 3), pip = try clip("over.mp4", grey: 235, seconds: 3, tone: 440)
        let alone = file("alone.mp4")
        XCTAssertEqual(try Support.sdrify(["compose", pip, "--output", alone, "-y", "-q"]).status, 0)
        let (_, out) = try compose(
            #"{"file": "\#(main)", "pip": [{"file": "\#(pip)", "x": 0, "y": 0, "width": 100, "start": 1, "end": 2, "volume": 0.5}]}"#)
        func samples(_ path: String) throws -> [Float] {
            let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
            return r.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        func rms(_ s: ArraySlice<Float>) -> Double { (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(s.count, 1))).squareRoot() }
        let mixed = try samples(out), reference = try samples(alone)
        XCTAssertGreaterThan(mixed.count, 48000 * 2)
        guard mixed.count > 48000 * 2, reference.count > 48000 * 2 else { return }
        XCTAssertLessThan(rms(mixed[4800..<43200]), 0.001, "silence before it shows")
        XCTAssertEqual(rms(mixed[52800..<91200]) / rms(reference[52800..<91200]), 0.5, accuracy: 0.05, "its sound at 0.5 while it shows")
        XCTAssertLessThan(rms(mixed[100800..<139200]), 0.001, "silence after")
    }

    /// Memory does not grow with the number of pips shown one after another (each is closed when it ends).
    func testMemoryStaysFlatInTheNumberOfPips() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 5), pip = try clip("over.mp4", grey: 235, seconds: 1)
        func peak(_ count: Int) throws -> Int {
            let step = 5.0 / Double(count)
            let list = (0..<count).map { k in
                #"{"file": "\#(pip)", "x": \#(k * 7 % 400), "y": 20, "width": 200, "start": \#(Double(k) * step), "end": \#(Double(k + 1) * step)}"#
            }
            let timeline = file("many\(count).json")
            try #"{"clips": [{"file": "\#(main)", "pip": [\#(list.joined(separator: ","))]}]}"#.write(
                toFile: timeline, atomically: true, encoding: .utf8)
            let r = try Support.run(
                "/usr/bin/time",
                ["-f", "%M", Support.binary.path, "compose", "--timeline", timeline, "--output", file("many\(count).mp4"), "-y", "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return Int(r.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? 0
        }
        let two = try peak(2), fifty = try peak(50)
        print("peak RSS: 2 pips \(two) KiB, 50 pips \(fifty) KiB")
        XCTAssertGreaterThan(two, 0)
        XCTAssertLessThan(Double(fifty), Double(two) * 1.25, "50 pips in turn take about what 2 take (\(two) → \(fifty) KiB)")
    }

    func testBadPipsAreRefusedWithTheirPath() throws {
        let main = try clip("main.mp4", grey: 64, seconds: 1)
        try ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=64x64", "-frames:v", "1", file("still.png")])
        let cases: [(clip: String, named: String)] = [
            (#"{"file": "\#(main)", "pip": [{"file": "\#(main)", "x": 0, "y": 0, "keyframes": [{"t": 0, "rotation": 30}]}]}"#, "rotation"),
            (#"{"file": "\#(main)", "pip": [{"file": "\#(file("still.png"))", "x": 0, "y": 0}]}"#, "a picture in a picture is a video"),
            (#"{"file": "\#(main)", "pip": [{"x": 0, "y": 0}]}"#, "clips[0].pip[0].file"),
            (#"{"file": "\#(main)", "pip": [{"file": "\#(main)", "x": 0, "y": 0, "from": 2, "to": 1}]}"#, "clips[0].pip[0].to"),
            (#"{"split": [{"file": "\#(main)", "pip": []}, {"file": "\#(main)"}]}"#, "split[0].pip")
        ]
        try assertComposeRefuses(cases)
    }
}
