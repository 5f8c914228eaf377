import Foundation
import SDRifyMedia
import SDRifyOutput
import SDRifyProbe
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// One picture (`thumbnail`): at a time (default 1 s in, or the middle of a video under 2 s), or the most
/// representative of the first part of the video (`--best`).
final class ThumbnailDestination: OutputDestination {
    private var at: MediaTime?
    private let best: Bool
    private var window: MediaTime?
    private var bestSink: BestPictureSink?
    private var atSink: PosterSink?

    init(at: MediaTime?, best: Bool) { (self.at, self.best) = (at, best) }

    var writesVideoFile: Bool { false }
    var keepsHDR: Bool { false }
    var takesGainMap: Bool { true }

    func validate(_ timeline: Timeline) throws {
        guard ImageFileType(path: timeline.output.path) != nil else {
            throw SDRifyError.usage("\(timeline.output.path): a thumbnail is a \(ImageFileType.extensions) file")
        }
    }

    /// Rendered from the start to just past the picture needed: its length is read from the headers first. Times
    /// are the video's as it plays (a slow-motion capture flattened is shorter than its file): the render is cut in
    /// the file's own time.
    func prepare(_ timeline: inout Timeline) throws {
        let out = timeline.output, input = timeline.input
        let opened = try Prober.open(path: input, allowTruncated: out.tolerateErrors)
        let retiming = try Retiming.decide(
            opened.info, flatten: out.flattenSlowMotion, speed: timeline.clips[0].speed, tolerateErrors: out.tolerateErrors,
            label: input, warn: { _ in })  // (the render says what it says again)
        let origin = opened.demuxer.videoStart, map = retiming.map
        let length = opened.info.format.duration.map { map.output(origin + $0) - map.output(origin) }
        window = best ? Self.bestWindow(length: length ?? 20) : nil
        let time = at ?? PosterRequest.defaultTime(outputLength: length)
        if let length, !best, time >= length {
            throw SDRifyError.usage("the thumbnail time (\(time)) is past the end of the video (\(length))")
        }
        let end = (window ?? time) + MediaTime(1).half
        timeline.clips[0].duration = map.source(ofOutput: map.output(origin) + end) - origin
        at = time
    }

    /// How much of the video `thumbnail --best` looks at: the first 40 %, at least 1 s and at most 20 s.
    static func bestWindow(length: MediaTime) -> MediaTime { min(MediaTime(20), max(MediaTime(1), length.scaled(2, 5))) }

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] {
        let out = render.output
        if let window {
            let sink = try BestPictureSink(
                path: out.path, inputs: render.inputs, overwrite: out.overwrite, spacing: window.scaled(1, 32), hdr: try render.hdrStill())
            bestSink = sink
            return [sink]
        }
        let sink = try PosterSink(
            PosterRequest(path: out.path, at: at), inputs: render.inputs, overwrite: out.overwrite, outputLength: render.plan.expectedLength,
            hdr: try render.hdrStill())
        atSink = sink
        return [sink]
    }

    func report(into result: inout ExportResult) {
        result.poster = atSink?.result
        let chosen = bestSink?.chosen?.time ?? atSink?.result.map { MediaTime(seconds: $0.pictureTime) } ?? at ?? .zero
        var fields: [(String, JSONValue)] = [("time", .seconds(chosen))]
        if let look = bestSink?.chosen?.look {
            fields.append(("chosen_by", .string("best")))
            let rounded = { (x: Double) in JSONValue.double((x * 1000).rounded() / 1000) }
            fields.append(
                ("look", .object([("mean", rounded(look.mean)), ("contrast", rounded(look.contrast)), ("sharpness", rounded(look.sharpness))])))
        }
        result.destinationFields = fields
    }
}
