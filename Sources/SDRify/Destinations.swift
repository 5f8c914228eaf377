import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyOutput
import SDRifyProbe
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// What each destination adds to the one export path: its own checks, how it sizes and cuts the render, the sinks
/// it is written into, and its fields in the report. A new kind of output is a case of `Destination` and its
/// answers here.
extension Destination {
    /// Its values, before anything is read.
    func validate(_ timeline: Timeline) throws {
        if timeline.output.writesHDR {
            switch self {
            case .video, .hls: break
            default: throw SDRifyError.usage("the HDR kept is written as video; a still keeps it with --gain-map")
            }
        }
        if timeline.output.gainMap {
            switch self {
            case .video, .thumbnail, .sheet: break
            default: throw SDRifyError.usage("--gain-map applies to posters, thumbnails and contact sheets")
            }
            let still = timeline.output.poster?.path ?? (writesVideoFile ? nil : timeline.output.path)
            guard let still else { throw SDRifyError.usage("--gain-map is for a still: give --poster FILE.jpg") }
            if let problem = ImageFileType.gainMapProblem(still) { throw SDRifyError.usage(problem) }
        }
        switch self {
        case .video, .survey, .sheet, .sprites: return
        case .hls(let spec): if let problem = spec.capProblem { throw SDRifyError.usage(problem) }
        case .thumbnail:
            guard ImageFileType(path: timeline.output.path) != nil else {
                throw SDRifyError.usage("\(timeline.output.path): a thumbnail is a \(ImageFileType.extensions) file")
            }
        }
    }

    /// The timeline as this destination renders it: its size, and (a thumbnail) only as far as the picture needed.
    mutating func prepare(_ timeline: inout Timeline) throws {
        switch self {
        case .video, .survey: return
        case .hls(let spec):
            timeline.output.size = .ladder(spec.ladder)
            timeline.output.poster = nil
        case .sheet(let columns, _, let width):
            let tileWidth = max(2, (width - (columns + 1) * ContactSheetSink.gap) / columns & ~1)
            timeline.output.size = .box(width: tileWidth, height: tileWidth * 4)
        case .sprites(_, _, _, let tile): timeline.output.size = .box(width: tile.width, height: tile.height)
        case .thumbnail(let at, let best, _):
            // Rendered from the start to just past the picture needed: its length is read from the headers first.
            // Times are the video's as it plays (a slow-motion capture flattened is shorter than its file): the render
            // is cut in the file's own time.
            let out = timeline.output, input = timeline.input
            let opened = try Prober.open(path: input, allowTruncated: out.tolerateErrors)
            let retiming = try Retiming.decide(
                opened.info, flatten: out.flattenSlowMotion, speed: timeline.clips[0].speed, tolerateErrors: out.tolerateErrors,
                label: input, warn: { _ in })  // (the render says what it says again)
            let origin = opened.demuxer.videoStart, map = retiming.map
            let length = opened.info.format.duration.map { map.output(origin + $0) - map.output(origin) }
            let window = best ? Destination.bestWindow(length: length ?? 20) : nil
            let time = at ?? PosterRequest.defaultTime(outputLength: length)
            if let length, !best, time >= length {
                throw SDRifyError.usage("the thumbnail time (\(time)) is past the end of the video (\(length))")
            }
            let end = (window ?? time) + MediaTime(1).half
            timeline.clips[0].duration = map.source(ofOutput: map.output(origin) + end) - origin
            self = .thumbnail(at: time, best: best, window: window)
        }
    }

    /// How much of the video `thumbnail --best` looks at: the first 40 %, at least 1 s and at most 20 s.
    static func bestWindow(length: MediaTime) -> MediaTime { min(MediaTime(20), max(MediaTime(1), length.scaled(2, 5))) }

    /// The sinks the render is written into (the output exists from here on: everything read is checked).
    /// `inputs` are the files the request names (a file may not replace what it is made from).
    /// `layers`: the render's, drawn again in SDR on any SDR picture made of an HDR render.
    func sinks(
        _ timeline: Timeline, inputs: [String], plan: RenderPlan, layers: RenderLayers?, encodeThreads: Int, sound: PlannedSound
    ) throws -> [MediaSink] {
        let out = timeline.output
        let carried: InputCarryOver?, mixStage: LoudnessNormalizer?
        switch sound {
        case .carried(let c): (carried, mixStage) = (c, nil)
        case .mixed(_, let normalizer, _): (carried, mixStage) = (nil, normalizer)
        }
        // A size the codec cannot encode is refused before anything is written.
        let encoded: [(Int, Int)]
        switch self {
        case .video: encoded = [(plan.canvas.width, plan.canvas.height)]
        case .hls: encoded = plan.renditions.map { ($0.width, $0.height) }
        default: encoded = []
        }
        for (w, h) in encoded {
            if let problem = CodecCatalog.sizeProblem(out.preset.codec, width: w, height: h) { throw SDRifyError.usage(problem) }
        }
        switch self {
        case .video:
            let sources =
                carried == nil ? plan.clips.compactMap(\.path) + (timeline.music.map { [$0.path] } ?? []) : Array(inputs.prefix(1))
            let video = try EncodingSink(
                path: out.path, inputs: sources, overwrite: out.overwrite,
                settings: Destination.encoderSettings(out, range: out.range, plan: plan, threads: encodeThreads), carryOver: carried,
                mixStage: mixStage)
            // An SDR file from a render that keeps the HDR (beside --hdr-output, or for a gain map): its picture tone
            // mapped once.
            let main: MediaSink =
                out.range == .sdr && plan.canvas.range != .sdr
                ? ToneMappedSink(video, toSDR: try plan.sdrPictures(toneMap: out.toneMap, layers: layers)) : video
            let kept = try out.hdrOutput.map {
                try EncodingSink(
                    path: $0, inputs: sources, overwrite: out.overwrite,
                    settings: Destination.encoderSettings(out, range: .hdr, plan: plan, threads: encodeThreads), carryOver: carried,
                    mixStage: mixStage)
            }
            let poster = try out.poster.map {
                try PosterSink($0, inputs: sources, overwrite: out.overwrite, outputLength: plan.expectedLength, hdr: try hdrStill(plan, out, layers))
            }
            let others: [MediaSink?] = [kept, poster]
            return [main] + others.compactMap { $0 }
        case .hls(let spec):
            let directory = try AtomicDirectory.open(finalPath: out.path, inputPaths: inputs, policy: out.overwrite)
            // One ladder per range, from the one render: SDR rungs from its SDR picture (tone mapped once, when the
            // render keeps the HDR), HDR ones from the render's own.
            let requests = spec.ranges.flatMap { range in
                plan.renditions.map { r in
                    var output = out
                    output.maxBitRate = spec.cap(forRung: r.rung)
                    return HLSRenditionRequest(
                        rendition: r, settings: Destination.encoderSettings(output, range: range, plan: plan, threads: encodeThreads),
                        suffix: spec.ranges.count > 1 && range == .hdr ? "-hdr" : "")
                }
            }
            let toSDR = plan.canvas.range == .sdr || !spec.ranges.contains(.sdr) ? nil : try plan.sdrPictures(toneMap: out.toneMap, layers: layers)
            return [
                try HLSSink(directory: directory, renditions: requests, segmentLength: spec.segmentLength, carryOver: carried, toSDR: toSDR)
            ]
        case .thumbnail(let at, _, let window):
            if let window {
                return [
                    try BestPictureSink(
                        path: out.path, inputs: inputs, overwrite: out.overwrite, spacing: window.scaled(1, 32), hdr: try hdrStill(plan, out, layers))
                ]
            }
            return [
                try PosterSink(
                    PosterRequest(path: out.path, at: at), inputs: inputs, overwrite: out.overwrite, outputLength: plan.expectedLength,
                    hdr: try hdrStill(plan, out, layers))
            ]
        case .sheet(let columns, let rows, let width):
            guard let length = plan.expectedLength else { throw SDRifyError.invalidInput("\(timeline.input): its length is not known") }
            return [
                try ContactSheetSink(
                    path: out.path, inputs: inputs, overwrite: out.overwrite, columns: columns, rows: rows, width: width, length: length,
                    hdr: try hdrStill(plan, out, layers))
            ]
        case .sprites(let every, let columns, let rows, _):
            guard let length = plan.expectedLength else { throw SDRifyError.invalidInput("\(timeline.input): its length is not known") }
            let directory = try AtomicDirectory.open(finalPath: out.path, inputPaths: inputs, policy: out.overwrite)
            return [SpriteSink(directory: directory, every: every, columns: columns, rows: rows, length: length)]
        case .survey: return [DiscardingSink()]
        }
    }

    /// An encoder's settings for an output of `range` from this render: SDR, or the render's HDR kind with the static
    /// metadata it carries; the codec as `out` chooses it for that range.
    private static func encoderSettings(_ out: OutputSpec, range: RangeRequest, plan: RenderPlan, threads: Int) -> VideoEncoderSettings {
        var output = out
        output.range = range
        return output.encoderSettings(threads: threads, range: range == .sdr ? .sdr : plan.canvas.range, hdr: plan.hdrMetadata)
    }

    /// A still's view of a render that keeps the HDR (nil for an SDR render): SDR by the output's tone map, with the
    /// gain map when asked.
    private func hdrStill(_ plan: RenderPlan, _ out: OutputSpec, _ layers: RenderLayers?) throws -> HDRStill? {
        guard plan.canvas.range != .sdr else { return nil }
        return HDRStill(kind: plan.canvas.range, toSDR: try plan.sdrPictures(toneMap: out.toneMap, layers: layers), gainMap: out.gainMap)
    }

    /// What the report says besides the conversion's fields, once the sinks are done.
    func report(into result: inout ExportResult, sinks: [MediaSink]) {
        switch self {
        case .video: return
        case .survey: result.form = .survey
        case .hls(let spec):
            let made = sinks.lazy.compactMap { $0 as? HLSSink }.first?.results ?? []
            result.renditions = made
            result.destinationFields = [("segment_seconds", .double(spec.segmentLength.seconds)), ("renditions", .array(made.map(\.json)))]
        case .thumbnail(let at, _, _):
            let bestSink = sinks.lazy.compactMap { $0 as? BestPictureSink }.first
            let atSink = sinks.lazy.compactMap { $0 as? PosterSink }.first
            let chosen = bestSink?.chosen?.time ?? atSink?.result.map { MediaTime(seconds: $0.pictureTime) } ?? at ?? .zero
            var fields: [(String, JSONValue)] = [("time", .seconds(chosen))]
            if let look = bestSink?.chosen?.look {
                fields.append(("chosen_by", .string("best")))
                fields.append(
                    (
                        "look",
                        .object([
                            ("mean", .double((look.mean * 1000).rounded() / 1000)), ("contrast", .double((look.contrast * 1000).rounded() / 1000)),
                            ("sharpness", .double((look.sharpness * 1000).rounded() / 1000))
                        ])
                    ))
            }
            result.destinationFields = fields
        case .sheet(let columns, let rows, _):
            let sheet = sinks.lazy.compactMap { $0 as? ContactSheetSink }.first
            let times = (sheet?.times ?? []).map { JSONValue.double(($0.seconds * 1000).rounded() / 1000) }
            // The size is the sheet's; a tile's as its own fields.
            let size = sheet?.size ?? (0, 0)
            result.destinationFields = [
                ("grid", .string("\(columns)x\(rows)")), ("times", .array(times)), ("width", .int(Int64(size.width))),
                ("height", .int(Int64(size.height))), ("tile_width", .int(Int64(result.width))), ("tile_height", .int(Int64(result.height)))
            ]
        case .sprites(let every, _, _, _):
            let sprites = sinks.lazy.compactMap { $0 as? SpriteSink }.first
            result.destinationFields = [
                ("tiles", .int(Int64(sprites?.tiles ?? 0))), ("sprites", .int(Int64(sprites?.sprites ?? 0))),
                ("every_s", .double(every.seconds)), ("vtt", .string("thumbnails.vtt"))
            ]
        }
        if !writesVideoFile { result.preset = nil; result.codec = nil; result.range = nil }  // the destination sizes the output
    }
}
