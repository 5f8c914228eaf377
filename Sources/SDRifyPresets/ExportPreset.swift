import SDRifyMedia

/// An orientation-aware bounding box (DESIGN, "presets"): long edge ≤ `long`, short edge ≤ `short`.
package struct BoundingBox: Equatable, Sendable {
    package var long: Int
    package var short: Int

    package init(long: Int, short: Int) { self.long = max(long, short); self.short = min(long, short) }
}

/// Output presets, named as AVAssetExportSession's. A size preset is a bounding box on the upright picture.
package struct ExportPreset: Sendable {
    package let name: String
    package let box: BoundingBox?  // nil: keep the source size
    package let codec: VideoCodec
    package let crf: Int
    package let encoderSpeed: String
    package let passthrough: Bool  // remux only
    package let summary: String

    package init(
        _ name: String, box: BoundingBox?, codec: VideoCodec = .h264, crf: Int = 23, encoderSpeed: String = "veryfast",
        passthrough: Bool = false, summary: String
    ) {
        self.name = name; self.box = box; self.codec = codec; self.crf = crf; self.encoderSpeed = encoderSpeed
        self.passthrough = passthrough; self.summary = summary
    }

    package static func box(_ long: Int, _ short: Int) -> BoundingBox { BoundingBox(long: long, short: short) }

    /// The same preset written with `codec` (`--codec`): its CRF and speed, written for its own encoder, as
    /// `codec`'s of about the same quality and speed, through x264's scale (CodecEntry.crfForX264, read backwards
    /// for its own encoder). Itself when it already writes `codec`, and for Passthrough, which writes no codec.
    package func encoded(with codec: VideoCodec) -> ExportPreset {
        guard codec != self.codec, !passthrough else { return self }
        let own = self.codec.catalog
        let x264CRF = own.crfRange.first { own.crfForX264($0) >= crf } ?? crf
        let target = codec.catalog
        return ExportPreset(
            name, box: box, codec: codec, crf: target.crfForX264(x264CRF), encoderSpeed: target.speedForX264(encoderSpeed),
            summary: summary)
    }

    package static let all: [ExportPreset] = [
        ExportPreset("640x480", box: box(640, 480), summary: "H.264 High + AAC, fits 640x480"),
        ExportPreset("960x540", box: box(960, 540), summary: "H.264 High + AAC, fits 960x540"),
        ExportPreset("1280x720", box: box(1280, 720), summary: "H.264 High + AAC, fits 1280x720"),
        ExportPreset("1920x1080", box: box(1920, 1080), summary: "H.264 High + AAC, fits 1920x1080"),
        ExportPreset("3840x2160", box: box(3840, 2160), summary: "H.264 High + AAC, fits 3840x2160"),
        ExportPreset(
            "HEVC1920x1080", box: box(1920, 1080), codec: .hevc, crf: 26, encoderSpeed: "fast",
            summary: "8-bit HEVC Main (hvc1) + AAC, fits 1920x1080"),
        ExportPreset(
            "HEVC3840x2160", box: box(3840, 2160), codec: .hevc, crf: 26, encoderSpeed: "fast",
            summary: "8-bit HEVC Main (hvc1) + AAC, fits 3840x2160"),
        ExportPreset("LowQuality", box: box(640, 360), crf: 28, summary: "H.264 High + AAC, fits 640x360, small files"),
        ExportPreset("MediumQuality", box: box(1280, 720), crf: 25, summary: "H.264 High + AAC, fits 1280x720"),
        ExportPreset(
            "HighestQuality", box: nil, crf: 18, encoderSpeed: "medium",
            summary: "H.264 High + AAC, source size, high quality"),
        ExportPreset(
            "Passthrough", box: nil, passthrough: true,
            summary: "remux only: for input that is already SDR, upright, 8-bit 4:2:0 H.264/HEVC")
    ]

    /// What `sdrify in out` uses without --preset.
    package static let defaultName = "1920x1080"

    package static func named(_ name: String) -> ExportPreset? {
        all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }
}
