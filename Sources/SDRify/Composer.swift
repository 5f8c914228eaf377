import Foundation
import SDRifyAudio
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// What a finished composition reports (`compose --json`).
package struct CompositionResult: Sendable {
    package struct Clip: Sendable {
        var source: String  // the file, or color:#RRGGBB
        var kind: String  // video, image, color
        var hdr: HDRKind
        var orientationExif: Int
        var from: Double?  // range of the clip's own clock used (videos)
        var to: Double?
        var start: Double  // seconds into the output
        var duration: Double  // seconds shown (transitions included)
        var transition: Transition  // into the next clip
    }

    package var output: String
    var preset: String
    package var width: Int
    package var height: Int
    var frameRate: FrameRate
    package var duration: Double
    package var frames: Int
    package var hasAudio: Bool
    package var clips: [Clip]
    var toneMapping: String
    package var decodeErrors: Int
    /// Most clips open at once (never more than two).
    var mostClipsOpen: Int
    /// The poster written, if one was asked for.
    var poster: PosterResult?
    var elapsed: Double
    /// `--loudness`: the target, the gain, and the mix's loudness before and after.
    var loudness: LoudnessOutcome? = nil

    package var json: JSONValue {
        let clipRows: [JSONValue] = clips.map { c in
            .object([
                ("file", c.kind == "color" ? .null : .string(c.source)), ("source", .string(c.source)), ("kind", .string(c.kind)),
                ("hdr", .string(c.hdr.rawValue)),
                ("orientation", .object([("exif", .int(Int64(c.orientationExif)))])),
                ("from", c.from.map { .double($0) } ?? .null), ("to", c.to.map { .double($0) } ?? .null),
                ("start", .double(c.start)), ("duration", .double(c.duration)),
                ("transition", .object([("type", .string(c.transition.kind.rawValue)), ("duration", .double(c.transition.duration.seconds))]))
            ])
        }
        return .object(
            [
                ("output", .string(output)), ("preset", .string(preset)),
                ("width", .int(Int64(width))), ("height", .int(Int64(height))),
                ("frame_rate", .string(frameRate.description)), ("fps", .double(frameRate.fps)),
                ("duration", .double(duration)), ("frames", .int(Int64(frames))), ("audio", .bool(hasAudio)),
                ("tonemap", .string(toneMapping)), ("clips", .array(clipRows)),
                ("decode_errors", .int(Int64(decodeErrors))), ("max_clips_open", .int(Int64(mostClipsOpen)))
            ]
                + (poster.map { [("poster", $0.json)] } ?? [])
                + (loudness.map { [("loudness", $0.json)] } ?? [])
                + [("elapsed_s", .double((elapsed * 1000).rounded() / 1000))])
    }
}

/// Renders a timeline into one file: the plan (every clip's headers read first), then the one render path
/// (Renderer) into the encoding sink, with the clips' sound and the music mixed.
package enum Composer {
    package static func run(
        _ timeline: Timeline, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
        warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in }
    ) throws -> CompositionResult {
        try render(timeline, clipName: clipName, warn: warn, progress: progress) { plan, codecThreads, mixStage in
            let out = timeline.output
            let inputs = plan.clips.compactMap(\.path) + (timeline.music.map { [$0.path] } ?? [])
            let video = try EncodingSink(
                path: out.path, inputs: inputs, overwrite: out.overwrite,
                settings: out.encoderSettings(threads: codecThreads), mixStage: mixStage)
            let poster = try out.poster.map { try PosterSink($0, inputs: inputs, overwrite: out.overwrite, outputLength: plan.expectedLength) }
            return [video] + (poster.map { [$0] } ?? [])
        }
    }

    /// Renders into the sinks `makeSinks` gives once the plan is made (given the plan, the encoder's thread count and,
    /// with `--loudness`, the mix's gain and limiter).
    static func render(
        _ timeline: Timeline, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
        warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in },
        sinks makeSinks: (RenderPlan, Int, LoudnessNormalizer?) throws -> [MediaSink]
    ) throws -> CompositionResult {
        let started = Date()
        try timeline.validate(where: clipName)
        let out = timeline.output
        let plan = try RenderPlan.make(
            timeline,
            name: { i in
                let c = timeline.clips[i]
                return "\(clipName(i)) (\(c.source.name))"
            }, warn: warn)
        let canvas = plan.canvas
        let overlays =
            timeline.overlays.isEmpty
            ? nil
            : try OverlayStage(spec: timeline.overlays, frameWidth: canvas.width, frameHeight: canvas.height, warn: warn)
        let settings = out.decodeSettings
        let (decodeThreads, encodeThreads) = Renderer.threads(plan, settings: settings)
        let fps = plan.fps
        let sound = plan.soundSegments(rate: AudioMixer.rate)
        func makeMixer() throws -> AudioMixer {
            try AudioMixer(
                segments: sound.segments, totalSamples: sound.totalSamples, music: timeline.music,
                tolerateErrors: out.tolerateErrors
            ) { index in
                let clip = plan.clips[index]
                guard case .video(let info, _) = clip.content else { return nil }
                return try PCMReader(path: info.path, start: clip.sourceStart + clip.from, tolerateErrors: out.tolerateErrors, map: clip.clock.map)
            }
        }
        let mixer = try makeMixer()
        // --loudness: passes over the mix alone first (LoudnessSurvey), then the mix's gain and limiter.
        var loudness: (normalizer: LoudnessNormalizer, measured: LoudnessReport, encodedPeak: Double?)? = nil
        if let target = out.loudness {
            if mixer.hasSound {
                loudness = try LoudnessSurvey.normalizer(mixing: makeMixer, target: target, warn: warn)
            } else {
                warn("--loudness: the output has no sound to bring to \(target) LUFS")
            }
        }
        let sinks = try makeSinks(plan, encodeThreads, loudness?.normalizer)  // the output exists from here on: everything read is checked
        let report = try Renderer.run(
            plan, overlays: overlays, mixer: mixer, sinks: sinks, settings: settings,
            open: { clip, inline in
                switch clip.content {
                case .color(let c): return StillClipSource(try StillPicture.color(c, canvas: canvas))
                case .image(let path):
                    let shown = try StillPicture.image(path, framing: clip.spec.framing, fit: clip.fit, canvas: canvas, toneMap: out.toneMap)
                    return StillClipSource(shown.frame, photo: shown.origin)
                case .video(let info, let orientation):
                    return try VideoClipSource(
                        demuxer: try Demuxer(path: info.path), info: info, orientation: orientation, clock: clip.clock,
                        size: canvas.fitted(clip.spec.framing.size(info.video.displaySize), clip.fit), framing: clip.spec.framing,
                        canvas: canvas, toneMap: out.toneMap,
                        settings: settings, decodeThreads: decodeThreads, inline: inline, ringSize: 1, warn: warn)
                }
            }, progress: progress, started: started)

        let clips = plan.clips.map { c -> CompositionResult.Clip in
            let start = fps.time(ofFrame: c.startFrame).seconds, shown = fps.time(ofFrame: c.frames).seconds
            switch c.content {
            case .video(let info, let orientation):
                return .init(
                    source: info.path, kind: "video", hdr: report.clips[c.index]?.sourceColor?.hdrKind ?? info.video.hdrKind,
                    orientationExif: orientation.rawValue,
                    from: c.from.seconds, to: (c.from + c.length).seconds, start: start, duration: shown,
                    transition: c.spec.transition)
            case .image(let path):
                let photo = report.clips[c.index]?.photo
                return .init(
                    source: path, kind: "image", hdr: photo?.hdr ?? .sdr, orientationExif: photo?.orientation.rawValue ?? 1, from: nil, to: nil,
                    start: start, duration: shown,
                    transition: c.spec.transition)
            case .color(let color):
                return .init(
                    source: "color:\(color.hex)", kind: "color", hdr: .sdr, orientationExif: 1, from: nil, to: nil, start: start,
                    duration: shown, transition: c.spec.transition)
            }
        }
        let anyHDR = clips.contains { $0.hdr != .sdr }
        let poster = sinks.lazy.compactMap { ($0 as? PosterSink)?.result }.first
        var result = CompositionResult(
            output: out.path, preset: out.preset.name, width: canvas.width, height: canvas.height, frameRate: fps,
            duration: plan.totalSeconds, frames: report.frames, hasAudio: mixer.hasSound, clips: clips,
            toneMapping: anyHDR ? out.toneMap.rawValue : "none",
            decodeErrors: report.errorsConcealed, mostClipsOpen: report.mostClipsOpen,
            poster: poster, elapsed: Date().timeIntervalSince(started))
        if let target = out.loudness, let loudness {
            var output = loudness.normalizer.outputReport
            if let peak = loudness.encodedPeak { output.truePeak = peak }  // as the AAC decodes
            result.loudness = LoudnessOutcome(target: target, gainDB: loudness.normalizer.gainDB, input: loudness.measured, output: output)
        }
        return result
    }
}
