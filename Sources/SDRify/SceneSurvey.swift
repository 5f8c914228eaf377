import Foundation
import SDRifyPresets
import SDRifyTimeline
import SDRifyValues

/// `probe --scene-stats`: what the scene-adaptive curve (`--tonemap auto`) finds in an input, without writing
/// anything. The input goes through a conversion's own path (decoder, colour stage, SceneTracker) into a sink
/// that keeps nothing, so the statistics are the ones a conversion would use; the pictures are made at a small
/// size, since the statistics are measured on the decoded pictures whatever the output's size.
package enum SceneSurvey {
    package static func run(
        input: String, start: MediaTime? = nil, duration: MediaTime? = nil, threads: Int = 0,
        tolerateErrors: Bool = false, warn: @escaping WarningHandler = { _ in }
    ) throws -> ExportResult {
        var output = OutputSpec(path: "scene-stats.mp4", preset: ExportPreset.named("LowQuality") ?? ExportPreset.all[0])
        output.threads = threads
        output.tolerateErrors = tolerateErrors
        var timeline = Timeline.conversion(of: input, into: output, keeping: .pictureOnly)
        timeline.clips[0].from = start
        timeline.clips[0].duration = duration
        return try Export.run(ExportRequest(timeline, into: .survey), warn: warn)
    }
}
