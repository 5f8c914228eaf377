import Foundation

/// A timeline with every clip's headers read: what each clip is, which part of it shows, and where, in whole
/// output frames (so pictures and sound share one exact clock). Made before any output exists; a clip that cannot
/// be read fails here with the clip's own error (exit 2/3), a description that does not fit the media with 64.
struct CompositionPlan {
    enum Content {
        case video(info: MediaInfo, orientation: Orientation)
        case image(path: String)
        case color(RGBColor)
    }

    struct Clip {
        let index: Int
        let name: String            // for messages: "clip 2 (a.mov)"
        let spec: TimelineClip
        let content: Content
        let fit: Fit
        let from: Double            // seconds of the clip's own clock where it starts showing (videos)
        var sourceStart = 0.0       // the video's first timestamp (seconds): its own clock's 0
        let seconds: Double         // how long it shows, before rounding to frames
        var startFrame = 0          // first output frame
        var frames = 0              // output frames it shows (transitions included)
        var transitionFrames = 0    // overlap with the next clip
        var hasAudio: Bool { if case .video(let info, _) = content { return !info.audio.isEmpty } else { return false } }
        var endFrame: Int { startFrame + frames }

        var path: String? { switch content { case .video(let info, _): info.path; case .image(let p): p; case .color: nil } }
    }

    let timeline: Timeline
    let canvas: Canvas
    let fps: FrameRate
    var clips: [Clip]
    let totalFrames: Int

    var totalSeconds: Double { fps.time(ofFrame: totalFrames).seconds }

    static func make(_ timeline: Timeline, name: (Int) -> String, warn: Transcoder.Warning) throws -> CompositionPlan {
        let out = timeline.output
        var clips: [Clip] = []
        var firstShape: (width: Int, height: Int)? = nil
        var largest: (long: Int, short: Int)? = nil
        var firstRate: Double? = nil
        func sized(_ w: Int, _ h: Int) {
            if firstShape == nil { firstShape = (w, h) }
            largest = (max(largest?.long ?? 0, max(w, h)), max(largest?.short ?? 0, min(w, h)))
        }
        for (i, spec) in timeline.clips.enumerated() {
            let label = name(i)
            let fit = spec.fit ?? out.fit
            switch spec.source {
            case .color(let c):
                clips.append(Clip(index: i, name: label, spec: spec, content: .color(c), fit: fit, from: 0,
                                  seconds: spec.duration ?? out.imageDuration))
            case .video(let path), .image(let path):
                switch try Prober.openClip(path: path, allowTruncated: out.tolerateErrors) {
                case .still(let w, let h):
                    if spec.from != nil || spec.to != nil {
                        throw SDRifyError.usage("\(label): a still picture takes a duration, not from/to")
                    }
                    if firstShape == nil {
                        // The first clip sets the output's shape: a photo's EXIF orientation counts.
                        let upright = try ImageDecoder.decode(path: path, maxPixels: StillPicture.maxPixels, firstOnly: true)[0]
                        sized(upright.width, upright.height)
                    } else { sized(w, h) }
                    clips.append(Clip(index: i, name: label, spec: spec, content: .image(path: path), fit: fit, from: 0,
                                      seconds: spec.duration ?? out.imageDuration))
                case .video(let info, let demuxer, let truncated):
                    if let truncated { warn("\(truncated): composing what it holds") }
                    if let codec = demuxer.undecodableAudio {
                        warn("\(path): the audio (\(codec)) cannot be decoded here: \(demuxer.audioStreamIndex == nil ? "silence instead" : "the next audio track instead")")
                    }
                    if case .image = spec.source { throw SDRifyError.usage("\(label): is a video, not a still picture") }
                    let orientation = try Transcoder.checkSupported(info.video, input: path)
                    let tb = demuxer.videoTimeBase
                    var length = demuxer.videoDurationTicks.map { Double($0) * tb.seconds } ?? info.format.duration
                    if length == nil {  // a raw bitstream: its pictures at the nominal rate
                        length = Double(try demuxer.countVideoPackets()) / demuxer.videoFrameRate.seconds  // (a rate: frames per second)
                    }
                    guard let length, length > 0 else { throw SDRifyError.invalidInput("\(path): no video frames") }
                    let from = spec.from ?? 0
                    guard from < length else {
                        throw SDRifyError.usage(String(format: "\(label): from (%.3f s) is past the end of the video (%.3f s)", from, length))
                    }
                    var to = min(spec.to ?? length, length)
                    if let d = spec.duration, spec.to == nil { to = min(from + d, length) }
                    let (dw, dh) = info.video.displaySize
                    sized(dw, dh)
                    if firstRate == nil { firstRate = demuxer.videoFrameRate.seconds }
                    clips.append(Clip(index: i, name: label, spec: spec, content: .video(info: info, orientation: orientation), fit: fit,
                                      from: from, sourceStart: Double(demuxer.videoStartTicks) * tb.seconds, seconds: to - from))
                }
            }
        }
        let size = Canvas.size(firstShape: firstShape, largest: largest, box: out.preset.box)
        let canvas = Canvas(width: size.width, height: size.height,
                            backdrop: try Backdrop(timeline.background, width: size.width, height: size.height))
        let fps = out.fps ?? firstRate.map { FrameRate(approximating: $0) } ?? FrameRate(num: 30, den: 1)

        // Whole frames: each clip's length, each overlap, and where each clip starts.
        for i in clips.indices { clips[i].frames = max(1, fps.frames(in: clips[i].seconds)) }
        var start = 0
        for i in clips.indices {
            clips[i].startFrame = start
            guard i + 1 < clips.count else { break }
            let t = clips[i].spec.transition
            if t.kind != .none {
                for n in [i, i + 1] where t.duration > clips[n].seconds / 2 + 1e-9 {
                    let which = n == i ? "this clip" : "the next one, \(clips[n].name),"
                    throw SDRifyError.usage(String(format: "\(clips[i].name): its %.3g s transition is longer than half of \(which) which shows %.3f s",
                                                   t.duration, clips[n].seconds))
                }
                clips[i].transitionFrames = min(fps.frames(in: t.duration), clips[i].frames / 2, clips[i + 1].frames / 2)
            }
            start += clips[i].frames - clips[i].transitionFrames
        }
        let total = clips.last!.endFrame
        return CompositionPlan(timeline: timeline, canvas: canvas, fps: fps, clips: clips, totalFrames: total)
    }
}
