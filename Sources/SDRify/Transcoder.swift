import Foundation
import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyPresets
import SDRifyProbe
import SDRifyRender
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// What a conversion is asked to do.
package struct ConvertOptions: Sendable {
    var input: String
    var output: String
    var preset: ExportPreset
    package var overwrite = false
    package var crf: Int? = nil
    package var encoderPreset: String? = nil  // x264/x265 speed preset; default from the preset
    package var maxBitRate: BitRate? = nil  // --max-bitrate: the encoder's VBV cap
    package var start: MediaTime? = nil  // from the beginning of the input
    package var duration: MediaTime? = nil
    package var keepLocation = false
    package var keepChapters = true  // the input's chapters, retimed by start/duration
    package var keepSubtitles = true  // the input's text subtitle tracks, retimed by start/duration
    package var overlays = OverlaySpec()
    package var subtitles: [(file: String, language: String?)] = []  // soft subtitle tracks to write (mov_text)
    package var background = Background.black  // behind the picture when the source shrinks mid-stream
    package var threads = 0  // 0 = automatic
    package var toneMap = ToneMapOperator.default
    /// Conceal decode errors and go on (counted in the result) instead of failing with exit 2.
    package var tolerateErrors = false
    /// Our own check of H.264 and HEVC slice data (BitstreamCheck): on unless the caller trusts its input.
    package var checkBitstream = true
    /// A constant output frame rate (nil: the source's own picture times, a variable rate kept).
    package var fps: FrameRate? = nil
    /// A still of the output's own picture written beside it.
    package var poster: PosterRequest? = nil
    /// A turn on top of the file's own orientation and a crop (`--rotate`, `--flip`, `--crop`).
    package var framing = Framing()
    /// Which of the input's audio tracks are kept (`--audio-track`).
    package var audioTrack = AudioTrackChoice.automatic
    /// What is kept of the input's container tags (`--metadata`).
    package var metadata = MetadataPolicy.minimal
    /// Played this many times as fast (`--speed`): pictures retimed, sound time-stretched with its pitch kept.
    package var speed = Speed.normal
    /// Keep the sound of a retimed conversion (time-stretched), or leave it out (`--speed-audio mute`).
    package var retimedSound = true
    /// Play a phone's slow-motion recording as its gallery does (`--slow-motion auto`); false keeps the file's timing.
    package var flattenSlowMotion = true
    /// `--loudness`: the integrated loudness (LUFS) the sound is brought to, its true peak held at −1 dBTP.
    package var loudness: Double? = nil
    package static let loudnessTargets: ClosedRange<Double> = -70...0
    /// The size the picture is rendered at (the preset's box unless asked otherwise).
    package var size = OutputSize.preset
    /// `output` is a video file; false when the sinks write something else there (a directory, images).
    var writesVideoFile = true

    package init(input: String, output: String, preset: ExportPreset) {
        self.input = input; self.output = output; self.preset = preset
    }

    /// Every file the conversion reads: the input, subtitle files, the layers' files, the background picture.
    package var filesRead: [String] { [input] + subtitles.map(\.file) + overlays.filesRead + (background.file.map { [$0] } ?? []) }

    /// A conversion is the one-clip timeline: its values are checked where a composition's are, and it is rendered
    /// by the same path (on the source's own clock unless `fps` is given, with the input's sound carried over).
    var timeline: Timeline {
        var out = OutputSpec(path: output, preset: preset)
        out.overwrite = overwrite; out.crf = crf; out.encoderPreset = encoderPreset; out.threads = threads
        out.maxBitRate = maxBitRate
        out.toneMap = toneMap; out.tolerateErrors = tolerateErrors; out.background = background
        out.checkBitstream = checkBitstream; out.fps = fps; out.poster = poster
        out.flattenSlowMotion = flattenSlowMotion
        out.isVideoFile = writesVideoFile
        var clip = TimelineClip(source: .video(input))
        clip.framing = framing
        clip.speed = speed
        clip.from = start
        clip.duration = duration
        var t = Timeline(output: out, clips: [clip])
        t.overlays = overlays
        return t
    }

    /// The layers on the output's clock: caption files follow the input's, so a `start` cut moves them earlier (and
    /// a retimed input, `clock`, moves them with its pictures).
    func outputOverlays(clock: CueClock? = nil) -> OverlaySpec {
        var spec = overlays
        let shift = (start ?? .zero).seconds  // caption and title times are seconds as their files give them
        for i in spec.captions.indices {
            if let clock { spec.captions[i].clock = clock } else { spec.captions[i].offset -= shift }
        }
        for i in spec.titles.indices where spec.titles[i].source.map({ if case .track = $0 { true } else { false } }) ?? false {
            // A track of the input runs on the input's clock.
            if let clock { spec.titles[i].clock = clock } else { spec.titles[i].sourceOffset -= shift }
        }
        return spec
    }

}

/// How a conversion's picture is sized.
package enum OutputSize: Sendable, Equatable {
    /// Inside the preset's box, whichever way round the picture is (convert, thumbnail by default).
    case preset
    /// Inside `width`×`height` as given, not turned with the picture (`thumbnail --size`, sprite tiles, sheet tiles).
    case box(width: Int, height: Int)
    /// A ladder's renditions (`hls`): rendered at the top one's size (RenderPlan.renditions).
    case ladder(Ladder)
}

/// What a finished conversion reports (`convert --json`).
package struct ConversionResult: Sendable {
    var input: String
    package var output: String
    var preset: String
    package var width: Int
    package var height: Int
    package var duration: Double  // seconds of video written
    package var frames: Int
    var hdr: HDRKind
    var orientationExif: Int
    var toneMapping: String
    /// What `auto` did (scenes, levels, exposure), when it tone mapped.
    var toneMappingDetail: JSONValue? = nil
    package var decodeErrors: Int  // concealed with --tolerate-errors
    var elapsed: Double  // seconds
    /// H.264 slices and HEVC slice segments our own check parsed to their end, and those it left unchecked (BitstreamCheck).
    var slicesChecked: (checked: Int, unchecked: Int)? = nil
    /// The poster written, and the output time it shows.
    var poster: PosterResult? = nil
    /// How the input was retimed: its speed, and whether a slow-motion recording was flattened.
    package var speed = Speed.normal
    var slowMotionFlattened = false
    /// `--loudness`: the target, the gain, and the first kept track's loudness before and after.
    var loudness: LoudnessOutcome? = nil

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("output", .string(output)), ("preset", .string(preset)),
            ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("duration", .double(duration)),
            ("frames", .int(Int64(frames))), ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])), ("tonemap", .string(toneMapping))
        ]
        if let toneMappingDetail { fields.append(("tone_mapping", toneMappingDetail)) }
        fields.append(("speed", .double(speed.value)))
        fields.append(("slow_motion", .string(slowMotionFlattened ? "flattened" : "file timing")))
        if let loudness {
            fields.append(("loudness", loudness.json))
        }
        fields.append(("decode_errors", .int(Int64(decodeErrors))))
        if let slicesChecked {
            fields.append(
                (
                    "bitstream_check",
                    .object([
                        ("slices_checked", .int(Int64(slicesChecked.checked))),
                        ("slices_unchecked", .int(Int64(slicesChecked.unchecked)))
                    ])
                ))
        }
        if let poster { fields.append(("poster", poster.json)) }
        fields.append(("elapsed_s", .double((elapsed * 1000).rounded() / 1000)))
        return .object(fields)
    }
}

/// Converts one input: reads and checks its headers, then renders the one-clip plan (RenderPlan.single) through
/// the one render path into the encoding sink, which carries the input's sound, chapters and subtitles over.
package enum Transcoder {
    package static func run(
        _ options: ConvertOptions, warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in }
    ) throws -> ConversionResult {
        try render(options, warn: warn, progress: progress) { plan, encodeThreads, carryOver in
            let video = try EncodingSink(
                path: options.output, inputs: [options.input], overwrite: options.overwrite,
                settings: plan.timeline.output.encoderSettings(threads: encodeThreads), carryOver: carryOver)
            let poster = try options.poster.map {
                try PosterSink(
                    $0, inputs: [options.input], overwrite: options.overwrite,
                    outputLength: plan.expectedLength)
            }
            return [video] + (poster.map { [$0] } ?? [])
        }
    }

    /// Converts into the sinks `makeSinks` gives once the input's headers are read (given the plan, the encoder's
    /// thread count and what the file keeps of its input). Audio-only and Passthrough inputs write their file
    /// themselves; with `pictures` (a render for what it measures) an input without video is refused as probe
    /// refuses it.
    static func render(
        _ options: ConvertOptions, pictures: Bool = false, warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in },
        sinks makeSinks: (RenderPlan, Int, InputCarryOver) throws -> [MediaSink]
    ) throws -> ConversionResult {
        let started = Date()
        // A motion photo converts as its movie (read in place out of the photo).
        var options = options
        let named = options.input
        if MotionPhoto.mayHoldAMovie(path: options.input), let movie = try MotionPhoto.find(path: options.input) {
            warn("\(options.input): a motion photo (\(movie.format)): converting its movie")
            options.input = movie.movieURL(options.input)
        }
        let timeline = options.timeline
        try timeline.validate { _ in options.input }
        if options.preset.passthrough, !options.overlays.isEmpty {
            throw SDRifyError.usage("Passthrough copies the video; overlays need a preset that re-encodes")
        }
        if options.preset.passthrough, options.start != nil || options.duration != nil {
            throw SDRifyError.usage("Passthrough copies whole files; a start or duration needs a preset that re-encodes")
        }
        if options.preset.passthrough,
            options.fps != nil || options.poster != nil || !options.framing.isIdentity
                || options.audioTrack != .automatic || options.speed != .normal || options.maxBitRate != nil || options.loudness != nil
        {
            throw SDRifyError.usage(
                "Passthrough copies the file; a frame rate, a poster, a rotation, a flip, a crop, a speed, a bit-rate cap, a loudness or a choice of audio tracks needs a preset that re-encodes"
            )
        }

        // Read the headers first: they validate the input and give orientation, colour and size. The same open
        // input is then converted (the first picture's SEI is read by the render when it decodes it).
        // --tolerate-errors converts what a file cut short still holds (an interrupted upload, say).
        let opened: (info: MediaInfo, demuxer: Demuxer, truncated: String?)
        do {
            opened = try Prober.open(path: options.input, allowTruncated: options.tolerateErrors)
        } catch {
            // Sound without pictures becomes a video of the background (looked at only when there is no video), unless
            // the pictures went missing with a damaged movie box (a video track whose handler box is broken).
            guard !pictures, !options.preset.passthrough, let length = AudioOnlyConversion.length(of: options.input) else { throw error }
            if let broken = MovieStructure.problem(path: options.input) {
                guard options.tolerateErrors else { throw SDRifyError.invalidInput("\(options.input): \(broken)") }
                warn("\(options.input): \(broken): converting what it holds")
            }
            return try AudioOnlyConversion.run(options, length: length, warn: warn, progress: progress)
        }
        let (info, demuxer, truncated) = opened
        if let truncated { warn("\(truncated): converting what it holds") }
        let video = info.video
        let orientation = try info.supportedOrientation().then(options.framing.turn)
        // The audio tracks asked for, checked before any output exists (a choice the input cannot meet is a usage error).
        _ = try demuxer.audioStreams(for: options.audioTrack)
        if options.audioTrack == .automatic, let codec = demuxer.undecodableAudio {
            warn(
                demuxer.audioStreamIndex == nil
                    ? "the audio (\(codec)) cannot be decoded here: the output has no audio"
                    : "the default audio track (\(codec)) cannot be decoded here: keeping the next audio track instead")
        }
        if options.preset.passthrough {
            // Passthrough must be sure the stream is SDR, which only its SEI may contradict: read it too.
            try Passthrough.check(try Prober.probe(path: options.input).video, input: options.input)
            return try Passthrough.run(
                options, info: info, demuxer: demuxer, orientation: orientation, started: started,
                warn: warn, progress: progress)
        }

        try options.framing.check(video.displaySize, label: options.input)
        let (dw, dh) = options.framing.size(video.displaySize)
        var renditions: [Ladder.Rendition] = []
        let target: (Int, Int)
        switch options.size {
        case .preset: target = TargetSize.fit(width: dw, height: dh, into: options.preset.box)
        case .box(let w, let h): target = TargetSize.inside(width: dw, height: dh, frameWidth: w, frameHeight: h)
        case .ladder(let ladder):
            renditions = TargetSize.renditions(of: ladder, width: dw, height: dh)
            target = (renditions[0].width, renditions[0].height)
        }
        // The part of the input used, on the clock its pictures, sound, chapters and subtitles all follow.
        // --start/--duration are the input's own times; a speed or a flattened slow motion retimes what they select.
        let retiming = try Retiming.decide(
            info, flatten: options.flattenSlowMotion, speed: options.speed, tolerateErrors: options.tolerateErrors, label: options.input,
            warn: warn)
        let cutting = options.start != nil || options.duration != nil
        let clock =
            cutting
            ? ClipClock.trim(
                videoStart: demuxer.videoStart, from: options.start ?? .zero, length: options.duration, retiming: retiming)
            : ClipClock.whole(videoStart: demuxer.videoStart, lateStart: info.format.startTime ?? .zero, retiming: retiming)
        let cueClock = clock.map.isIdentity ? nil : CueClock(map: clock.map, origin: clock.origin, cut: options.start ?? .zero)

        // Soft subtitles are read now too, on the output's clock (a cut moves and trims them).
        let cutStart = options.start ?? .zero
        func onOutputClock(_ cues: [Cue], shift: MediaTime) -> [Cue] {
            let moved =
                cueClock.map { c in CaptionFile.retimed(cues, CueClock(map: c.map, origin: c.origin, cut: shift).output) }
                ?? CaptionFile.shifted(cues, by: -shift)
            guard let d = clock.length else { return moved }
            return moved.compactMap { c in c.start < d ? Cue(start: c.start, end: min(c.end, d), lines: c.lines, settings: c.settings) : nil }
        }
        var softSubtitles = try options.subtitles.map { entry in
            (cues: onOutputClock(try CaptionFile.cues(entry.file), shift: cutStart), language: entry.language)
        }
        // The input's own text subtitle tracks are kept (as mov_text, retimed with the picture).
        if options.keepSubtitles && info.tracks.contains(where: { $0.type == "subtitle" }) {
            let start = max(info.format.startTime ?? .zero, .zero) + cutStart
            for track in try Demuxer(path: options.input).subtitleTracks {
                guard track.isText else { warn("subtitle track \(track.index) (\(track.codec)) is pictures: not kept"); continue }
                softSubtitles.append((onOutputClock(try CaptionFile.cues(ofTrack: track.index, in: options.input), shift: start), track.language))
            }
        }
        // Overlay pictures are decoded now: a bad one fails before any output exists.
        let overlays =
            options.overlays.isEmpty
            ? nil
            : try OverlayStage(
                spec: options.outputOverlays(clock: cueClock), frameWidth: target.0, frameHeight: target.1, input: options.input, warn: warn)
        var plan = try RenderPlan.single(
            timeline, info: info, demuxer: demuxer, orientation: orientation, size: target,
            clock: clock, rate: options.fps)
        plan.renditions = renditions
        let settings = timeline.output.decodeSettings
        let (decodeThreads, encodeThreads) = Renderer.threads(plan, settings: settings)
        var carryOver = InputCarryOver(path: options.input, clock: clock, videoStart: demuxer.videoStart)
        carryOver.keepLocation = options.keepLocation
        carryOver.keepChapters = options.keepChapters
        carryOver.subtitles = softSubtitles
        carryOver.tolerateErrors = options.tolerateErrors
        carryOver.audio = options.audioTrack
        carryOver.keepSound = clock.map.isIdentity || options.retimedSound
        carryOver.metadata = options.metadata
        // --loudness: a first pass over the sound alone, then each kept track's gain and limiter.
        var measured: [LoudnessReport] = [], encodedPeaks: [Double?] = []
        if let target = options.loudness {
            (carryOver.loudness, measured, encodedPeaks) = try LoudnessSurvey.normalizers(carryOver, target: target, warn: warn)
            if measured.isEmpty { warn("--loudness: the output has no sound to bring to \(target) LUFS") }
        }
        let sinks = try makeSinks(plan, encodeThreads, carryOver)
        // On the source's clock the chain's pictures go straight to the sinks: its ring holds what they may hold.
        let ringSize = options.fps == nil ? Compositor.ringSize : 1
        let report = try Renderer.run(
            plan, overlays: overlays, mixer: nil, sinks: sinks, settings: settings,
            open: { clip, inline in
                try VideoClipSource(
                    demuxer: demuxer, info: info, orientation: orientation, clock: clock, size: target, framing: options.framing,
                    canvas: plan.canvas,
                    toneMap: options.toneMap, settings: settings, decodeThreads: decodeThreads, inline: inline,
                    ringSize: ringSize, warn: warn)
            }, progress: progress, started: started)

        let outcome = report.clips[0]
        let hdr = outcome?.sourceColor?.hdrKind ?? video.hdrKind  // what the pictures said, e.g. HLG by SEI
        var result = ConversionResult(
            input: named, output: options.output, preset: options.preset.name,
            width: target.0, height: target.1, duration: report.duration.seconds, frames: report.frames,
            hdr: hdr, orientationExif: orientation.rawValue,
            toneMapping: hdr == .sdr ? "none" : options.toneMap.rawValue,
            decodeErrors: report.errorsConcealed, elapsed: Date().timeIntervalSince(started))
        result.toneMappingDetail = outcome?.toneDetail
        result.speed = options.speed
        result.slowMotionFlattened = retiming.flattened != nil
        result.slicesChecked = outcome?.slicesChecked
        if let target = options.loudness, let first = carryOver.loudness.first {
            var output = first.outputReport
            if let peak = encodedPeaks.first ?? nil { output.truePeak = peak }  // as the AAC decodes
            result.loudness = LoudnessOutcome(target: target, gainDB: first.gainDB, input: measured[0], output: output)
        }
        result.poster = sinks.lazy.compactMap { ($0 as? PosterSink)?.result }.first
        return result
    }
}
