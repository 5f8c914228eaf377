import Foundation

/// What a conversion is asked to do.
public struct ConvertOptions: Sendable {
    public var input: String
    public var output: String
    public var preset: ExportPreset
    public var overwrite = false
    public var crf: Int? = nil
    public var encoderPreset: String? = nil  // x264/x265 speed preset; default from the preset
    public var start: Double? = nil          // seconds from the beginning of the input
    public var duration: Double? = nil       // seconds
    public var keepLocation = false
    public var keepChapters = true   // the input's chapters, retimed by start/duration
    public var keepSubtitles = true  // the input's text subtitle tracks, retimed by start/duration
    public var overlays = OverlaySpec()
    public var subtitles: [(file: String, language: String?)] = []   // soft subtitle tracks to write (mov_text)
    public var background = Background.black   // behind the picture when the source shrinks mid-stream
    public var threads = 0  // 0 = automatic
    public var toneMap = ToneMapOperator.default
    /// Conceal decode errors and go on (counted in the result) instead of failing with exit 2.
    public var tolerateErrors = false
    /// Our own check of H.264 and HEVC slice data (BitstreamCheck): on unless the caller trusts its input.
    public var checkBitstream = true

    public init(input: String, output: String, preset: ExportPreset) {
        self.input = input; self.output = output; self.preset = preset
    }

    /// A conversion is the one-clip timeline: its values are checked where a composition's are. (It runs on its
    /// own fast path: source timestamps kept, AAC copied.)
    public var timeline: Timeline {
        var out = OutputSpec(path: output, preset: preset)
        out.overwrite = overwrite; out.crf = crf; out.encoderPreset = encoderPreset; out.threads = threads
        out.toneMap = toneMap; out.tolerateErrors = tolerateErrors; out.background = background
        out.checkBitstream = checkBitstream
        var clip = TimelineClip(source: .video(input))
        clip.from = start
        clip.duration = duration
        var t = Timeline(output: out, clips: [clip])
        t.overlays = overlays
        return t
    }

    /// The layers on the output's clock: caption files follow the input's, so a `start` cut moves them earlier.
    var outputOverlays: OverlaySpec {
        var spec = overlays
        for i in spec.captions.indices { spec.captions[i].offset -= start ?? 0 }
        for i in spec.titles.indices where spec.titles[i].source.map({ if case .track = $0 { true } else { false } }) ?? false {
            spec.titles[i].sourceOffset -= start ?? 0   // a track of the input runs on the input's clock
        }
        return spec
    }

}

/// What a finished conversion reports (`convert --json`).
public struct ConversionResult: Sendable {
    public var input: String
    public var output: String
    public var preset: String
    public var width: Int
    public var height: Int
    public var duration: Double   // seconds of video written
    public var frames: Int
    public var hdr: HDRKind
    public var orientationExif: Int
    public var toneMapping: String
    /// What `auto` did (scenes, levels, exposure), when it tone mapped.
    public var toneMappingDetail: JSONValue? = nil
    public var decodeErrors: Int  // concealed with --tolerate-errors
    public var elapsed: Double    // seconds
    /// H.264 slices and HEVC slice segments our own check parsed to their end, and those it left unchecked (BitstreamCheck).
    public var slicesChecked: (checked: Int, unchecked: Int)? = nil

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("output", .string(output)), ("preset", .string(preset)),
            ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("duration", .double(duration)),
            ("frames", .int(Int64(frames))), ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])), ("tonemap", .string(toneMapping))]
        if let toneMappingDetail { fields.append(("tone_mapping", toneMappingDetail)) }
        fields.append(("decode_errors", .int(Int64(decodeErrors))))
        if let slicesChecked {
            fields.append(("bitstream_check", .object([("slices_checked", .int(Int64(slicesChecked.checked))),
                                                       ("slices_unchecked", .int(Int64(slicesChecked.unchecked)))])))
        }
        fields.append(("elapsed_s", .double((elapsed * 1000).rounded() / 1000)))
        return .object(fields)
    }
}

/// Wires the stages: Demuxer → Decoder → FrameConverter (scale + colour) → FrameOrienter → Encoder → Muxer,
/// with the audio copied or transcoded alongside (AudioOutput).
public enum Transcoder {
    public typealias Warning = @Sendable (String) -> Void
    public typealias ProgressHandler = @Sendable (ConversionProgress) -> Void

    public static func run(_ options: ConvertOptions, warn: @escaping Warning = { _ in },
                           progress: @escaping ProgressHandler = { _ in }) throws -> ConversionResult {
        let started = Date()
        try options.timeline.validate { _ in options.input }
        let muxerName = try CodecCatalog.muxer(forOutput: options.output)
        if options.preset.passthrough, !options.overlays.isEmpty {
            throw SDRifyError.usage("Passthrough copies the video; overlays need a preset that re-encodes")
        }
        if options.preset.passthrough, options.start != nil || options.duration != nil {
            throw SDRifyError.usage("Passthrough copies whole files; a start or duration needs a preset that re-encodes")
        }

        // Read the headers first: they validate the input and give orientation, colour and size. The same open
        // input is then converted (the first picture's SEI is read by the pipeline when it decodes it).
        // --tolerate-errors converts what a file cut short still holds (an interrupted upload, say).
        let opened: (info: MediaInfo, demuxer: Demuxer, truncated: String?)
        do {
            opened = try Prober.open(path: options.input, allowTruncated: options.tolerateErrors)
        } catch {
            // Sound without pictures becomes a video of the background (looked at only when there is no video), unless
            // the pictures went missing with a damaged movie box (a video track whose handler box is broken).
            guard !options.preset.passthrough, let length = AudioOnlyConversion.length(of: options.input) else { throw error }
            if let broken = MovieStructure.problem(path: options.input) {
                guard options.tolerateErrors else { throw SDRifyError.invalidInput("\(options.input): \(broken)") }
                warn("\(options.input): \(broken): converting what it holds")
            }
            return try AudioOnlyConversion.run(options, length: length, warn: warn, progress: progress)
        }
        let (info, demuxer, truncated) = opened
        if let truncated { warn("\(truncated): converting what it holds") }
        let video = info.video
        let orientation = try checkSupported(video, input: options.input)
        if let codec = demuxer.undecodableAudio {
            warn(demuxer.audioStreamIndex == nil ? "the audio (\(codec)) cannot be decoded here: the output has no audio"
                 : "the default audio track (\(codec)) cannot be decoded here: keeping the next audio track instead")
        }
        // Passthrough must be sure the stream is SDR, which only its SEI may contradict: read it too.
        if options.preset.passthrough { try checkPassthrough(try Prober.probe(path: options.input).video, input: options.input) }

        let (dw, dh) = video.displaySize
        let target = options.preset.passthrough ? (video.width, video.height)
            : TargetSize.fit(width: dw, height: dh, into: options.preset.box)

        // Soft subtitles are read now too, on the output's clock (a cut moves and trims them).
        func onOutputClock(_ cues: [Cue], shift: Double) -> [Cue] {
            let moved = CaptionFile.shifted(cues, by: -shift)
            guard let d = options.duration else { return moved }
            return moved.compactMap { c in c.start < d ? Cue(start: c.start, end: min(c.end, d), lines: c.lines, settings: c.settings) : nil }
        }
        var softSubtitles = try options.subtitles.map { entry in
            (cues: onOutputClock(try CaptionFile.cues(entry.file), shift: options.start ?? 0), language: entry.language)
        }
        // The input's own text subtitle tracks are kept (as mov_text, retimed with the picture).
        if options.keepSubtitles && info.tracks.contains(where: { $0.type == "subtitle" }) {
            let start = max(info.format.startTime ?? 0, 0) + (options.start ?? 0)
            for track in try Demuxer(path: options.input).subtitleTracks {
                guard track.isText else { warn("subtitle track \(track.index) (\(track.codec)) is pictures: not kept"); continue }
                softSubtitles.append((onOutputClock(try CaptionFile.cues(ofTrack: track.index, in: options.input), shift: start), track.language))
            }
        }
        // Overlay pictures are decoded now: a bad one fails before any output exists.
        let overlays = options.overlays.isEmpty ? nil
            : try OverlayStage(spec: options.outputOverlays, frameWidth: target.0, frameHeight: target.1, input: options.input)
        let output = try AtomicOutput.open(finalPath: options.output, inputPaths: [options.input], overwrite: options.overwrite)
        defer { output.discard() }
        let muxer = try Muxer(fd: output.fd, path: options.output, formatName: muxerName)
        let tb = demuxer.videoTimeBase
        let videoStart = Double(demuxer.videoStartTicks) * tb.seconds

        // A cut [start, start + duration) of the input's own clock becomes [0, duration) in the output.
        let cutting = options.start != nil || options.duration != nil
        let cutStart = videoStart + (options.start ?? 0)
        // Without a cut, a file that starts late (a positive start time) is moved to start at 0, all streams
        // together; early starts (AAC priming) stay, as edit lists express them.
        let lateStart = max(info.format.startTime ?? 0, 0)
        let shift = cutting ? cutStart : lateStart
        let cutEnd = options.duration.map { cutStart + $0 }
        if let start = options.start, start > 0 { try demuxer.seek(toSeconds: cutStart) }

        var frames = 0, decodeErrors = 0
        var slicesChecked: (checked: Int, unchecked: Int)? = nil
        var convertedFrom: ColorDescription? = nil
        var toneDetail: JSONValue? = nil
        var firstPTS: Int64? = nil, lastPTS: Int64? = nil
        var lastDuration: Int64? = nil
        let frameRate = demuxer.videoFrameRate
        let frameTicks = frameRate.num > 0 ? max(1, Int64((1 / frameRate.seconds / tb.seconds).rounded())) : 1
        var lastReport = Date.distantPast  // the first frame reports at once, later ones every 0.25 s
        let totalTime = options.duration ?? info.format.duration.map { $0 - (options.start ?? 0) }

        func report(_ pts: Int64, finished: Bool) {
            let now = Date()
            guard finished || now.timeIntervalSince(lastReport) >= 0.25 else { return }
            lastReport = now
            progress(ConversionProgress(frames: frames, outTime: Double(pts - (firstPTS ?? pts) + (finished ? frameTicks : 0)) * tb.seconds,
                                        totalTime: totalTime, elapsed: now.timeIntervalSince(started), finished: finished))
        }

        if options.preset.passthrough {
            let outVideo = try muxer.addCopiedVideoStream(from: demuxer)
            let audio = try AudioOutput(demuxer: demuxer, muxer: muxer, shift: lateStart, end: nil)
            let shiftTicks = tb.ticks(lateStart)
            muxer.copyMetadata(from: demuxer, keepLocation: options.keepLocation)
            let subtitleTracks = try softSubtitles.map { (try SubtitleTrack(muxer: muxer, language: $0.language), $0.cues) }
            if options.keepChapters { try muxer.copyChapters(from: demuxer, shift: lateStart, end: nil) }
            try muxer.writeHeader()
            for (track, cues) in subtitleTracks { try track.write(cues, to: muxer) }
            let packet = try Packet()
            while try demuxer.readPacket(into: packet) {
                if packet.streamIndex == demuxer.videoStreamIndex {
                    packet.shift(by: shiftTicks)
                    if let pts = packet.pts { firstPTS = firstPTS ?? pts; lastPTS = max(lastPTS ?? pts, pts); report(pts, finished: false) }
                    frames += 1
                    try muxer.write(packet, stream: outVideo, from: tb)
                } else if let audio, audio.owns(packet) {
                    try audio.handle(packet, muxer: muxer)
                }
            }
            try audio?.finish(muxer: muxer)
        } else {
            let (decodeThreads, encodeThreads) = ThreadBudget.split(options.threads, sourcePixels: video.width * video.height,
                                                                    outputPixels: target.0 * target.1, encoder: options.preset.codec)
            let decoder = try Decoder(videoOf: demuxer, threads: decodeThreads)
            let settings = VideoEncoderSettings(codec: options.preset.codec, crf: options.crf ?? options.preset.crf,
                                                preset: options.encoderPreset ?? options.preset.encoderPreset,
                                                threads: encodeThreads)
            let encoder = try VideoEncoder(width: target.0, height: target.1, timeBase: tb, frameRate: frameRate,
                                           settings: settings, globalHeader: muxer.needsGlobalHeader)
            let outVideo = try muxer.addStream(from: encoder)
            let audio = try AudioOutput(demuxer: demuxer, muxer: muxer, shift: shift, end: cutEnd)
            muxer.copyMetadata(from: demuxer, keepLocation: options.keepLocation)
            let subtitleTracks = try softSubtitles.map { (try SubtitleTrack(muxer: muxer, language: $0.language), $0.cues) }
            if options.keepChapters { try muxer.copyChapters(from: demuxer, shift: shift, end: options.duration) }
            try muxer.writeHeader()
            for (track, cues) in subtitleTracks { try track.write(cues, to: muxer) }
            let clip = ClipDecoder(label: options.input, tolerateErrors: options.tolerateErrors,
                                   checkBitstream: options.checkBitstream, video: video, demuxer: demuxer,
                                   decoder: decoder, audio: audio, orientation: orientation,
                                   range: .init(active: cutting, start: cutStart, end: cutEnd, shiftTicks: tb.ticks(shift)), warn: warn)
            // Each picture may wait in `converted` and in the encoder while the next ones are made.
            let chain = ClipChain(label: options.input, video: video, orientation: orientation, size: target, toneMap: options.toneMap,
                                  ringSize: StreamingConversion.pictureRing, timeBase: tb, background: options.timeline.background, warn: warn)
            let conversion = StreamingConversion(
                clip: clip, chain: chain, tolerateErrors: options.tolerateErrors, threads: options.threads,
                encoder: encoder, muxer: muxer, outVideo: outVideo, overlays: overlays,
                report: { n, pts, first in frames = n; firstPTS = first; report(pts, finished: false) })
            try conversion.run()
            frames = conversion.frames
            convertedFrom = chain.sourceColor
            if chain.toneMapped && options.toneMap == .auto { toneDetail = chain.scenes.report }
            decodeErrors = conversion.errorsConcealed
            slicesChecked = clip.bitstreamCheck?.counts
            firstPTS = clip.firstPTS
            lastPTS = clip.lastPTS
            lastDuration = clip.lastDuration
            guard frames > 0 else {
                throw SDRifyError.invalidInput(cutting ? "\(options.input): no video frames in the requested range"
                                                        : "\(options.input): no decodable video frames")
            }
        }
        try muxer.finish()
        try output.commit()

        let duration = Double((lastPTS ?? 0) - (firstPTS ?? 0) + (lastDuration ?? frameTicks)) * tb.seconds
        let hdr = convertedFrom?.hdrKind ?? video.hdrKind  // what the pictures said, e.g. HLG by SEI
        progress(ConversionProgress(frames: frames, outTime: duration, totalTime: totalTime,
                                    elapsed: Date().timeIntervalSince(started), finished: true))
        var result = ConversionResult(input: options.input, output: options.output, preset: options.preset.name,
                                width: target.0, height: target.1, duration: duration, frames: frames,
                                hdr: hdr, orientationExif: orientation.rawValue,
                                toneMapping: hdr == .sdr || options.preset.passthrough ? "none" : options.toneMap.rawValue,
                                decodeErrors: decodeErrors, elapsed: Date().timeIntervalSince(started))
        result.toneMappingDetail = toneDetail
        result.slicesChecked = slicesChecked
        return result
    }

    /// Refuses what sdrify does not handle, with the reason; returns the orientation to apply.
    static func checkSupported(_ video: VideoInfo, input: String) throws -> Orientation {
        let orientation: Orientation
        switch video.orientation {
        case .known(let o): orientation = o
        case .unsupported(let m):
            throw SDRifyError.unsupported("\(input): display matrix \(m.components) is not one of the eight orientations (rotation by a multiple of 90° with or without a mirror)")
        }
        if let dv = video.dolbyVision, dv.profile == 5 || dv.blCompatibilityID == 0 {
            throw SDRifyError.unsupported("\(input): Dolby Vision profile \(dv.profile) has no HDR10/HLG/SDR-compatible base layer; it needs Dolby reshaping, which sdrify does not do")
        }
        return orientation
    }

    /// Passthrough only remuxes, so the input must already be what every output is.
    static func checkPassthrough(_ video: VideoInfo, input: String) throws {
        var reasons: [String] = []
        if video.hdrKind != .sdr { reasons.append("it is \(video.hdrKind.rawValue.uppercased()) HDR") }
        if case .known(let o) = video.orientation, o != .up { reasons.append("it is stored turned (EXIF \(o.rawValue))") }
        if !["h264", "hevc"].contains(video.codec) { reasons.append("its codec is \(video.codec)") }
        if let order = video.fieldOrder, order != "progressive" { reasons.append("it is interlaced") }
        if video.bitDepth != 8 || !["yuv420p", "yuvj420p"].contains(video.pixelFormat) { reasons.append("it is \(video.pixelFormat), not 8-bit 4:2:0") }
        if !reasons.isEmpty {
            throw SDRifyError.unsupported("\(input): Passthrough only remuxes SDR, upright, 8-bit 4:2:0 H.264/HEVC, but \(reasons.joined(separator: " and ")); use another preset")
        }
    }
}
