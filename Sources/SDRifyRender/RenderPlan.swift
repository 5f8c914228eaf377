import Foundation
import SDRifyAudio
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyProbe
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// What times the output's pictures.
package enum PictureClock: Equatable, Sendable {
    /// Picture n at n / rate: a composition, or a conversion with --fps (each output time shows the source picture
    /// nearest to it).
    case constant(FrameRate)
    /// The one clip's own picture times (a conversion: a variable frame rate stays variable), on its video's ticks.
    case source(TimeBase)
}

/// A timeline with every clip's headers read: what each clip is, which part of it shows, and where, in whole
/// output frames (so pictures and sound share one exact clock). Made before any output exists; a clip that cannot
/// be read fails here with the clip's own error (exit 2/3), a description that does not fit the media with 64.
/// A conversion is the one-clip plan (`single`), timed by the source's own clock unless it asks for a rate.
package struct RenderPlan {
    package enum Content {
        case video(info: MediaInfo, orientation: Orientation)
        case image(path: String)
        case color(RGBColor)
        /// A split screen: its cells, each planned as a clip of its own, shown together in the layout's cells.
        case split(cells: [Clip], layout: SplitLayout)
    }

    package struct Clip {
        package let index: Int
        let name: String  // for messages: "clip 2 (a.mov)"
        package let spec: TimelineClip
        package let content: Content
        package let fit: Fit
        package let from: MediaTime  // on the clip's own clock, where it starts showing (videos)
        package var sourceStart = MediaTime.zero  // the video's first timestamp: its own clock's 0
        package let length: MediaTime  // how long it shows, before rounding to frames
        var sourceLength: MediaTime? = nil  // the part of the video used, on its own clock (videos)
        var retiming = Retiming.none  // slow motion flattened, a speed (videos)
        package var startFrame = 0  // first output frame
        package var frames = 0  // output frames it shows (transitions included)
        var transitionFrames = 0  // overlap with the next clip
        /// The clip's source clock mapped to its pictures' (videos): its range, or a conversion's own clock.
        package var clock: ClipClock {
            givenClock ?? ClipClock.trim(videoStart: sourceStart, from: from, length: sourceLength ?? length, retiming: retiming)
        }
        var givenClock: ClipClock? = nil
        /// The input already open, its headers read through it (a conversion's): the render reads on from there.
        var demuxer: Demuxer? = nil
        /// Its pictures in the picture (`"pip"`), in drawing order.
        package var pips: [PlacedPictureInPicture] = []
        var hasAudio: Bool {
            switch content {
            case .video(let info, _): !info.audio.isEmpty
            case .split(let cells, _): cells.contains(where: \.hasAudio)
            case .image, .color: false
            }
        }
        /// The videos it shows (a split screen's cells').
        var videos: [MediaInfo] {
            switch content {
            case .video(let info, _): [info]
            case .split(let cells, _): cells.flatMap(\.videos)
            case .image, .color: []
            }
        }
        var endFrame: Int { startFrame + frames }

        package var path: String? {
            switch content {
            case .video(let info, _): info.path;
            case .image(let p): p;
            case .color, .split: nil
            }
        }
    }

    /// A picture in a picture as planned: its video planned as a clip of its own (its part, clock and length, its
    /// upright shape), its motion over the carrying clip, and the output frames it shows (within its clip's).
    package struct PlacedPictureInPicture {
        let clip: Clip
        let spec: PictureInPicture
        let shape: (width: Int, height: Int)
        package var startFrame = 0
        package var endFrame = 0
        /// Its sound's number for the mixer, after the clips' (RenderPlan.sound(voice:)).
        var voice = 0
    }

    package let timeline: Timeline
    package let canvas: Canvas
    /// The nominal rate (the constant clock's, or the source's average).
    package let fps: FrameRate
    package let clock: PictureClock
    package var clips: [Clip]
    /// Output pictures (with the source's clock: as many as the nominal rate gives, for progress only).
    let totalFrames: Int
    /// A ladder's renditions (`hls`), largest first: the first is the canvas, the sinks scale the others from it.
    package var renditions: [Ladder.Rendition] = []

    package var totalSeconds: Double { fps.time(ofFrame: totalFrames).seconds }

    /// An HDR render's pictures made SDR, for the outputs that show SDR beside the HDR kept (`hls --ranges sdr,hdr`):
    /// tone mapped once, at the render's size, as a conversion tone maps its source (the scene curve follows the
    /// rendered pictures). With `layers`, each is made of the picture as it was before them and gets them in SDR.
    package func sdrPictures(toneMap: ToneMapping, layers: RenderLayers?) throws -> (Frame) throws -> Frame {
        let kind = canvas.range
        precondition(kind != .sdr, "an SDR render is SDR already")
        let converter = try FrameConverter(
            sourceFormat: .output(kind), sourceColor: .output(kind), width: canvas.width, height: canvas.height,
            outputWidth: canvas.width, outputHeight: canvas.height,
            toneCurve: ToneCurve(toneMap.op, sourcePeak: hdrMetadata.sourcePeak(for: kind), exposure: toneMap.exposure),
            scenes: toneMap.op == .auto ? SceneTracker() : nil)
        let sdrLayers = try layers?.sdrLayers()
        return { picture in
            let under = layers?.underLayers(of: picture)
            let sdr = try converter.convert(under?.picture ?? picture, format: .output(kind))
            sdr.duration = picture.duration
            if let under, let sdrLayers { sdrLayers.apply(to: sdr, time: under.time) }
            return sdr
        }
    }

    /// The static HDR metadata an HDR render carries: its first clip's of the render's kind, as its headers say
    /// (none for SDR renders, or HDR made of SDR sources).
    package var hdrMetadata: HDRMetadata {
        guard canvas.range != .sdr else { return HDRMetadata() }
        for info in clips.flatMap(\.videos) where info.video.color.hdrKind == canvas.range { return info.video.hdrMetadata }
        return HDRMetadata()
    }

    /// How long the output will be, as far as the headers tell (nil when they do not).
    package var expectedLength: MediaTime? {
        let length = clock == .constant(fps) ? fps.time(ofFrame: totalFrames) : clips[0].length
        return length > .zero ? length : nil
    }

    /// A conversion: one video on a canvas of its own output size, its part `clock`, `seconds` long, timed by its own
    /// clock or, with `rate`, by that constant rate.
    package static func single(
        _ timeline: Timeline, info: MediaInfo, demuxer: Demuxer, orientation: Orientation,
        size: (width: Int, height: Int), clock: ClipClock, rate: FrameRate?
    ) throws -> RenderPlan {
        let from = clock.isCut ? clock.start - demuxer.videoStart : .zero
        // The length matters to a constant rate (how many pictures); with the source's clock only to progress.
        let whole = rate == nil && clock.map.isIdentity ? (info.format.duration ?? .zero) : try videoLength(info, demuxer)
        // A start at or past the video's end selects nothing: the request's fault, said before any output exists.
        // (A raw stream states no length: its pictures decide.)
        let videoEnd = demuxer.videoLength ?? whole
        if from > .zero, whole > .zero, from >= min(whole, videoEnd) {
            throw SDRifyError.usage(
                String(
                    format: "--start %.3f s is past the end of the video (%.3f s): the range is empty", from.seconds,
                    min(whole, videoEnd).seconds))
        }
        let available = whole - from
        let sourceLength = max(.zero, min(clock.end.map { $0 - clock.start } ?? available, available))
        let length = clock.outputLength(from: demuxer.videoStart + from, length: sourceLength)
        let sourceKind = info.video.color.hdrKind
        let range = timeline.output.renderKind(firstHDRSource: sourceKind == .sdr ? nil : sourceKind)
        let canvas = Canvas(
            width: size.width, height: size.height,
            backdrop: try Backdrop(timeline.background, width: size.width, height: size.height, range: range), range: range)
        let fps = rate ?? demuxer.nominalFrameRate  // the rate it was shot at: the encoder's and HLS's FRAME-RATE
        var clip = Clip(
            index: 0, name: info.path, spec: timeline.clips[0], content: .video(info: info, orientation: orientation),
            fit: .stretch, from: from, sourceStart: demuxer.videoStart, length: length, sourceLength: sourceLength,
            retiming: Retiming(map: clock.map, flattened: clock.flattened), givenClock: clock, demuxer: demuxer)
        clip.frames = max(1, fps.frames(in: clip.length))
        return RenderPlan(
            timeline: timeline, canvas: canvas, fps: fps,
            clock: rate.map { .constant($0) } ?? .source(demuxer.videoTimeBase), clips: [clip], totalFrames: clip.frames)
    }

    /// How long a video lasts: its track's duration, the file's, or (a raw bitstream) its pictures at the nominal
    /// rate; an MPEG-TS/PS's re-based pictures (read through once by a demuxer of its own: a splice makes the
    /// headers' span wrong).
    static func videoLength(_ info: MediaInfo, _ demuxer: Demuxer) throws -> MediaTime {
        if demuxer.allowsDiscontinuities, let length = try Demuxer(path: info.path).rebasedVideoLength() { return length }
        var length = demuxer.videoLength ?? info.format.duration
        if length == nil { length = demuxer.videoFrameRate.time(ofFrame: try demuxer.countVideoPackets()) }
        guard let length, length > .zero else { throw SDRifyError.invalidInput("\(info.path): no video frames") }
        return length
    }

    package static func make(_ timeline: Timeline, name: (Int) -> String, warn: WarningHandler) throws -> RenderPlan {
        let out = timeline.output
        var clips: [Clip] = []
        var firstShape: (width: Int, height: Int)? = nil
        var largest: (long: Int, short: Int)? = nil
        var firstRate: FrameRate? = nil
        func sized(_ w: Int, _ h: Int) {
            if firstShape == nil { firstShape = (w, h) }
            largest = (max(largest?.long ?? 0, max(w, h)), max(largest?.short ?? 0, min(w, h)))
        }
        for (i, spec) in timeline.clips.enumerated() {
            let planned = try Clip.plan(spec, index: i, label: name(i), output: out, shapeKnown: firstShape != nil, warn: warn)
            if let shape = planned.shape { sized(shape.width, shape.height) }
            if firstRate == nil { firstRate = planned.rate }
            clips.append(planned.clip)
        }
        let size = Canvas.size(firstShape: firstShape, largest: largest, box: out.preset.box)
        // The HDR kept (`--range hdr`): the first HDR clip's kind; SDR clips, stills and colours are placed in it.
        let firstHDR = clips.lazy.flatMap(\.videos).map(\.video.color.hdrKind).first { $0 != .sdr }
        let range = out.renderKind(firstHDRSource: firstHDR)
        let canvas = Canvas(
            width: size.width, height: size.height,
            backdrop: try Backdrop(timeline.background, width: size.width, height: size.height, range: range), range: range)
        // A composition's rate: the asked one, or the first video clip's, at most a size preset's ceiling.
        let first = firstRate ?? FrameRate(num: 30, den: 1)
        let fps = out.fps ?? (out.keepSourceRate ? first : first.thinned()?.rate ?? first)

        // Whole frames: each clip's length, each overlap, and where each clip starts.
        for i in clips.indices { clips[i].frames = max(1, fps.frames(in: clips[i].length)) }
        var start = 0
        for i in clips.indices {
            clips[i].startFrame = start
            guard i + 1 < clips.count else { break }
            let t = clips[i].spec.transition
            if t.kind != .none {
                for n in [i, i + 1] where t.duration > clips[n].length.half {
                    let which = n == i ? "this clip" : "the next clip,"
                    throw SDRifyError.usage(
                        String(
                            format: "\(clips[i].name): its %.3g s transition is longer than half of \(which) which shows %.3f s",
                            t.duration.seconds, clips[n].length.seconds))
                }
                clips[i].transitionFrames = min(fps.frames(in: t.duration), clips[i].frames / 2, clips[i + 1].frames / 2)
            }
            start += clips[i].frames - clips[i].transitionFrames
        }
        // Each picture in a picture from its start (seconds from its clip's first picture) to its end, or for as long
        // as its video lasts, never past its clip.
        var voice = clips.count
        for i in clips.indices {
            for k in clips[i].pips.indices {
                let pip = clips[i].pips[k], placement = pip.spec.placement
                let first = clips[i].startFrame + fps.frames(in: MediaTime(seconds: placement.start))
                let last =
                    placement.end.map { clips[i].startFrame + fps.frames(in: MediaTime(seconds: $0)) } ?? first + fps.frames(in: pip.clip.length)
                clips[i].pips[k].startFrame = min(first, clips[i].endFrame)
                clips[i].pips[k].endFrame = max(clips[i].pips[k].startFrame, min(last, clips[i].endFrame))
                clips[i].pips[k].voice = voice
                voice += 1
            }
        }
        let total = clips.last!.endFrame
        return RenderPlan(timeline: timeline, canvas: canvas, fps: fps, clock: .constant(fps), clips: clips, totalFrames: total)
    }
}

extension MediaInfo {
    /// The orientation to apply to the video, or the refusal of what sdrify does not handle, with the reason.
    package func supportedOrientation() throws -> Orientation {
        let orientation: Orientation
        switch video.orientation {
        case .known(let o): orientation = o
        case .unsupported(let m):
            throw SDRifyError.unsupported(
                "\(path): display matrix \(m.components) is not one of the eight orientations (rotation by a multiple of 90° with or without a mirror)"
            )
        }
        if let dv = video.dolbyVision, dv.profile == 5 || dv.blCompatibilityID == 0 {
            throw SDRifyError.unsupported(
                "\(path): Dolby Vision profile \(dv.profile) has no HDR10/HLG/SDR-compatible base layer; it needs Dolby reshaping, which sdrify does not do"
            )
        }
        return orientation
    }
}

extension RenderPlan {
    /// Where each clip's own sound plays, in output samples at `rate` (whole output frames, so sound and pictures
    /// share one clock), with the crossfades of the transitions. Clips without sound are left out.
    package func soundSegments(rate: Int) -> (segments: [AudioMixer.Segment], totalSamples: Int) {
        func sample(_ frame: Int) -> Int { fps.sample(ofFrame: frame, sampleRate: rate) }
        var previousOverlap = 0
        let segments = clips.map { c in
            let s = AudioMixer.Segment(
                clip: c.index, start: sample(c.startFrame), length: sample(c.endFrame) - sample(c.startFrame),
                fadeIn: previousOverlap, fadeOut: sample(c.endFrame) - sample(c.endFrame - c.transitionFrames),
                volume: Float(c.spec.volume))
            previousOverlap = s.fadeOut
            return s
        }.filter { clips[$0.clip].hasAudio }
        let pips = clips.flatMap(\.pips).filter { $0.clip.hasAudio && $0.endFrame > $0.startFrame }.map { pip in
            AudioMixer.Segment(
                clip: pip.voice, start: sample(pip.startFrame), length: sample(pip.endFrame) - sample(pip.startFrame), fadeIn: 0,
                fadeOut: 0, volume: Float(pip.spec.volume))
        }
        return (segments + pips, sample(totalFrames))
    }

    /// The sound of mixer voice `voice`: a clip's (its index), or a picture in a picture's (`PlacedPictureInPicture.voice`).
    package func sound(voice: Int, tolerateErrors: Bool) throws -> SoundReader? {
        if voice < clips.count { return try clips[voice].sound(tolerateErrors: tolerateErrors) }
        guard let pip = clips.lazy.flatMap(\.pips).first(where: { $0.voice == voice }) else { return nil }
        return try pip.clip.sound(tolerateErrors: tolerateErrors)
    }
}
