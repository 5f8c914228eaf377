import Foundation
import SDRifyAudio
import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyProbe
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// The one entry of every rendering command (convert, compose, hls, thumbnail, sheet, sprites, probe
/// --scene-stats): validate → plan (every input's headers read) → loudness → sinks (the output exists from here on)
/// → render → result. A conversion is the one-clip timeline that carries its input over (ConversionPlanning); a
/// composition's clips are mixed; the destination says what the pictures are written into (Destinations/).
package enum Export {
    package static func run(
        _ request: ExportRequest, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
        warn: @escaping WarningHandler = { _ in }, progress: @escaping ProgressHandler = { _ in }
    ) throws -> ExportResult {
        try render(request, clipName: clipName, warn: warn, progress: progress, into: nil)
    }

    /// `run`, into `sinks` instead of the destination's when given (a render for what the sinks see).
    static func render(
        _ request: ExportRequest, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
        warn: @escaping WarningHandler = { _ in }, progress: @escaping ProgressHandler = { _ in }, into sinks: [MediaSink]?
    ) throws -> ExportResult {
        let started = Date()
        var timeline = request.timeline
        let destination = request.destination.writer()
        let inputs = request.filesRead  // as named, before a motion photo gives way to its movie
        let named = timeline.carryOver == nil ? "" : timeline.input
        if timeline.carryOver != nil, MotionPhoto.mayHoldAMovie(path: named), let movie = try MotionPhoto.find(path: named) {
            // A motion photo converts as its movie (read in place out of the photo).
            warn("\(named): a motion photo (\(movie.format)): converting its movie")
            timeline.clips[0].source = .video(movie.movieURL(named))
        }
        timeline.output.isVideoFile = destination.writesVideoFile
        if let problem = request.destination.problem { throw SDRifyError.usage("\(problem.setting): \(problem.message)") }
        try destination.validateShared(timeline)
        try destination.validate(timeline)
        let input = timeline.carryOver == nil ? "" : timeline.input
        try timeline.validate(where: timeline.carryOver == nil ? clipName : { _ in input })
        try destination.prepare(&timeline)

        let planned: PlannedExport
        if timeline.carryOver != nil {
            switch try ConversionPlanning.plan(timeline, pictures: !destination.writesVideoFile, started: started, warn: warn, progress: progress) {
            case .written(var result):  // by a path of its own: passthrough, or sound without pictures
                result.input = named
                return result
            case .render(let p): planned = p
            }
        } else {
            planned = try compositionPlan(timeline, clipName: clipName, warn: warn)
        }
        let plan = planned.plan
        let out = timeline.output
        if out.gainMap, plan.canvas.range == .sdr {
            warn("--gain-map: nothing HDR to keep (the input is SDR, or a composition): the still is a plain JPEG")
        }
        let settings = out.decodeSettings
        let (decodeThreads, encodeThreads) = Renderer.threads(plan, settings: settings)

        var sound = planned.sound
        let loudness = try out.loudness.map { try loudnessPass(&sound, target: $0, warn: warn) } ?? nil
        let sinks =
            try sinks
            ?? destination.sinks(
                RenderOutputs(timeline: timeline, inputs: inputs, plan: plan, layers: planned.layers, encodeThreads: encodeThreads, sound: sound))
        let report = try Renderer.run(
            plan, layers: planned.layers, mixer: sound.mixer, sinks: sinks,
            opening: ClipOpening(canvas: plan.canvas, toneMap: out.toneMap, settings: settings, decodeThreads: decodeThreads, warn: warn),
            progress: progress, started: started)

        var result = planned.result(of: report, sound: sound, timeline: timeline, input: named)
        result.loudness = loudness?.outcome
        if out.toneMap.exposure != 0 {
            if result.toneMapping == "none" {
                warn("--exposure: the input is SDR, which is not tone mapped: its exposure is left as it is")
            } else {
                result.exposure = out.toneMap.exposure
            }
        }
        destination.report(into: &result)
        if !destination.writesVideoFile { result.preset = nil; result.codec = nil; result.range = nil }  // the destination sizes it
        if let kept = out.hdrOutput { result.destinationFields.append(("hdr_output", .string(kept))) }
        result.elapsed = Date().timeIntervalSince(started)
        return result
    }

    /// `--loudness`: a first pass over the sound alone, then its gain and limiter given to `sound` (and measured again
    /// as it is written: the outcome is read once the render is done). Nil when there is no sound.
    private static func loudnessPass(_ sound: inout PlannedSound, target: Double, warn: WarningHandler) throws -> LoudnessPass? {
        var pass: LoudnessPass? = nil
        switch sound {
        case .carried(var carry):
            let (normalizers, measured, encodedPeaks) = try LoudnessSurvey.normalizers(carry, target: target, warn: warn)
            carry.loudness = normalizers
            sound = .carried(carry)
            if let first = normalizers.first {
                pass = LoudnessPass(target: target, normalizer: first, measured: measured[0], encodedPeak: encodedPeaks.first ?? nil)
            }
        case .mixed(let mixer, _, let make):
            if mixer.hasSound {
                let (normalizer, measured, encodedPeak) = try LoudnessSurvey.normalizer(mixing: make, target: target, warn: warn)
                sound = .mixed(mixer, normalizer: normalizer, make: make)
                pass = LoudnessPass(target: target, normalizer: normalizer, measured: measured, encodedPeak: encodedPeak)
            }
        }
        if pass == nil { warn("--loudness: the output has no sound to bring to \(target) LUFS") }
        return pass
    }

    /// A composition's plan: every clip's headers read, the layers' pictures decoded, the clips' sound and the
    /// music mixed.
    private static func compositionPlan(_ timeline: Timeline, clipName: @escaping (Int) -> String, warn: @escaping WarningHandler) throws
        -> PlannedExport
    {
        let out = timeline.output
        let plan = try RenderPlan.make(
            timeline,
            name: { i in
                let c = timeline.clips[i]
                return "\(clipName(i)) (\(c.source.name))"
            }, warn: warn)
        let canvas = plan.canvas
        let layers =
            timeline.overlays.isEmpty
            ? nil
            : try RenderLayers(spec: timeline.overlays, width: canvas.width, height: canvas.height, range: canvas.range, warn: warn)
        let sound = plan.soundSegments(rate: AudioMixer.rate)
        let makeMixer = {
            try AudioMixer(
                segments: sound.segments, totalSamples: sound.totalSamples, music: timeline.music, tolerateErrors: out.tolerateErrors
            ) { voice in try plan.sound(voice: voice, tolerateErrors: out.tolerateErrors) }
        }
        return PlannedExport(plan: plan, layers: layers, sound: .mixed(try makeMixer(), normalizer: nil, make: makeMixer), source: nil)
    }
}

/// A render ready to run: its plan, its layers, its sound, and (a conversion) what the report says of its input.
struct PlannedExport {
    var plan: RenderPlan
    var layers: RenderLayers?
    var sound: PlannedSound
    var source: ConversionSource?

    /// What the render made, as a conversion's report (its input `input`) or a composition's (its clips).
    func result(of report: RenderReport, sound: PlannedSound, timeline: Timeline, input: String) -> ExportResult {
        let out = timeline.output
        var result = ExportResult(
            form: .conversion, output: out.path, preset: out.preset.name, width: plan.canvas.width, height: plan.canvas.height,
            duration: report.duration.seconds, frames: report.frames, toneMapping: "none", decodeErrors: report.errorsConcealed, elapsed: 0)
        result.codec = out.preset.codec.rawValue
        result.range = out.range == .sdr ? .sdr : plan.canvas.range
        if let source {
            let outcome = report.clips[0]
            result.input = input
            result.hdr = outcome?.sourceColor?.hdrKind ?? source.hdr  // what the pictures said, e.g. HLG by SEI
            result.orientationExif = source.orientation.rawValue
            result.toneMapping = result.hdr == .sdr || out.range == .hdr ? "none" : out.toneMap.op.rawValue
            result.toneMappingDetail = outcome?.toneDetail
            result.speed = timeline.clips[0].speed
            result.slowMotionFlattened = source.flattened
            result.rateDecision = source.rate.json
            result.slicesChecked = outcome?.slicesChecked
        } else {
            result.form = .composition
            result.duration = plan.totalSeconds
            result.frameRate = plan.fps
            result.hasAudio = sound.mixer?.hasSound ?? false
            result.clips = plan.clips.map { $0.report(report.clips[$0.index], fps: plan.fps) }
            result.toneMapping = result.clips.contains { $0.hdr != .sdr } ? out.toneMap.op.rawValue : "none"
            result.mostClipsOpen = report.mostClipsOpen
        }
        return result
    }
}

/// `--loudness`'s first pass: the gain and limiter it chose, and what it measured.
struct LoudnessPass {
    var target: Double
    var normalizer: LoudnessNormalizer  // measures the sound again as it is written
    var measured: LoudnessReport
    var encodedPeak: Double?  // the true peak as the AAC decodes

    /// Once the render is done.
    var outcome: LoudnessOutcome {
        var output = normalizer.outputReport
        if let encodedPeak { output.truePeak = encodedPeak }
        return LoudnessOutcome(target: target, gainDB: normalizer.gainDB, input: measured, output: output)
    }
}

/// A conversion's input as its report names it.
struct ConversionSource {
    var hdr: HDRKind  // as the headers say (the pictures' SEI may say otherwise)
    var orientation: Orientation
    var flattened: Bool  // a slow-motion recording played as the phone's gallery does
    var rate: RateDecision
}

/// The rate a conversion writes and why, as its report says it.
struct RateDecision {
    var source: FrameRate  // the rate the clip was shot at (`Demuxer.nominalFrameRate`)
    var output: FrameRate?  // nil: the source's own picture times
    var rule: String

    var json: JSONValue {
        .object([
            ("source", .string(source.description)), ("output", .string(output?.description ?? "source timing")), ("rule", .string(rule))
        ])
    }
}

/// Where the output's sound comes from.
enum PlannedSound {
    /// A conversion's: the input's own tracks, carried over (retimed with the picture).
    case carried(InputCarryOver)
    /// A composition's: the clips' sound and the music mixed, with `--loudness`'s gain and limiter; `make` makes
    /// another such mixer (for the loudness pass).
    case mixed(AudioMixer, normalizer: LoudnessNormalizer?, make: () throws -> AudioMixer)

    var mixer: AudioMixer? { if case .mixed(let m, _, _) = self { m } else { nil } }
}
