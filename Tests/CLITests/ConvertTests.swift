import Foundation
import XCTest

final class ConvertTests: CLITestCase {
    func out(_ name: String) -> String { file(name) }

    /// Converts and checks what every output must be: H.264 High 8-bit 4:2:0, BT.709 tags, the expected size,
    /// every source frame, no display matrix or HDR side data, moov before mdat, and a clean decode.
    @discardableResult
    func convertAndCheck(
        _ vector: String, preset: String, size: (Int, Int), frames: Int, audio: Bool,
        extra: [String] = []
    ) throws -> [String: Any] {
        let output = out("\(vector)-\(preset).mp4")
        let r = try Support.sdrify([Support.vector(vector), output, "--preset", preset, "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["width"] as? Int, size.0)
        XCTAssertEqual(report["height"] as? Int, size.1)
        XCTAssertEqual(report["frames"] as? Int, frames)

        let probe = try Support.ffprobe(output)
        let v = Support.streams(probe, "video")
        XCTAssertEqual(v.count, 1)
        let video = v.first ?? [:]
        XCTAssertEqual(video["codec_name"] as? String, "h264")
        XCTAssertEqual(video["profile"] as? String, "High")
        XCTAssertEqual(video["pix_fmt"] as? String, "yuv420p")
        XCTAssertEqual(video["width"] as? Int, size.0)
        XCTAssertEqual(video["height"] as? Int, size.1)
        for key in ["color_primaries", "color_transfer", "color_space"] { XCTAssertEqual(video[key] as? String, "bt709", key) }
        XCTAssertEqual(video["color_range"] as? String, "tv")
        XCTAssertEqual(Int(video["nb_frames"] as? String ?? ""), frames)
        XCTAssertNil(video["side_data_list"], "no display matrix or HDR side data: \(String(describing: video["side_data_list"]))")
        let a = Support.streams(probe, "audio")
        XCTAssertEqual(a.count, audio ? 1 : 0)
        if audio { XCTAssertEqual(a.first?["codec_name"] as? String, "aac") }

        let sourceDuration = Double((try Support.ffprobe(Support.vector(vector))["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        let outDuration = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? -1
        XCTAssertEqual(outDuration, sourceDuration, accuracy: 1.0 / 24, "duration within a frame")

        XCTAssertTrue(try moovBeforeMdat(output), "fast start")
        let decode = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-i", output, "-f", "null", "-"])
        XCTAssertEqual(decode.status, 0)
        XCTAssertEqual(decode.stderr, "", "ffmpeg decodes the output without a single error")
        return report
    }

    func moovBeforeMdat(_ path: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var pos = 0
        var order: [String] = []
        while pos + 8 <= data.count {
            let size = data[pos..<pos + 4].reduce(0) { $0 << 8 | Int($1) }
            order.append(String(decoding: data[pos + 4..<pos + 8], as: UTF8.self))
            guard size >= 8 else { break }
            pos += size
        }
        guard let moov = order.firstIndex(of: "moov"), let mdat = order.firstIndex(of: "mdat") else { return false }
        return moov < mdat
    }

    func testSDRWithAudioIsNeverUpscaled() throws {
        try convertAndCheck("sdr_h264_aac.mp4", preset: "1920x1080", size: (640, 360), frames: 30, audio: true)
    }

    func testHLGLandscapeWithAudio() throws {
        let report = try convertAndCheck("hlg_hevc_aac.mov", preset: "960x540", size: (640, 360), frames: 30, audio: true)
        XCTAssertEqual(report["hdr"] as? String, "hlg")
    }

    func testPQWithHDR10MetadataDownscaled() throws {
        let report = try convertAndCheck("pq_hevc_hdr10.mp4", preset: "LowQuality", size: (640, 360), frames: 30, audio: false)
        XCTAssertEqual(report["hdr"] as? String, "pq")
        let output = out("pq_hevc_hdr10.mp4-LowQuality.mp4")
        let frames = try Support.run(
            Support.tool("ffprobe"),
            [
                "-v", "error", "-show_frames", "-read_intervals", "%+#2",
                "-of", "json", output
            ])
        XCTAssertFalse(frames.stdout.contains("Mastering display"), "no mastering metadata survives")
        XCTAssertFalse(frames.stdout.contains("Content light level"), "no light level metadata survives")
    }

    func testIPhonePortraitHLGFitsThePresetUpright() throws {
        let report = try convertAndCheck("sample_hlg_portrait.mov", preset: "960x540", size: (540, 960), frames: 60, audio: true)
        XCTAssertEqual((report["orientation"] as? [String: Any])?["exif"] as? Int, 6)
    }

    func testGreySourceGetsNeutralChroma() throws {
        let grey = out("grey.mp4")
        let make = try Support.run(
            Support.tool("ffmpeg"),
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24",
                "-frames:v", "6", "-vf", "format=gray", "-c:v", "libx264", grey
            ])
        XCTAssertEqual(make.status, 0, make.stderr)
        let output = out("grey-out.mp4")
        let r = try Support.sdrify(grey, output, "--preset", "640x480")
        XCTAssertEqual(r.status, 0, r.stderr)
        let yuv = try Support.rawFrame(output, index: 2, pixelFormat: "yuv420p")
        let luma = 320 * 240
        XCTAssertEqual(yuv.count, luma * 3 / 2)
        let chroma = yuv[luma...]
        XCTAssertLessThanOrEqual(chroma.map { abs(Int($0) - 128) }.max() ?? 99, 1, "grey stays grey")
        XCTAssertGreaterThan(Set(yuv[0..<luma]).count, 50, "the picture survives")
    }

    func testHLGSignalledOnlyBySEIIsToneMapped() throws {
        let report = try convertAndCheck("hlg_by_sei.mp4", preset: "960x540", size: (640, 360), frames: 15, audio: false)
        XCTAssertEqual(report["hdr"] as? String, "hlg")
        XCTAssertEqual(report["tonemap"] as? String, "auto")
        let detail = report["tone_mapping"] as? [String: Any]
        XCTAssertEqual(detail?["statistics"] as? String, "measured")
        XCTAssertEqual(detail?["scenes"] as? Int, 1)
        XCTAssertEqual((detail?["peak_cd_m2"] as? [Double])?.count, 2)
    }

    func testSDRPortraitWithoutAudio() throws {
        try convertAndCheck("orient_6.mp4", preset: "640x480", size: (240, 320), frames: 12, audio: false)
    }

    func testInvalidAndUnsupportedInputsLeaveNothingBehind() throws {
        let codes = try Support.expected()["convert_exit_codes"] as! [String: Int]
        for (name, code) in codes {
            let output = out("\(name).out.mp4")
            let r = try Support.sdrify(Support.vector(name), output)
            XCTAssertEqual(r.status, Int32(code), "\(name): \(r.stderr)")
            XCTAssertFalse(r.signalled)
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: "), r.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "\(name): no output, no temporary")
        }
    }

    func testExistingOutputIsRefusedUnlessOverwrite() throws {
        // A file sdrify did not make: kept without -y and with it; only --overwrite-original replaces it.
        let output = out("exists.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        for flags in [[], ["--overwrite"], ["-y"]] {
            let r = try Support.sdrify([Support.vector("orient_1.mp4"), "-o", output] + flags)
            XCTAssertEqual(r.status, 4, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: \(output): already exists"), r.stderr)
            XCTAssertTrue(r.stderr.contains("--overwrite-original"), "the message names the way that does replace it: \(r.stderr)")
            XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "keep me")
        }
        let o = try Support.sdrify(Support.vector("orient_1.mp4"), "-o", output, "--overwrite-original")
        XCTAssertEqual(o.status, 0, o.stderr)
        XCTAssertEqual(Support.streams(try Support.ffprobe(output), "video").count, 1)
        // Now it is sdrify's: kept without -y (the message says -y), replaced with it.
        let again = try Support.sdrify(Support.vector("orient_2.mp4"), output)
        XCTAssertEqual(again.status, 4, again.stderr)
        XCTAssertTrue(again.stderr.contains("sdrify made it: -y replaces it"), again.stderr)
        XCTAssertEqual(try Support.sdrify(Support.vector("orient_2.mp4"), output, "-y").status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["exists.mp4"])
    }

    func testSameFileAsInputIsRefused() throws {
        let input = out("in.mp4")
        try FileManager.default.copyItem(atPath: Support.vector("orient_1.mp4"), toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let link = out("link.mp4")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        for target in [input, link] {
            let r = try Support.sdrify(input, target, "--overwrite-original")
            XCTAssertEqual(r.status, 4, r.stderr)
            XCTAssertTrue(r.stderr.contains("is the input file"), r.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: input)), before)
        }
    }

    func testUsageErrorsExit64WithOneLine() throws {
        let cases: [[String]] = [
            [Support.vector("orient_1.mp4"), out("x.avi")],
            [Support.vector("orient_1.mp4"), out("x.mp4"), "--preset", "999x999"],
            [Support.vector("orient_1.mp4"), out("x.mp4"), "--crf", "80"],
            [Support.vector("orient_1.mp4")],
            [Support.vector("orient_1.mp4"), out("x.mp4"), "--no-such-flag"]
        ]
        for args in cases {
            let r = try Support.sdrify(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("sdrify: "), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testJSONReportOnFailure() throws {
        let r = try Support.sdrify(Support.vector("text.mp4"), out("y.mp4"), "--json")
        XCTAssertEqual(r.status, 2)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["exit_code"] as? Int, 2)
        XCTAssertNotNil(report["error"] as? String)
    }
}
