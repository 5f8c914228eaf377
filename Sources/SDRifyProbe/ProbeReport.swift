import Foundation
import SDRifyValues

/// `sdrify probe` output: the JSON keys of DESIGN §2 (ffprobe's names where ffprobe has one) and a short
/// human summary.
extension MediaInfo {
    package var json: JSONValue {
        // In typed parts: as one literal it took the type checker 2.7 s in every build.
        let formatJSON: JSONValue = .object([
            ("name", .string(format.name)),
            ("duration", .number(format.duration?.seconds)),
            ("size", format.size.map { .int($0) } ?? .null),
            ("bit_rate", .integer(format.bitRate))
        ])
        let audioJSON: [JSONValue] = audio.map { (a: AudioInfo) -> JSONValue in
            .object([
                ("codec", .string(a.codec)), ("sample_rate", .int(Int64(a.sampleRate))),
                ("channels", .int(Int64(a.channels))), ("bit_rate", .integer(a.bitRate)),
                ("default", .bool(a.isDefault))
            ])
        }
        let chapterJSON: [JSONValue] = chapters.map { (c: ChapterInfo) -> JSONValue in
            .object([("start_time", .double(c.start)), ("end_time", .double(c.end)), ("title", c.title.map { .string($0) } ?? .null)])
        }
        let tagJSON: [(String, JSONValue)] = tags.map { ($0.key, .string($0.value)) }
        return .object([
            ("format", formatJSON),
            ("video", video.json),
            ("warnings", .array(warnings.map { .string($0) })),
            ("audio", .array(audioJSON)),
            ("streams", .array(tracks.map(\.json))),
            ("chapters", .array(chapterJSON)),
            ("tags", .object(tagJSON)),
            ("slow_motion", slowMotion?.json ?? .null)
        ])
    }

    /// What probe warns about: malformed HDR metadata (ignored), a video this libavcodec cannot decode.
    package var warnings: [String] {
        var w = video.hdrMetadata.warnings
        if !video.decodable { w.append("no decoder here for the video (\(video.codec)): convert refuses it (exit 3)") }
        let elsewhere = MovieStructure.externalVideoData(path: path)
        if !elsewhere.isEmpty {
            w.append(
                "a reference movie: its video samples are in other files (\(firstAndMore(elsewhere))); convert reads only what this file holds"
            )
        }
        if let damage = slowMotion?.damage { w.append("\(damage): convert refuses it (exit 2), or with --tolerate-errors keeps the file's timing") }
        return w
    }

    package var summary: String {
        let v = video
        let (dw, dh) = v.displaySize
        var lines = ["\(path): \(format.name), \(format.duration.map { String(format: "%.3f s", $0.seconds) } ?? "unknown duration")"]
        lines.append(
            "  video: \(v.codec)\(v.profile.map { " (\($0))" } ?? ""), \(v.width)x\(v.height) coded, \(dw)x\(dh) upright, \(v.pixelFormat), \(v.rateText)"
        )
        lines.append(
            "  colour: \(v.color.primaries.name)/\(v.color.transfer.name)/\(v.color.matrix.name), range \(v.color.range.name), \(v.hdrKind.rawValue.uppercased())"
        )
        // Metadata that is ignored is said to be, not shown as a value.
        if let md = v.hdrMetadata.masteringDisplay {
            lines.append(
                md.defect.map { "  mastering display: ignored (\($0))" }
                    ?? String(format: "  mastering display: %.4f–%.1f cd/m²", md.minLuminance, md.maxLuminance))
        }
        if let cll = v.hdrMetadata.contentLightLevel {
            lines.append(
                cll.defect.map { "  content light level: ignored (\($0))" }
                    ?? "  content light level: MaxCLL \(cll.maxCLL), MaxFALL \(cll.maxFALL) cd/m²")
        }
        if let dv = v.dolbyVision { lines.append("  Dolby Vision: profile \(dv.profile), level \(dv.level), compatibility \(dv.blCompatibilityID)") }
        switch v.orientation {
        case .known(let o): lines.append("  orientation: EXIF \(o.rawValue) (\(o.name))")
        case .unsupported(let m): lines.append("  orientation: unsupported matrix \(m.components)")
        }
        for a in audio { lines.append("  audio: \(a.codec), \(a.sampleRate) Hz, \(a.channels) ch\(a.isDefault ? " (default)" : "")") }
        for t in tracks where !(t.isMain && (t.type == "video" || t.type == "audio")) && t.type != "audio" {
            var words = [t.kind]
            if let c = t.codec { words.append(c) } else if let tag = t.codecTag { words.append("'\(tag)'") }
            if let l = t.language { words.append(l) }
            if let h = t.handler { words.append("\"\(h)\"") }
            if t.isForced { words.append("forced") }
            if !t.metadataKeys.isEmpty { words.append("keys: " + t.metadataKeys.joined(separator: ", ")) }
            lines.append("  track \(t.index): " + words.joined(separator: ", "))
        }
        if let sm = slowMotion { lines.append("  slow motion: " + sm.summary) }
        for (i, c) in chapters.enumerated() {
            lines.append(String(format: "  chapter %d: %.3f–%.3f s", i + 1, c.start, c.end) + (c.title.map { " \($0)" } ?? ""))
        }
        for (key, value) in tags where ProbeReport.summaryTags.contains(where: { key.lowercased().hasSuffix($0) }) {
            lines.append("  \(key): \(value)")
        }
        return lines.joined(separator: "\n")
    }
}

enum ProbeReport {
    /// The container tags the summary shows (JSON shows them all).
    static let summaryTags = ["title", "artist", "make", "model", "software", "creation_time", "creationdate", "location", "iso6709"]
}

extension TrackInfo {
    /// ffprobe's names: index, codec_type, codec_name, codec_tag_string, disposition, tags.
    package var json: JSONValue {
        var tags: [(String, JSONValue)] = []
        if let l = language { tags.append(("language", .string(l))) }
        if let h = handler { tags.append(("handler_name", .string(h))) }
        if let t = title { tags.append(("title", .string(t))) }
        if let t = timecode { tags.append(("timecode", .string(t))) }
        return .object([
            ("index", .int(Int64(index))), ("codec_type", .string(type)), ("codec_name", codec.map { .string($0) } ?? .null),
            ("codec_tag_string", codecTag.map { .string($0) } ?? .null), ("kind", .string(kind)),
            ("main", .bool(isMain)),
            ("metadata_keys", .array(metadataKeys.map { .string($0) })),
            ("disposition", .object([("default", .int(isDefault ? 1 : 0)), ("forced", .int(isForced ? 1 : 0))])),
            ("tags", .object(tags))
        ])
    }
}

extension VideoInfo {
    package var json: JSONValue {
        let (dw, dh) = displaySize
        let sar = sampleAspectRatio
        var f: [(String, JSONValue)] = []
        f.append(("codec", .string(codec)))
        f.append(("decodable", .bool(decodable)))
        f.append(("profile", profile.map { .string($0) } ?? .null))
        f.append(("width", .int(Int64(width))))
        f.append(("height", .int(Int64(height))))
        f.append(("display_width", .int(Int64(dw))))
        f.append(("display_height", .int(Int64(dh))))
        f.append(("sample_aspect_ratio", .string("\(sar.num):\(sar.den)")))
        f.append(("pix_fmt", .string(pixelFormat)))
        f.append(("bit_depth", .int(Int64(bitDepth))))
        f.append(("frame_rate", .number((nominalFrameRate ?? frameRate).map { ($0 * 1000).rounded() / 1000 })))
        f.append(("average_frame_rate", .number(frameRate.map { ($0 * 1000).rounded() / 1000 })))
        f.append(("frame_count", .integer(frameCount)))
        f.append(("field_order", fieldOrder.map { .string($0) } ?? .null))
        f.append(("color_primaries", .string(color.primaries.name)))
        f.append(("color_transfer", .string(color.transfer.name)))
        f.append(("color_space", .string(color.matrix.name)))
        f.append(("color_range", .string(color.range.name)))
        f.append(("hdr", .string(hdrKind.rawValue)))
        f.append(("mastering_display", masteringJSON))
        f.append(
            (
                "content_light_level",
                hdrMetadata.contentLightLevel.map { c in
                    .object(
                        [("max_cll", .int(Int64(c.maxCLL))), ("max_fall", .int(Int64(c.maxFALL)))]
                            + (c.defect.map { [("ignored", .string($0))] } ?? []))
                } ?? .null
            ))
        f.append(("dolby_vision", dolbyVisionJSON))
        f.append(("orientation", orientationJSON))
        return .object(f)
    }

    var masteringJSON: JSONValue {
        guard let m = hdrMetadata.masteringDisplay else { return .null }
        let pairs: [(String, Double)] = [
            ("red_x", m.redX), ("red_y", m.redY), ("green_x", m.greenX), ("green_y", m.greenY),
            ("blue_x", m.blueX), ("blue_y", m.blueY), ("white_point_x", m.whitePointX),
            ("white_point_y", m.whitePointY), ("min_luminance", m.minLuminance),
            ("max_luminance", m.maxLuminance)
        ]
        // Malformed values are reported as read, with why they are ignored.
        return .object(pairs.map { ($0.0, JSONValue.double($0.1)) } + (m.defect.map { [("ignored", .string($0))] } ?? []))
    }

    var dolbyVisionJSON: JSONValue {
        guard let d = dolbyVision else { return .null }
        return .object([
            ("profile", .int(Int64(d.profile))), ("level", .int(Int64(d.level))),
            ("rpu_present", .bool(d.rpuPresent)), ("el_present", .bool(d.elPresent)),
            ("bl_present", .bool(d.blPresent)), ("bl_compatibility_id", .int(Int64(d.blCompatibilityID)))
        ])
    }

    var orientationJSON: JSONValue {
        let raw = containerMatrix ?? .identity
        var fields: [(String, JSONValue)]
        switch orientation {
        case .known(let o):
            fields = [
                ("exif", .int(Int64(o.rawValue))), ("name", .string(o.name)), ("mirrored", .bool(o.isMirrored)),
                ("rotation_cw", .int(Int64(o.rotationClockwise))),
                ("matrix", .array(raw.components.map { .double($0) })),
                ("fixed_transform", .array(o.fixedTransform(width: width, height: height).components.map { .double($0) }))
            ]
        case .unsupported(let m):
            fields = [
                ("exif", .null), ("name", .string("unsupported")), ("mirrored", .bool(m.isMirrored)),
                ("rotation_cw", .null), ("matrix", .array(m.components.map { .double($0) })), ("fixed_transform", .null)
            ]
        }
        let frameExif: JSONValue =
            frameMatrix.map { fm in Orientation(matrix: fm).map { .int(Int64($0.rawValue)) } ?? .string("unsupported") } ?? .null
        fields.append(("frame_exif", frameExif))
        return .object(fields)
    }
}

extension SlowMotion {
    /// `probe --json`'s `slow_motion`: the capture rate, the layers, each segment (file seconds, slowed how many
    /// times), and how convert plays it.
    package var json: JSONValue {
        .object([
            ("capture_fps", captureRate.map { .int(Int64($0)) } ?? .null),
            ("temporal_layers", temporalLayers.map { .int(Int64($0)) } ?? .null),
            (
                "segments",
                .array(
                    segments.map { s in
                        .object([("start_time", .double(s.start.seconds)), ("end_time", .double(s.end.seconds)), ("slowed", .int(Int64(s.divisor)))])
                    })
            ),
            ("super_slow_motion", .bool(superSlowMotion)),
            ("plays", .string(plays)),
            ("damage", damage.map { .string($0) } ?? .null)
        ])
    }

    /// How `convert --slow-motion auto` plays it.
    var plays: String {
        if damage != nil { return "file timing (damaged slow-motion data)" }
        if canFlatten { return "flattened (real speed outside the segments)" }
        if superSlowMotion { return "file timing (super slow motion is stored slowed)" }
        return segments.isEmpty ? "file timing (no slowed segments stated)" : "file timing (no usable capture rate)"
    }

    var summary: String {
        var words: [String] = []
        if let c = captureRate { words.append("captured at \(c) fps") }
        if let l = temporalLayers { words.append("\(l) temporal layers") }
        for s in segments { words.append(String(format: "%.3f–%.3f s slowed %d×", s.start.seconds, s.end.seconds, s.divisor)) }
        if superSlowMotion { words.append("super slow motion") }
        words.append("plays: \(plays)")
        return words.joined(separator: ", ")
    }
}

extension VideoInfo {
    /// "29.970 fps", with the average after it where pictures were dropped or timed unevenly ("(28.028 on average)").
    var rateText: String {
        guard let average = frameRate else { return "unknown rate" }
        let nominal = nominalFrameRate ?? average
        let text = String(format: "%.3f fps", nominal)
        return abs(nominal - average) > 0.005 * nominal ? text + String(format: " (%.3f on average)", average) : text
    }
}
