import Foundation
import SDRifyOutput
import SDRifyRender
import SDRifyTimeline

/// The output video file, with a poster beside it when one is asked for, and the HDR kept in a second file with
/// `--hdr-output` (`convert`, `compose`).
final class VideoDestination: OutputDestination {
    var writesVideoFile: Bool { true }
    var keepsHDR: Bool { true }
    var takesGainMap: Bool { true }
    private var poster: PosterSink?

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] {
        let out = render.output, plan = render.plan
        try render.checkEncodable([(plan.canvas.width, plan.canvas.height)])
        let sources =
            render.carried == nil
            ? plan.clips.compactMap(\.path) + (render.timeline.music.map { [$0.path] } ?? []) : Array(render.inputs.prefix(1))
        let video = try EncodingSink(
            path: out.path, inputs: sources, overwrite: out.overwrite, settings: render.encoderSettings(out, range: out.range),
            carryOver: render.carried, mixStage: render.mixStage)
        // An SDR file from a render that keeps the HDR (beside --hdr-output, or for a gain map): its picture tone
        // mapped once.
        let main: MediaSink =
            out.range == .sdr && plan.canvas.range != .sdr
            ? ToneMappedSink(video, toSDR: try plan.sdrPictures(toneMap: out.toneMap, layers: render.layers)) : video
        let kept = try out.hdrOutput.map {
            try EncodingSink(
                path: $0, inputs: sources, overwrite: out.overwrite, settings: render.encoderSettings(out, range: .hdr),
                carryOver: render.carried, mixStage: render.mixStage)
        }
        poster = try out.poster.map {
            try PosterSink($0, inputs: sources, overwrite: out.overwrite, outputLength: plan.expectedLength, hdr: try render.hdrStill())
        }
        let others: [MediaSink?] = [kept, poster]
        return [main] + others.compactMap { $0 }
    }

    func report(into result: inout ExportResult) {
        result.poster = poster?.result
    }
}
