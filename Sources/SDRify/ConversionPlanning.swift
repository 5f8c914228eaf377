import Foundation
import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyPresets
import SDRifyProbe
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// A conversion's plan: its input's headers read and checked (they give orientation, colour and size), the part
/// used on the clock its pictures, sound, chapters and subtitles all follow, and what is carried over. The same
/// open input is then rendered (the first picture's SEI is read by the render when it decodes it).
enum ConversionPlanning {
    enum Outcome {
        case render(PlannedExport)
        /// Written by a path of its own: Passthrough, or an input with sound and no pictures.
        case written(ExportResult)
    }

    /// With `pictures` (a render for what it measures, or stills) an input without video is refused as probe
    /// refuses it.
    static func plan(
        _ timeline: Timeline, pictures: Bool, started: Date, warn: @escaping WarningHandler, progress: @escaping ProgressHandler
    ) throws -> Outcome {
        let out = timeline.output, clip = timeline.clips[0], carry = timeline.carryOver ?? CarryOverSpec()
        let input = timeline.input
        // --tolerate-errors converts what a file cut short still holds (an interrupted upload, say).
        let opened: (info: MediaInfo, demuxer: Demuxer, truncated: String?)
        do {
            opened = try Prober.open(path: input, allowTruncated: out.tolerateErrors)
        } catch {
            // Sound without pictures becomes a video of the background (looked at only when there is no video), unless
            // the pictures went missing with a damaged movie box (a video track whose handler box is broken).
            guard !pictures, !out.preset.passthrough, let length = AudioOnlyConversion.length(of: input) else { throw error }
            if let broken = MovieStructure.problem(path: input) {
                guard out.tolerateErrors else { throw SDRifyError.invalidInput("\(input): \(broken)") }
                warn("\(input): \(broken): converting what it holds")
            }
            return .written(try AudioOnlyConversion.run(timeline, length: length, warn: warn, progress: progress))
        }
        var (info, demuxer, truncated) = opened
        if let truncated { warn("\(truncated): converting what it holds") }
        if out.mayRenderHDR, !out.preset.passthrough, let probed = try? Prober.probe(path: input).video {
            // The HDR kept carries what only the first picture may say (SEI: mastering display, light level, HLG).
            info.video.hdrMetadata = probed.hdrMetadata
            info.video.color = probed.color
            // Dolby Vision on a PQ base (profile 8.1) says its light only in each shot's level 1: the HDR kept
            // carries what those add up to.
            if out.writesHDR, probed.color.hdrKind == .pq, probed.hdrMetadata.contentLightLevel == nil,
                let light = (try? Prober.dolbyVisionLight(path: input)) ?? nil  // a damaged stream converts without it
            {
                info.video.hdrMetadata.contentLightLevel = light
            }
        }
        let video = info.video
        let orientation = try info.supportedOrientation().then(clip.framing.turn)
        // The audio tracks asked for, checked before any output exists (a choice the input cannot meet is a usage error).
        _ = try demuxer.audioStreams(for: carry.audioTrack)
        if carry.audioTrack == .automatic, let codec = demuxer.undecodableAudio {
            warn(
                demuxer.audioStreamIndex == nil
                    ? "the audio (\(codec)) cannot be decoded here: the output has no audio"
                    : "the default audio track (\(codec)) cannot be decoded here: keeping the next audio track instead")
        }
        if out.preset.passthrough {
            // Passthrough must be sure the stream is SDR, which only its SEI may contradict: read it too.
            try Passthrough.check(try Prober.probe(path: input).video, input: input)
            return .written(
                try Passthrough.run(
                    timeline, info: info, demuxer: demuxer, orientation: orientation, started: started, warn: warn, progress: progress))
        }

        try clip.framing.check(video.displaySize, label: input)
        let (dw, dh) = clip.framing.size(video.displaySize)
        var renditions: [Ladder.Rendition] = []
        let target: (Int, Int)
        switch out.size {
        case .preset: target = TargetSize.fit(width: dw, height: dh, into: out.preset.box)
        case .box(let w, let h): target = TargetSize.inside(width: dw, height: dh, frameWidth: w, frameHeight: h)
        case .ladder(let ladder):
            renditions = TargetSize.renditions(of: ladder, width: dw, height: dh)
            target = (renditions[0].width, renditions[0].height)
        }
        // The part of the input used, on the clock its pictures, sound, chapters and subtitles all follow. The clip's
        // range is the input's own times; a speed or a flattened slow motion retimes what it selects.
        let retiming = try Retiming.decide(
            info, flatten: out.flattenSlowMotion, speed: clip.speed, tolerateErrors: out.tolerateErrors, label: input, warn: warn)
        let cutting = clip.from != nil || clip.duration != nil
        let cutStart = clip.from ?? .zero
        let clock =
            cutting
            ? ClipClock.trim(videoStart: demuxer.videoStart, from: cutStart, length: clip.duration, retiming: retiming)
            : ClipClock.whole(videoStart: demuxer.videoStart, lateStart: info.format.startTime ?? .zero, retiming: retiming)
        let cueClock = clock.map.isIdentity ? nil : CueClock(map: clock.map, origin: clock.origin, cut: cutStart)

        // Soft subtitles are read now too, on the output's clock (a cut moves and trims them).
        func onOutputClock(_ cues: [Cue], shift: MediaTime) -> [Cue] {
            let moved =
                cueClock.map { c in CaptionFile.retimed(cues, CueClock(map: c.map, origin: c.origin, cut: shift).output) }
                ?? CaptionFile.shifted(cues, by: -shift)
            guard let d = clock.length else { return moved }
            return moved.compactMap { c in c.start < d ? Cue(start: c.start, end: min(c.end, d), lines: c.lines, settings: c.settings) : nil }
        }
        var softSubtitles = try carry.subtitleFiles.map { entry in
            (cues: onOutputClock(try CaptionFile.cues(entry.file), shift: cutStart), language: entry.language)
        }
        // The input's own text subtitle tracks are kept (as mov_text, retimed with the picture).
        if carry.keepSubtitles && info.tracks.contains(where: { $0.type == "subtitle" }) {
            let start = max(info.format.startTime ?? .zero, .zero) + cutStart
            for track in try Demuxer(path: input).subtitleTracks {
                guard track.isText else { warn("subtitle track \(track.index) (\(track.codec)) is pictures: not kept"); continue }
                softSubtitles.append((onOutputClock(try CaptionFile.cues(ofTrack: track.index, in: input), shift: start), track.language))
            }
        }
        let rate = outputRate(out, source: demuxer.nominalFrameRate, slowMotion: info.slowMotion != nil, warn: warn)
        var plan = try RenderPlan.single(
            timeline, info: info, demuxer: demuxer, orientation: orientation, size: target, clock: clock, rate: rate.output)
        // Overlay pictures are decoded now: a bad one fails before any output exists.
        let layers =
            timeline.overlays.isEmpty
            ? nil
            : try RenderLayers(
                spec: timeline.overlaysOnOutputClock(clock: cueClock), width: target.0, height: target.1, range: plan.canvas.range,
                input: input, warn: warn)
        plan.renditions = renditions
        var carryOver = InputCarryOver(path: input, clock: clock, videoStart: demuxer.videoStart)
        carryOver.keepLocation = carry.keepLocation
        carryOver.keepChapters = carry.keepChapters
        carryOver.subtitles = softSubtitles
        carryOver.tolerateErrors = out.tolerateErrors
        carryOver.audio = carry.audioTrack
        carryOver.keepSound = clock.map.isIdentity || carry.retimedSound
        carryOver.metadata = carry.metadata
        return .render(
            PlannedExport(
                plan: plan, layers: layers, sound: .carried(carryOver),
                source: ConversionSource(hdr: video.hdrKind, orientation: orientation, flattened: retiming.flattened != nil, rate: rate)))
    }

    /// The rate a conversion writes: `--fps`'s (a rate above the source's repeats pictures: said once), the
    /// source's own with `--fps source`, and otherwise the source's own picture times, kept to at most
    /// `FrameRate.presetCeiling` by a size preset or a ladder (every k-th picture on an exact clock, the length
    /// unchanged). A slow-motion recording keeps its own rules.
    static func outputRate(_ out: OutputSpec, source: FrameRate, slowMotion: Bool, warn: WarningHandler) -> RateDecision {
        if let asked = out.fps {
            if asked.fps > source.fps * 1.001 {
                warn(
                    String(
                        format: "--fps %@ is above the source's %@ fps: pictures are repeated (each about %.1f times)", asked.description,
                        source.description, asked.fps / source.fps))
            }
            return RateDecision(source: source, output: asked, rule: "--fps")
        }
        if out.keepSourceRate { return RateDecision(source: source, output: nil, rule: "--fps source") }
        let sized: Bool
        switch out.size {
        case .preset, .ladder: sized = !out.preset.passthrough
        case .box: sized = false
        }
        if sized, !slowMotion, let thin = source.thinned() {
            return RateDecision(
                source: source, output: thin.rate,
                rule: "every \(ordinal(thin.every)) picture: a size preset writes at most \(Int(FrameRate.presetCeiling)) fps"
            )
        }
        return RateDecision(source: source, output: nil, rule: "source timing")
    }

    /// "2nd", "3rd", "4th" (the few a rate ceiling keeps: every k-th picture up to 240 fps).
    private static func ordinal(_ n: Int) -> String { "\(n)" + (n == 2 ? "nd" : n == 3 ? "rd" : "th") }
}
