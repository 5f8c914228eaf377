/// Output presets, named as AVAssetExportSession's. A size preset is a bounding box on the upright picture.
public struct ExportPreset: Sendable {
    public let name: String
    public let box: BoundingBox?   // nil: keep the source size
    public let crf: Int
    public let x264Preset: String
    public let summary: String

    public static let all: [ExportPreset] = [
        ExportPreset(name: "640x480", box: BoundingBox(long: 640, short: 480), crf: 23, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 640x480"),
        ExportPreset(name: "960x540", box: BoundingBox(long: 960, short: 540), crf: 23, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 960x540"),
        ExportPreset(name: "1280x720", box: BoundingBox(long: 1280, short: 720), crf: 23, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 1280x720"),
        ExportPreset(name: "1920x1080", box: BoundingBox(long: 1920, short: 1080), crf: 23, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 1920x1080"),
        ExportPreset(name: "3840x2160", box: BoundingBox(long: 3840, short: 2160), crf: 23, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 3840x2160"),
        ExportPreset(name: "LowQuality", box: BoundingBox(long: 640, short: 360), crf: 28, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 640x360, small files"),
        ExportPreset(name: "MediumQuality", box: BoundingBox(long: 1280, short: 720), crf: 25, x264Preset: "veryfast",
                     summary: "H.264 High + AAC, fits 1280x720"),
        ExportPreset(name: "HighestQuality", box: nil, crf: 18, x264Preset: "medium",
                     summary: "H.264 High + AAC, source size, high quality"),
    ]

    /// What `sdrify in out` uses without --preset.
    public static let defaultName = "1920x1080"

    public static func named(_ name: String) -> ExportPreset? {
        all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }
}
