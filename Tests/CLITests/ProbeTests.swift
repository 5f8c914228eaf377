import Foundation
import XCTest

final class ProbeTests: XCTestCase {
    func probeJSON(_ name: String) throws -> [String: Any] {
        let r = try Support.sdrify("probe", Support.vector(name), "--json")
        XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
        XCTAssertTrue(r.stderr.isEmpty, "probe writes nothing to stderr on success: \(r.stderr)")
        return try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    func testEveryVectorMatchesItsExpectedValues() throws {
        let vectors = try Support.expected()["vectors"] as! [String: [String: Any]]
        XCTAssertGreaterThanOrEqual(vectors.count, 12)
        for (name, want) in vectors.sorted(by: { $0.key < $1.key }) {
            let got = try probeJSON(name)
            let video = got["video"] as! [String: Any]
            for key in ["codec", "pix_fmt", "color_primaries", "color_transfer", "color_space", "color_range", "hdr"] {
                XCTAssertEqual(video[key] as? String, want[key] as? String, "\(name): \(key)")
            }
            for key in ["width", "height", "display_width", "display_height", "bit_depth", "frame_count", "frame_rate"] {
                XCTAssertEqual(video[key] as? Int, want[key] as? Int, "\(name): \(key)")
            }
            compareNumbers(video["mastering_display"], want["mastering_display"], "\(name): mastering_display")
            compareNumbers(video["content_light_level"], want["content_light_level"], "\(name): content_light_level")
            XCTAssertTrue(video["dolby_vision"] is NSNull, "\(name): dolby_vision")

            let o = video["orientation"] as! [String: Any]
            let wo = want["orientation"] as! [String: Any]
            XCTAssertEqual(o["exif"] as? Int, wo["exif"] as? Int, "\(name): exif")
            XCTAssertEqual(o["name"] as? String, wo["name"] as? String, "\(name): orientation name")
            XCTAssertEqual(o["mirrored"] as? Bool, wo["mirrored"] as? Bool, "\(name): mirrored")
            XCTAssertEqual(o["rotation_cw"] as? Int, wo["rotation_cw"] as? Int, "\(name): rotation")
            XCTAssertEqual(o["frame_exif"] as? Int, wo["frame_exif"] as? Int, "\(name): frame_exif")
            XCTAssertEqual(o["fixed_transform"] as? [Double], (wo["fixed_transform"] as? [Int])?.map(Double.init), "\(name): fixed transform")
            XCTAssertEqual((o["matrix"] as? [Double]).map { Array($0.prefix(4)) }, (wo["abcd"] as? [Int])?.map(Double.init), "\(name): matrix")

            let audio = got["audio"] as! [[String: Any]]
            let wantAudio = want["audio"] as! [[String: Any]]
            XCTAssertEqual(audio.count, wantAudio.count, "\(name): audio streams")
            for (a, w) in zip(audio, wantAudio) {
                XCTAssertEqual(a["codec"] as? String, w["codec"] as? String)
                XCTAssertEqual(a["sample_rate"] as? Int, w["sample_rate"] as? Int)
                XCTAssertEqual(a["channels"] as? Int, w["channels"] as? Int)
            }
            let format = got["format"] as! [String: Any]
            XCTAssertEqual(format["size"] as? Int, (try? FileManager.default.attributesOfItem(atPath: Support.vector(name))[.size] as? Int) ?? -1)
            XCTAssertGreaterThan(format["duration"] as? Double ?? 0, 0.4)
        }
    }

    func compareNumbers(_ got: Any?, _ want: Any?, _ what: String) {
        if want == nil || want is NSNull {
            XCTAssertTrue(got is NSNull, "\(what) should be null, got \(String(describing: got))")
            return
        }
        guard let g = got as? [String: Any], let w = want as? [String: Any] else {
            return XCTFail("\(what): got \(String(describing: got))")
        }
        XCTAssertEqual(Set(g.keys), Set(w.keys), what)
        for (k, wv) in w {
            let wd = (wv as? NSNumber)?.doubleValue ?? .nan
            let gd = (g[k] as? NSNumber)?.doubleValue ?? .nan
            XCTAssertEqual(gd, wd, accuracy: max(1e-6, abs(wd) * 1e-4), "\(what).\(k)")
        }
    }

    func testDamagedFilesExitTwoWithOneLine() throws {
        let codes = try Support.expected()["probe_exit_codes"] as! [String: Int]
        XCTAssertEqual(Set(codes.keys), ["empty.mp4", "text.mp4", "truncated.mp4"])
        for (name, code) in codes {
            let r = try Support.sdrify("probe", Support.vector(name), "--json")
            XCTAssertEqual(r.status, Int32(code), name)
            XCTAssertFalse(r.signalled, name)
            // Under --json, stdout carries the error object and nothing else.
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
            XCTAssertEqual(report?["exit_code"] as? Int, code, "\(name): \(r.stdout)")
            XCTAssertEqual(report?["input"] as? String, Support.vector(name))
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(lines.first?.hasPrefix("sdrify: ") == true, r.stderr)
            XCTAssertTrue(r.stderr.contains(name), "names the file: \(r.stderr)")
        }
    }

    func testTruncatedMdatWithIntactMoovIsDetected() throws {
        // moov first (fast start), mdat cut short: the header parses but the samples are missing.
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = dir.appendingPathComponent("faststart.mp4").path
        let r = try Support.run(
            Support.tool("ffmpeg"),
            [
                "-v", "error", "-i", Support.vector("sdr_h264_aac.mp4"), "-c", "copy",
                "-movflags", "+faststart", full
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        let cut = dir.appendingPathComponent("cut.mp4")
        try data.prefix(data.count * 2 / 3).write(to: cut)
        XCTAssertEqual(try Support.sdrify("probe", full).status, 0)
        let p = try Support.sdrify("probe", cut.path)
        XCTAssertEqual(p.status, 2, p.stderr)
        XCTAssertTrue(p.stderr.hasPrefix("sdrify: ") && p.stderr.contains("truncated"), p.stderr)
    }

    func testMissingFileAndNonVideo() throws {
        let missing = try Support.sdrify("probe", "/nonexistent/clip.mov")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.hasPrefix("sdrify: /nonexistent/clip.mov"), missing.stderr)
        // Audio only: a valid file with no video stream.
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let audio = dir.appendingPathComponent("tone.m4a").path
        _ = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", audio])
        let r = try Support.sdrify("probe", audio)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no video stream"), r.stderr)
    }

    func testHumanSummaryAndPresets() throws {
        let r = try Support.sdrify("probe", Support.vector("hlg_portrait.mov"))
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout.contains("HLG"), r.stdout)
        XCTAssertTrue(r.stdout.contains("EXIF 6"), r.stdout)
        let p = try Support.sdrify("presets", "--json")
        XCTAssertEqual(p.status, 0)
        let rows = try JSONSerialization.jsonObject(with: p.stdoutData) as? [[String: Any]] ?? []
        XCTAssertTrue(rows.contains { $0["name"] as? String == "960x540" && $0["max_long_edge"] as? Int == 960 })
        XCTAssertEqual(rows.filter { $0["default"] as? Bool == true }.count, 1)
    }

    /// `probe --scene-stats` reports what a conversion's `auto` curve finds, from the same path: its scenes agree
    /// with `convert --json`'s, the text form has a row per scene, SDR input has none, and a part can be asked for.
    func testSceneStatisticsAgreeWithWhatAConversionReports() throws {
        let dir = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Support.vector("sample_hlg_portrait.mov")
        let probe = try Support.sdrify("probe", input, "--scene-stats", "--json")
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let report = try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any] ?? [:]
        XCTAssertEqual(report["hdr"] as? String, "hlg")
        let stats = report["tone_mapping"] as? [String: Any] ?? [:]
        let convert = try Support.sdrify(input, dir.appendingPathComponent("out.mp4").path, "--json", "--preset", "640x480")
        XCTAssertEqual(convert.status, 0, convert.stderr)
        let converted = (try JSONSerialization.jsonObject(with: convert.stdoutData) as? [String: Any])?["tone_mapping"] as? [String: Any] ?? [:]
        XCTAssertEqual(report["frames"] as? Int, (try JSONSerialization.jsonObject(with: convert.stdoutData) as? [String: Any])?["frames"] as? Int)
        for key in ["statistics", "scenes", "white_cd_m2", "key_cd_m2", "peak_cd_m2", "exposure_stops", "by_scene"] {
            XCTAssertNotNil(stats[key], key)
            XCTAssertEqual(stats[key] as? NSObject, converted[key] as? NSObject, "\(key): the same as the conversion's")
        }
        let scenes = stats["by_scene"] as? [[String: Any]] ?? []
        XCTAssertEqual(scenes.first?["start"] as? Double, 0)
        XCTAssertGreaterThan(scenes.first?["white_cd_m2"] as? Double ?? 0, 0)
        XCTAssertEqual(scenes.map { $0["pictures"] as? Int ?? 0 }.reduce(0, +), report["frames"] as? Int)

        let text = try Support.sdrify("probe", input, "--scene-stats")
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.contains("HLG") ?? false, text.stdout)
        XCTAssertEqual(lines.count, 2 + scenes.count, text.stdout)

        let part = try Support.sdrify("probe", input, "--scene-stats", "--json", "--duration", "0.5")
        XCTAssertEqual(part.status, 0, part.stderr)
        let partFrames = (try JSONSerialization.jsonObject(with: part.stdoutData) as? [String: Any])?["frames"] as? Int ?? 0
        XCTAssertGreaterThan(partFrames, 0)
        XCTAssertLessThan(partFrames, report["frames"] as? Int ?? 0)

        let sdr = try Support.sdrify("probe", Support.vector("sdr_h264_aac.mp4"), "--scene-stats")
        XCTAssertEqual(sdr.status, 0, sdr.stderr)
        XCTAssertTrue(sdr.stdout.contains("not HDR"), sdr.stdout)

        // Sound without pictures: refused as plain probe refuses it, nothing written.
        let audio = dir.appendingPathComponent("a.m4a").path
        XCTAssertEqual(
            try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", audio]).status, 0)
        let plain = try Support.sdrify("probe", audio), surveyed = try Support.sdrify("probe", audio, "--scene-stats")
        XCTAssertEqual(surveyed.status, plain.status, surveyed.stderr)
        XCTAssertNotEqual(surveyed.status, 0)
        XCTAssertTrue(surveyed.stderr.contains("no video"), surveyed.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mp4") }, ["out.mp4"])

        let misuse = try Support.sdrify("probe", input, "--duration", "1")
        XCTAssertEqual(misuse.status, 64, "--duration without --scene-stats is a usage error")
    }
}
