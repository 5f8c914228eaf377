import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifySecurity
import SDRifyToneMap
import SDRifyValues

extension SDRifyVersion {
    /// What `sdrify --version` prints: sdrify's version, then the C libraries it runs with.
    package static var report: String {
        var lines = ["sdrify \(number)"]
        lines += ffmpegVersions().map { "  \($0.name) \($0.version)" }
        lines.append("  zimg \(zimgVersion())")
        lines.append("  libass \(libassVersion())")
        return lines.joined(separator: "\n")
    }

    /// What `sdrify --version --json` prints: what a job runner reads before it sends work to this worker. The
    /// version, each library's, the codecs and files it can write here, what it reads, its features, and which parts
    /// of the sandbox this kernel allows (docs/reports.md).
    package static var json: JSONValue {
        let writable = VideoCodec.allCases.filter { CodecCatalog.unavailable($0) == nil }
        let libraries: [(String, JSONValue)] =
            ffmpegVersions().map { ($0.name, .string($0.version)) } + [("zimg", .string(zimgVersion())), ("libass", .string(libassVersion()))]
        let sandbox = Sandbox.allowed
        return .object([
            ("version", .string(number)),
            ("libraries", .object(libraries)),
            (
                "writes",
                .object([
                    ("video_codecs", .array(writable.map { .string($0.rawValue) })),
                    ("containers", .array(CodecCatalog.outputExtensions.map { .string($0) })),
                    ("images", .array(ImageFileType.allCases.map { .string($0.fileExtensions[0]) })),
                    ("captions", .array(CaptionFormat.allCases.map { .string($0.rawValue) })), ("hls", .bool(true))
                ])
            ),
            (
                "reads",
                .object([
                    (
                        "kinds",
                        .array(["video", "audio", "photo", "motion_photo", "gain_map_photo", "captions", "timeline", "gpx"].map { .string($0) })
                    ),
                    ("video_codecs", .array(CodecCatalog.decodableVideo.map { .string($0) })),
                    ("photos", .array(["heif", "avif", "jpeg", "png", "webp"].map { .string($0) })),
                    ("captions", .array(CaptionFormat.allCases.map { .string($0.rawValue) }))
                ])
            ),
            (
                "features",
                .object([
                    ("hdr_kept", .bool(writable.contains { $0.catalog.hdrProfile != nil })), ("gain_map_stills", .bool(true)),
                    ("av1", .bool(writable.contains(.av1))), ("tap", .bool(true))
                ])
            ),
            ("sandbox", .object([("seccomp", .bool(sandbox.seccomp)), ("landlock", .bool(sandbox.landlock))]))
        ])
    }
}
