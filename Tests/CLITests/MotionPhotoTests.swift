import Foundation
import XCTest

/// Motion photos, the three layouts phones write (scripts/make-motion-photos.py: Google XMP and MicroVideo, Samsung's
/// SEF trailer, HEIC with 'mpvd'): probe says which it is; compose shows the still, or the movie with
/// `"motion": true`; convert converts the movie; damage is exit 2.
final class MotionPhotoTests: CLITestCase {
    func vectors() throws -> String {
        try shared("motion-photos") { made in
            func path(_ name: String) -> String { made.appendingPathComponent(name).path }
            // The still and the movie the size of the HEIC the script makes (480x400), the movie tagged BT.709 so its
            // Y' is what sdrify shows.
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=480x400", "-frames:v", "1", path("still.jpg")])
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc=s=480x400:r=25:d=2", "-f", "lavfi", "-i", "sine=f=500:d=2", "-vf", "scale=out_color_matrix=bt709",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                "-c:a", "aac", "-shortest", path("movie.mp4")
            ])
            let heif = try Support.run(
                "/usr/bin/python3", [Support.packageRoot.appendingPathComponent("scripts/make-heif-vectors.py").path, path("still.jpg"), path("heif")]
            )
            XCTAssertEqual(heif.status, 0, heif.stderr)
            let r = try Support.run(
                "/usr/bin/python3",
                [
                    Support.packageRoot.appendingPathComponent("scripts/make-motion-photos.py").path, path("still.jpg"), path("movie.mp4"),
                    path("heif/single.heic"), path("mp")
                ])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        return file("mp")
    }

    static let layouts = [
        ("google.jpg", "Google XMP"), ("microvideo.jpg", "Google MicroVideo"), ("samsung.jpg", "Samsung SEF"), ("samsung.heic", "HEIF mpvd")
    ]

    func testProbeSaysWhichItIs() throws {
        let dir = try vectors()
        for (name, format) in MotionPhotoTests.layouts {
            let r = try Support.sdrify("probe", "\(dir)/\(name)", "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let photo = (try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])?["photo"] as? [String: Any] ?? [:]
            let motion = photo["motion_photo"] as? [String: Any] ?? [:]
            XCTAssertEqual(motion["format"] as? String, format, name)
            XCTAssertEqual(motion["duration"] as? Double ?? 0, 2, accuracy: 0.05, name)
            XCTAssertEqual(motion["length"] as? Int, try Data(contentsOf: URL(fileURLWithPath: file("movie.mp4"))).count, name)
        }
        let plain = try Support.sdrify("probe", "\(dir)/plain.jpg", "--json")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.contains("\"motion_photo\" : null") || plain.stdout.contains("\"motion_photo\": null"), plain.stdout)
    }

    /// Without "motion" the clip is the still; with it, the movie: its pictures and its sound.
    func testComposeShowsTheStillOrTheMovie() throws {
        let dir = try vectors()
        let still = try Support.lumaFrame(file("still.jpg"), index: 0, filter: "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p")
        let movieFrame = try Support.lumaFrame(file("movie.mp4"), index: 10)
        for (name, _) in MotionPhotoTests.layouts {
            let edit = """
                {"output": {"fps": 25}, "clips": [{"image": "\(dir)/\(name)", "duration": 0.4}, {"image": "\(dir)/\(name)", "motion": true}]}
                """
            try edit.write(toFile: file("e.json"), atomically: true, encoding: .utf8)
            let out = file("\(name).mp4")
            let r = try Support.sdrify("compose", "--timeline", file("e.json"), "-o", out, "--crf", "10", "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            XCTAssertEqual(report["duration"] as? Double ?? 0, 2.4, accuracy: 0.05, name)
            if name.hasSuffix(".jpg") { XCTAssertGreaterThan(Support.psnr(try Support.lumaFrame(out, index: 2), still), 30, "\(name): the still") }
            XCTAssertGreaterThan(Support.psnr(try Support.lumaFrame(out, index: 20), movieFrame), 30, "\(name): the movie's picture")
            XCTAssertEqual(Support.streams(try Support.ffprobe(out), "audio").count, 1, "\(name): its sound")
        }
    }

    func testConvertConvertsTheMovie() throws {
        let dir = try vectors()
        for (name, _) in MotionPhotoTests.layouts {
            let r = try Support.sdrify("\(dir)/\(name)", file("\(name).mp4"), "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("a motion photo"), r.stderr)
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            XCTAssertEqual(report["input"] as? String, "\(dir)/\(name)", "the photo is named, not the movie's place in it")
            XCTAssertEqual(report["frames"] as? Int, 50, name)
        }
        let plain = try Support.sdrify("\(dir)/plain.jpg", file("plain.mp4"))
        XCTAssertEqual(plain.status, 3, "a still without a movie is still not a video")
        XCTAssertTrue(plain.stderr.contains("a photo (jpeg), not a video: to make a video of it, sdrify compose"), plain.stderr)
    }

    func testMotionWithoutAMovieAndDamage() throws {
        let dir = try vectors()
        let edit = #"{"clips": [{"image": "\#(dir)/plain.jpg", "motion": true}]}"#
        try edit.write(toFile: file("p.json"), atomically: true, encoding: .utf8)
        let r = try Support.sdrify("compose", "--timeline", file("p.json"), "-o", file("p.mp4"))
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("motion"), r.stderr)
        // The XMP gives the movie a length the file does not have, or the movie's start is overwritten: exit 2.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/google.jpg")))
        let movieLength = try Data(contentsOf: URL(fileURLWithPath: file("movie.mp4"))).count
        var overwritten = bytes
        overwritten[bytes.count - movieLength + 4] = 0x58  // 'ftyp' → 'Xtyp'
        FileManager.default.createFile(atPath: file("broken.jpg"), contents: Data(overwritten))
        bytes = Array(bytes.prefix(bytes.count - 1000))
        FileManager.default.createFile(atPath: file("short.jpg"), contents: Data(bytes))
        for name in ["broken.jpg", "short.jpg"] {
            let e = #"{"clips": [{"image": "\#(file(name))", "motion": true}]}"#
            try e.write(toFile: file("d.json"), atomically: true, encoding: .utf8)
            let d = try Support.sdrify("compose", "--timeline", file("d.json"), "-o", file("d.mp4"))
            XCTAssertEqual(d.status, 2, "\(name): \(d.stderr)")
            XCTAssertTrue(d.stderr.contains("damaged motion photo"), d.stderr)
            XCTAssertEqual(try Support.sdrify("probe", file(name)).status, 2, name)
        }
    }

    /// Damage in a motion photo's movie is told of the photo and where its movie lies, never through the internal URL
    /// the movie is read by ("subfile,,start,…,:file:…").
    func testDamageInTheMovieNamesThePhoto() throws {
        let dir = try vectors()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/google.jpg"))
        let movieSize = try Data(contentsOf: URL(fileURLWithPath: file("movie.mp4"))).count
        // Overwrite a run in the middle of the movie's media data.
        let at = bytes.count - movieSize / 2
        bytes.replaceSubrange(at..<(at + 2000), with: Data(repeating: 0x55, count: 2000))
        let photo = file("damaged.jpg")
        try bytes.write(to: URL(fileURLWithPath: photo))
        for json in [false, true] {
            let r = try Support.sdrify([photo, file("out.mp4")] + (json ? ["--json"] : []))
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertFalse(r.stderr.contains("subfile") || r.stdout.contains("subfile"), r.stderr + r.stdout)
            XCTAssertTrue(r.stderr.contains("\(photo) (its movie, bytes "), r.stderr)
        }
    }
}
