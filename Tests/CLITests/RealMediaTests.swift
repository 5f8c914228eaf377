import Foundation
import XCTest

/// Real recordings from phones and real graded HDR (../shared/realmedia, SOURCES.md there; never copied into
/// testvectors/). Every file: probe agrees with ffprobe, and it converts upright, at its display aspect, with
/// BT.709 tags, its video duration and, where it has some, its audio.
final class RealMediaTests: CLITestCase {
    static let folder = Support.packageRoot.appendingPathComponent("../shared/realmedia").standardized

    /// Whether the shared real media is beside this clone. Where it is absent the test says so in one line and
    /// does not run, unless SDRIFY_REALMEDIA=required (CI sets it): then its absence is a failure.
    static func present(_ test: String = #function) -> Bool {
        if FileManager.default.fileExists(atPath: folder.path) { return true }
        if ProcessInfo.processInfo.environment["SDRIFY_REALMEDIA"] == "required" {
            XCTFail("\(folder.path) is absent, and SDRIFY_REALMEDIA=required: the real-media tests need ../shared/realmedia beside the clone")
        } else {
            print("realmedia: \(test) not run: \(folder.path) is absent (SDRIFY_REALMEDIA=required makes that a failure)")
        }
        return false
    }

    func realFiles() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: RealMediaTests.folder.path)
            .filter { ["mov", "mp4", "h265", "hevc"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10, "the shared real media")
        return names.map { RealMediaTests.folder.appendingPathComponent($0).path }
    }

    /// ffprobe's view of the first video stream, normalised to sdrify probe's vocabulary.
    func ffprobeVideo(_ path: String) throws -> [String: String] {
        let v = Support.streams(try Support.ffprobe(path), "video").first ?? [:]
        var out: [String: String] = [:]
        for key in ["codec_name", "profile", "pix_fmt", "color_primaries", "color_transfer", "color_space", "color_range"] {
            out[key] = v[key] as? String ?? "unknown"
        }
        let sar = v["sample_aspect_ratio"] as? String ?? "N/A"
        out["sample_aspect_ratio"] = sar == "N/A" || sar == "0:1" ? "1:1" : sar
        var rotation = 0, dv: String? = nil
        for sd in v["side_data_list"] as? [[String: Any]] ?? [] {
            if let r = sd["rotation"] as? Int { rotation = ((-r) % 360 + 360) % 360 }  // ffprobe: counter-clockwise
            if let p = sd["dv_profile"] as? Int { dv = "\(p).\(sd["dv_bl_signal_compatibility_id"] as? Int ?? -1)" }
        }
        out["rotation_cw"] = String(rotation)
        out["dolby_vision"] = dv ?? "none"
        out["bit_depth"] = (v["pix_fmt"] as? String ?? "").contains("10") ? "10" : "8"
        return out
    }

    func testProbeAgreesWithFFprobeOnEveryRealFile() throws {
        guard RealMediaTests.present() else { return }
        for path in try realFiles() {
            let name = (path as NSString).lastPathComponent
            let r = try Support.sdrify("probe", path, "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let probe = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            let v = probe["video"] as? [String: Any] ?? [:]
            let orientation = v["orientation"] as? [String: Any] ?? [:]
            let dv = (v["dolby_vision"] as? [String: Any]).map { "\($0["profile"] as? Int ?? -1).\($0["bl_compatibility_id"] as? Int ?? -1)" }
            let ours: [String: String] = [
                "codec_name": v["codec"] as? String ?? "", "profile": v["profile"] as? String ?? "unknown",
                "pix_fmt": v["pix_fmt"] as? String ?? "", "bit_depth": String(v["bit_depth"] as? Int ?? -1),
                "color_primaries": v["color_primaries"] as? String ?? "", "color_transfer": v["color_transfer"] as? String ?? "",
                "color_space": v["color_space"] as? String ?? "", "color_range": v["color_range"] as? String ?? "",
                "sample_aspect_ratio": v["sample_aspect_ratio"] as? String ?? "",
                "rotation_cw": String(orientation["rotation_cw"] as? Int ?? -1), "dolby_vision": dv ?? "none"
            ]
            let theirs = try ffprobeVideo(path)
            for (key, value) in theirs { XCTAssertEqual(ours[key], value, "\(name): \(key)") }
        }
    }

    func testEveryRealFileConvertsUprightWithItsAspectDurationAndAudio() throws {
        guard RealMediaTests.present() else { return }
        var hevcChecked = 0
        for path in try realFiles() {
            let name = (path as NSString).lastPathComponent
            let output = file("\(name).mp4")
            // The file's own timing (a slow-motion recording flattened is SpeedAndSlowMotionTests' to check).
            let r = try Support.sdrify(path, output, "--preset", "960x540", "--slow-motion", "off", "--json")
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            guard r.status == 0 else { continue }
            // HEVC: every slice parsed to its end by our own check (phone encoders' tiles, WPP, dependent slices).
            let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
            if let check = report["bitstream_check"] as? [String: Any] {
                XCTAssertGreaterThan(check["slices_checked"] as? Int ?? 0, 0, name)
                XCTAssertEqual(check["slices_unchecked"] as? Int, 0, name)
                hevcChecked += 1
            }
            let probe = try JSONSerialization.jsonObject(with: try Support.sdrify("probe", path, "--json").stdoutData) as? [String: Any] ?? [:]
            let v = probe["video"] as? [String: Any] ?? [:]
            let (dw, dh) = (Double(v["display_width"] as? Int ?? 0), Double(v["display_height"] as? Int ?? 0))
            let out = try Support.ffprobe(output)
            let video = Support.streams(out, "video").first ?? [:]
            let (w, h) = (Double(video["width"] as? Int ?? 0), Double(video["height"] as? Int ?? 0))
            XCTAssertEqual(w / h, dw / dh, accuracy: 0.02 * dw / dh, "\(name): display aspect \(w)x\(h) vs \(dw)x\(dh)")
            XCTAssertLessThanOrEqual(max(w, h), 960, name)
            XCTAssertTrue(
                (video["side_data_list"] as? [[String: Any]] ?? []).allSatisfy { $0["rotation"] == nil || $0["rotation"] as? Int == 0 },
                "\(name): upright pixels, no rotation left")
            for key in ["color_primaries", "color_transfer", "color_space"] { XCTAssertEqual(video[key] as? String, "bt709", "\(name): \(key)") }
            // Duration: the source's video track (a raw stream has none: its frames at its rate), within a frame.
            let source = Support.streams(try Support.ffprobe(path), "video").first ?? [:]
            let rate =
                (source["avg_frame_rate"] as? String).flatMap { s -> Double? in
                    let p = s.split(separator: "/").compactMap { Double($0) }
                    return p.count == 2 && p[1] > 0 && p[0] > 0 ? p[0] / p[1] : nil
                } ?? 30
            let frames = Double(video["nb_frames"] as? String ?? "") ?? 0
            let sourceDuration = Double(source["duration"] as? String ?? "") ?? frames / rate
            let outDuration = Double(video["duration"] as? String ?? "") ?? -1
            XCTAssertEqual(outDuration, sourceDuration, accuracy: 1 / rate + 0.002, "\(name): video duration")
            XCTAssertEqual(
                Double(out["format"].flatMap { ($0 as? [String: Any])?["start_time"] as? String } ?? "") ?? -1, 0,
                accuracy: 0.0005, "\(name): starts at 0")
            // Audio kept when the source has a decodable track.
            let hasAudio = !(probe["audio"] as? [[String: Any]] ?? []).isEmpty
            XCTAssertEqual(!Support.streams(out, "audio").isEmpty, hasAudio, "\(name): audio")
        }
        XCTAssertGreaterThanOrEqual(hevcChecked, 4, "the HEVC real files were all checked")
    }

    /// AV1 Dolby Vision ('dav1') has no decoder in this libavcodec: probe describes it, convert refuses it.
    func testUndecodableDolbyVisionAV1IsDescribedAndRefused() throws {
        let av1 = RealMediaTests.folder.appendingPathComponent("androidx_hdr10-av1.mp4").path
        guard RealMediaTests.present() else { return }
        var data = try Data(contentsOf: URL(fileURLWithPath: av1))
        // The sample entry's 'av01' (the first occurrence is a compatible brand in 'ftyp').
        let entry = try XCTUnwrap(data.range(of: Data("av01".utf8), in: 64..<data.count))
        data.replaceSubrange(entry, with: Data("dav1".utf8))
        let input = file("dav1.mp4")
        try data.write(to: URL(fileURLWithPath: input))
        let p = try Support.sdrify("probe", input, "--json")
        XCTAssertEqual(p.status, 0, p.stderr)
        let v = (try JSONSerialization.jsonObject(with: p.stdoutData) as? [String: Any])?["video"] as? [String: Any]
        XCTAssertEqual(v?["codec"] as? String, "'dav1'")
        XCTAssertEqual(v?["decodable"] as? Bool, false)
        XCTAssertEqual(v?["color_transfer"] as? String, "smpte2084", "still described from its headers")
        let c = try Support.sdrify(input, file("out.mp4"))
        XCTAssertEqual(c.status, 3, c.stderr)
        XCTAssertTrue(c.stderr.contains("Dolby Vision profile 10 (AV1"), "the refusal names what it is: \(c.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.mp4")))
    }

    /// Every real file in one composition (cuts: some last a few frames): it is made at the first clip's upright
    /// shape, each clip shows for its own length, each is read as its HDR kind, and sound and pictures end together.
    func testAllRealFilesComposeIntoOneVideo() throws {
        guard RealMediaTests.present() else { return }
        let files = try realFiles()
        let out = file("all.mp4")
        let r = try Support.sdrify(["compose"] + files + ["--output", out, "--preset", "1280x720", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
        let clips = report["clips"] as? [[String: Any]] ?? []
        XCTAssertEqual(clips.count, files.count)
        let first = try Support.sdrify(files[0], file("first.mp4"), "--preset", "1280x720", "--json")
        let firstReport = try JSONSerialization.jsonObject(with: first.stdoutData) as? [String: Any] ?? [:]
        // The first clip's shape, as large as the box and the largest clip allow.
        let (w, h) = (Double(report["width"] as? Int ?? 0), Double(report["height"] as? Int ?? 0))
        let (fw, fh) = (Double(firstReport["width"] as? Int ?? 1), Double(firstReport["height"] as? Int ?? 1))
        XCTAssertEqual(w / h, fw / fh, accuracy: 0.01, "the first clip's shape")
        XCTAssertTrue(max(w, h) == 1280 || min(w, h) == 720, "touches the box: \(w)x\(h)")
        for (path, clip) in zip(files, clips) {
            let probe = try Support.sdrify("probe", path, "--json")
            let video = (try JSONSerialization.jsonObject(with: probe.stdoutData) as? [String: Any])?["video"] as? [String: Any]
            XCTAssertEqual(clip["hdr"] as? String, video?["hdr"] as? String, path)
        }
        var end = 0.0
        for clip in clips {
            XCTAssertEqual(clip["start"] as? Double ?? -1, end, accuracy: 1e-4, "clips follow each other")
            end += clip["duration"] as? Double ?? 0
        }
        let probe = try Support.ffprobe(out)
        let v = Double(Support.streams(probe, "video").first?["duration"] as? String ?? "") ?? 0
        let a = Double(Support.streams(probe, "audio").first?["duration"] as? String ?? "") ?? 0
        XCTAssertEqual(v, end, accuracy: 0.001)
        XCTAssertEqual(a, v, accuracy: 1024 / 48000.0)
    }
}
