import Foundation
import XCTest

/// probe lists every track (subtitles, timed metadata, timecode), the chapters and the container's tags.
final class ProbeTracksTests: CLITestCase {
    func probe(_ path: String) throws -> [String: Any] {
        let r = try Support.sdrify("probe", path, "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
    }

    func testSubtitleTracksChaptersAndTags() throws {
        try Data("1\n00:00:00,000 --> 00:00:01,000\nbonjour\n".utf8).write(to: URL(fileURLWithPath: file("fr.srt")))
        try Data(
            ";FFMETADATA1\ntitle=Holiday\nartist=Someone\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Arrival\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Beach\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: file("meta.txt")))
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i", "sine=d=2",
            "-i", file("fr.srt"), "-i", file("meta.txt"), "-map", "0", "-map", "1", "-map", "2", "-map_metadata", "3", "-map_chapters", "3",
            "-c:v", "libx264", "-c:a", "aac", "-c:s", "mov_text", "-metadata:s:s:0", "language=fra", "-disposition:s:0", "+forced",
            "-timecode", "01:00:00:00", "-write_tmcd", "1", file("tracks.mp4")
        ])
        let j = try probe(file("tracks.mp4"))
        let streams = try XCTUnwrap(j["streams"] as? [[String: Any]])
        let types = streams.map { $0["codec_type"] as? String ?? "" }
        XCTAssertEqual(types.filter { $0 == "video" }.count, 1, "\(types)")
        XCTAssertEqual(types.filter { $0 == "audio" }.count, 1)
        let sub = try XCTUnwrap(streams.first { $0["codec_type"] as? String == "subtitle" })
        XCTAssertEqual(sub["codec_name"] as? String, "mov_text")
        XCTAssertEqual((sub["tags"] as? [String: Any])?["language"] as? String, "fra")
        XCTAssertEqual((sub["disposition"] as? [String: Any])?["forced"] as? Int, 1)
        let timecode = try XCTUnwrap(streams.first { $0["codec_tag_string"] as? String == "tmcd" }, "\(streams)")
        XCTAssertEqual(timecode["kind"] as? String, "timecode")
        XCTAssertEqual((timecode["tags"] as? [String: Any])?["timecode"] as? String, "01:00:00:00")
        XCTAssertEqual(streams.first { $0["codec_type"] as? String == "video" }?["main"] as? Bool, true)
        let chapters = try XCTUnwrap(j["chapters"] as? [[String: Any]])
        XCTAssertEqual(chapters.compactMap { $0["title"] as? String }, ["Arrival", "Beach"])
        XCTAssertEqual(chapters.last?["start_time"] as? Double ?? 0, 1, accuracy: 0.001)
        XCTAssertEqual(chapters.last?["end_time"] as? Double ?? 0, 2, accuracy: 0.001)
        let tags = try XCTUnwrap(j["tags"] as? [String: Any])
        XCTAssertEqual(tags["title"] as? String, "Holiday")
        XCTAssertEqual(tags["artist"] as? String, "Someone")
        let summary = try Support.sdrify("probe", file("tracks.mp4"))
        XCTAssertTrue(summary.stdout.contains("subtitle, mov_text, fra"), summary.stdout)
        XCTAssertTrue(summary.stdout.contains("chapter 2: 1.000–2.000 s Beach"), summary.stdout)
    }

    /// The iPhone clip's three QuickTime metadata tracks and its make, model and location.
    func testIPhoneTimedMetadataTracksAndTags() throws {
        let path = RealMediaTests.folder.appendingPathComponent("androidx_dolbyVision-hdr.MOV").path
        guard RealMediaTests.present() else { return }
        let j = try probe(path)
        let streams = try XCTUnwrap(j["streams"] as? [[String: Any]])
        let mebx = streams.filter { $0["codec_tag_string"] as? String == "mebx" }
        XCTAssertEqual(mebx.count, 3)
        XCTAssertTrue(mebx.allSatisfy { $0["kind"] as? String == "QuickTime timed metadata" && $0["codec_type"] as? String == "data" })
        let tags = try XCTUnwrap(j["tags"] as? [String: Any])
        XCTAssertEqual(tags["com.apple.quicktime.make"] as? String, "Apple")
        XCTAssertEqual(tags["com.apple.quicktime.model"] as? String, "iPhone 14 Pro")
        XCTAssertNotNil(tags["com.apple.quicktime.location.ISO6709"])
        // The keys from each mebx sample description.
        XCTAssertEqual(mebx.first?["metadata_keys"] as? [String], ["com.apple.quicktime.video-orientation"])
        XCTAssertTrue((mebx[1]["metadata_keys"] as? [String] ?? []).contains("com.apple.quicktime.detected-face.bounds"))

        // The samples as JSON Lines: the orientation track's value decoded as its declared 16-bit integer.
        let r = try Support.sdrify("probe", path, "--timed-metadata", "--track", "2")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.count, r.stdout.split(separator: "\n").count, "every line is JSON")
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { $0["track"] as? Int == 2 && $0["key"] as? String == "com.apple.quicktime.video-orientation" })
        XCTAssertEqual(lines.first?["value"] as? Int, 6, "EXIF 6, as the container's matrix says")
        XCTAssertEqual(lines.first?["t"] as? Double ?? -1, 0, accuracy: 0.001)
        XCTAssertNotNil(lines.first?["duration"] as? Double)
        let all = try Support.sdrify("probe", path, "--timed-metadata")
        XCTAssertEqual(
            Set(
                all.stdout.split(separator: "\n").compactMap { line -> Int? in
                    ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["track"] as? Int
                }), [2, 4], "every timed-metadata track that has samples")
        let video = try Support.sdrify("probe", path, "--timed-metadata", "--track", "0")
        XCTAssertEqual(video.status, 64, video.stderr)
    }

    /// convert keeps the chapters, moved and cut by --start/--duration; --no-chapters drops them.
    func testChaptersAreKeptAndRetimed() throws {
        try Data(
            ";FFMETADATA1\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Arrival\n\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=3000\ntitle=Beach\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: file("meta.txt")))
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3", "-i", file("meta.txt"), "-map", "0", "-map_chapters", "1",
            "-c:v", "libx264", file("ch.mp4")
        ])
        func chapters(_ args: [String]) throws -> [[String: Any]] {
            let r = try Support.sdrify([file("ch.mp4"), file("out.mp4"), "--overwrite"] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try probe(file("out.mp4"))["chapters"] as? [[String: Any]] ?? []
        }
        let all = try chapters([])
        XCTAssertEqual(all.compactMap { $0["title"] as? String }, ["Arrival", "Beach"])
        let cut = try chapters(["--start", "1.5", "--duration", "1"])
        XCTAssertEqual(cut.compactMap { $0["title"] as? String }, ["Beach"], "the one before the cut is dropped")
        XCTAssertEqual(cut.first?["start_time"] as? Double ?? -1, 0, accuracy: 0.001)
        XCTAssertEqual(cut.first?["end_time"] as? Double ?? -1, 1, accuracy: 0.001, "cut at the output's end")
        XCTAssertTrue(try chapters(["--no-chapters"]).isEmpty)
    }
}
