import Foundation
import SDRifyMedia
import SDRifyOutput
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// What a render is written into, as the one export path asks it (`Export`): its checks, how it sizes and cuts the
/// render, its sinks, and its fields in the report. Each kind of output is one type in this folder; it keeps the
/// sinks it made, so its report reads them as what they are. A new kind (DASH, say) is a new file here, its case in
/// `Destination` (the request's value, `SDRifyTimeline`) and its line in `writer` below — docs/ARCHITECTURE.md lists
/// the rest it touches.
protocol OutputDestination: AnyObject {
    /// The output path is a video file (its extension names the container); false where the sinks check their own
    /// paths (a directory, images).
    var writesVideoFile: Bool { get }
    /// It can write the HDR kept (`--range hdr`, `--hdr-output`, `--ranges …hdr`).
    var keepsHDR: Bool { get }
    /// It writes stills that can carry a gain map.
    var takesGainMap: Bool { get }

    /// Its own values, before anything is read.
    func validate(_ timeline: Timeline) throws
    /// The timeline as it renders it: its size, and (a thumbnail) only as far as the picture needed.
    func prepare(_ timeline: inout Timeline) throws
    /// The sinks the render is written into (the output exists from here on: everything read is checked).
    func sinks(_ render: RenderOutputs) throws -> [MediaSink]
    /// Its fields in the report, once its sinks are done.
    func report(into result: inout ExportResult)
}

extension OutputDestination {
    func validate(_ timeline: Timeline) throws {}
    func prepare(_ timeline: inout Timeline) throws {}

    /// The checks every destination shares, before its own: the HDR kept and a gain map only where it writes them.
    func validateShared(_ timeline: Timeline) throws {
        if timeline.output.writesHDR, !keepsHDR {
            throw SDRifyError.usage("the HDR kept is written as video; a still keeps it with --gain-map")
        }
        if timeline.output.gainMap {
            guard takesGainMap else { throw SDRifyError.usage("--gain-map applies to posters, thumbnails and contact sheets") }
            let still = timeline.output.poster?.path ?? (writesVideoFile ? nil : timeline.output.path)
            guard let still else { throw SDRifyError.usage("--gain-map is for a still: give --poster FILE.jpg") }
            if let problem = ImageFileType.gainMapProblem(still) { throw SDRifyError.usage(problem) }
        }
    }
}

extension Destination {
    /// The writer of this destination: the one place each kind of output is registered.
    func writer() -> OutputDestination {
        switch self {
        case .video: VideoDestination()
        case .hls(let spec): HLSDestination(spec)
        case .thumbnail(let at, let best, _): ThumbnailDestination(at: at, best: best)
        case .sheet(let columns, let rows, let width): SheetDestination(columns: columns, rows: rows, width: width)
        case .sprites(let every, let columns, let rows, let tile): SpritesDestination(every: every, columns: columns, rows: rows, tile: tile)
        case .survey: SurveyDestination()
        }
    }
}

/// What a destination's sinks are made from: the prepared timeline, the files the request names (a file may not
/// replace what it is made from), the plan, the render's layers (drawn again in SDR on any SDR picture made of an
/// HDR render), the encoders' thread share and the sound.
struct RenderOutputs {
    let timeline: Timeline
    let inputs: [String]
    let plan: RenderPlan
    let layers: RenderLayers?
    let encodeThreads: Int
    let sound: PlannedSound

    var output: OutputSpec { timeline.output }

    /// The sound as the sinks take it: carried over from the input, or the mix's loudness stage.
    var carried: InputCarryOver? { if case .carried(let c) = sound { c } else { nil } }
    var mixStage: LoudnessNormalizer? { if case .mixed(_, let normalizer, _) = sound { normalizer } else { nil } }

    /// An encoder's settings for an output of `range` from this render: SDR, or the render's HDR kind with the static
    /// metadata it carries; the codec as `out` chooses it for that range.
    func encoderSettings(_ out: OutputSpec, range: RangeRequest) -> VideoEncoderSettings {
        var output = out
        output.range = range
        return output.encoderSettings(threads: encodeThreads, range: range == .sdr ? .sdr : plan.canvas.range, hdr: plan.hdrMetadata)
    }

    /// A size the codec cannot encode is refused before anything is written.
    func checkEncodable(_ sizes: [(width: Int, height: Int)]) throws {
        for (w, h) in sizes {
            if let problem = CodecCatalog.sizeProblem(output.preset.codec, width: w, height: h) { throw SDRifyError.usage(problem) }
        }
    }

    /// A still's view of a render that keeps the HDR (nil for an SDR render): SDR by the output's tone map, with the
    /// gain map when asked.
    func hdrStill() throws -> HDRStill? {
        guard plan.canvas.range != .sdr else { return nil }
        return HDRStill(kind: plan.canvas.range, toSDR: try plan.sdrPictures(toneMap: output.toneMap, layers: layers), gainMap: output.gainMap)
    }
}
