import Foundation
import SDRifyOutput
import SDRifyPresets
import SDRifyValues

/// `probe --scene-stats`: what the scene-adaptive curve (`--tonemap auto`) finds in an input, without writing
/// anything. The input goes through a conversion's own path (decoder, colour stage, SceneTracker) into a sink
/// that keeps nothing, so the statistics are the ones a conversion would use; the pictures are made at a small
/// size, since the statistics are measured on the decoded pictures whatever the output's size.
package enum SceneSurvey {
    package struct Result: Sendable {
        package var input: String
        package var hdr: HDRKind
        package var frames: Int
        package var duration: Double  // seconds
        /// SceneTracker's report; nil for SDR input, which is not tone mapped.
        package var scenes: JSONValue?

        package var json: JSONValue {
            .object([
                ("input", .string(input)), ("hdr", .string(hdr.rawValue)), ("frames", .int(Int64(frames))),
                ("duration", .double(duration)), ("tone_mapping", scenes ?? .null)
            ])
        }
    }

    package static func run(
        input: String, start: MediaTime? = nil, duration: MediaTime? = nil, threads: Int = 0,
        tolerateErrors: Bool = false, warn: @escaping WarningHandler = { _ in }
    ) throws -> Result {
        var options = ConvertOptions(input: input, output: "scene-stats.mp4", preset: ExportPreset.named("LowQuality") ?? ExportPreset.all[0])
        options.start = start; options.duration = duration; options.threads = threads
        options.tolerateErrors = tolerateErrors
        options.keepChapters = false; options.keepSubtitles = false
        let converted = try Transcoder.render(options, pictures: true, warn: warn) { _, _, _ in [DiscardingSink()] }
        return Result(
            input: input, hdr: converted.hdr, frames: converted.frames, duration: converted.duration,
            scenes: converted.toneMappingDetail)
    }
}
