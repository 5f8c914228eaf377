import Foundation

/// What a finished composition reports (`compose --json`).
public struct CompositionResult: Sendable {
    public struct Clip: Sendable {
        public var source: String          // the file, or color:#RRGGBB
        public var kind: String            // video, image, color
        public var hdr: HDRKind
        public var orientationExif: Int
        public var from: Double?           // range of the clip's own clock used (videos)
        public var to: Double?
        public var start: Double           // seconds into the output
        public var duration: Double        // seconds shown (transitions included)
        public var transition: Transition  // into the next clip
    }

    public var output: String
    public var preset: String
    public var width: Int
    public var height: Int
    public var frameRate: FrameRate
    public var duration: Double
    public var frames: Int
    public var hasAudio: Bool
    public var clips: [Clip]
    public var toneMapping: String
    public var decodeErrors: Int
    /// Most clips open at once (never more than two).
    public var mostClipsOpen: Int
    public var elapsed: Double

    public var json: JSONValue {
        let clipRows: [JSONValue] = clips.map { c in
            .object([("file", c.kind == "color" ? .null : .string(c.source)), ("source", .string(c.source)), ("kind", .string(c.kind)), ("hdr", .string(c.hdr.rawValue)),
                     ("orientation", .object([("exif", .int(Int64(c.orientationExif)))])),
                     ("from", c.from.map { .double($0) } ?? .null), ("to", c.to.map { .double($0) } ?? .null),
                     ("start", .double(c.start)), ("duration", .double(c.duration)),
                     ("transition", .object([("type", .string(c.transition.kind.rawValue)), ("duration", .double(c.transition.duration))]))])
        }
        return .object([("output", .string(output)), ("preset", .string(preset)),
                        ("width", .int(Int64(width))), ("height", .int(Int64(height))),
                        ("frame_rate", .string(frameRate.description)), ("fps", .double(frameRate.fps)),
                        ("duration", .double(duration)), ("frames", .int(Int64(frames))), ("audio", .bool(hasAudio)),
                        ("tonemap", .string(toneMapping)), ("clips", .array(clipRows)),
                        ("decode_errors", .int(Int64(decodeErrors))), ("max_clips_open", .int(Int64(mostClipsOpen))),
                        ("elapsed_s", .double((elapsed * 1000).rounded() / 1000))])
    }
}

/// Renders a timeline into one file: the plan (every clip's headers read first), then three stages: each open
/// video clip decodes on its own thread; the compositor (this module's second thread) makes each output picture;
/// the calling thread encodes it, mixes and encodes the sound up to it, and muxes both.
public enum Composer {
    public static func run(_ timeline: Timeline, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
                           warn: @escaping Transcoder.Warning = { _ in },
                           progress: @escaping Transcoder.ProgressHandler = { _ in }) throws -> CompositionResult {
        try render(timeline, clipName: clipName, warn: warn, progress: progress) { plan, codecThreads in
            let out = timeline.output
            let inputs = plan.clips.compactMap(\.path) + (timeline.music.map { [$0.path] } ?? [])
            return try EncodingSink(path: out.path, inputs: inputs, overwrite: out.overwrite,
                                    settings: VideoEncoderSettings(codec: out.preset.codec, crf: out.crf ?? out.preset.crf,
                                                                   preset: out.encoderPreset ?? out.preset.encoderPreset,
                                                                   threads: codecThreads))
        }
    }

    /// Renders into the sink `makeSink` gives once the plan is made (given the plan and the encoder's thread count).
    static func render(_ timeline: Timeline, clipName: @escaping (Int) -> String = { "clip \($0 + 1)" },
                              warn: @escaping Transcoder.Warning = { _ in },
                              progress: @escaping Transcoder.ProgressHandler = { _ in },
                              sink makeSink: (CompositionPlan, Int) throws -> MediaSink) throws -> CompositionResult {
        let started = Date()
        try timeline.validate(where: clipName)
        let out = timeline.output
        let plan = try CompositionPlan.make(timeline, name: { i in
            let c = timeline.clips[i]
            return "\(clipName(i)) (\(c.source.name))"
        }, warn: warn)
        let canvas = plan.canvas
        let overlays = timeline.overlays.isEmpty ? nil
            : try OverlayStage(spec: timeline.overlays, frameWidth: canvas.width, frameHeight: canvas.height)
        let largestSource = plan.clips.map { c -> Int in
            if case .video(let info, _) = c.content { return info.video.width * info.video.height }
            return 0
        }.max() ?? 0
        let (decodeThreads, encodeThreads) = ThreadBudget.split(out.threads, sourcePixels: largestSource,
                                                                outputPixels: canvas.width * canvas.height, encoder: out.preset.codec)
        let fps = plan.fps
        let mixer = try AudioMixer(plan: plan, tolerateErrors: out.tolerateErrors) { index in
            let clip = plan.clips[index]
            guard case .video(let info, _) = clip.content else { return nil }
            return try PCMReader(path: info.path, start: clip.sourceStart + clip.from, tolerateErrors: out.tolerateErrors)
        }
        let sink = try makeSink(plan, encodeThreads)  // the output exists from here on: everything read is checked
        try sink.begin(width: canvas.width, height: canvas.height, rate: fps, audio: mixer.hasSound)

        // Per clip, what it turned out to be once decoded.
        let reports = ClipReports()
        let compositor = try Compositor(plan: plan, overlays: overlays, ringSize: 3) { clip in
            switch clip.content {
            case .color(let c): return StillClipSource(try StillPicture.color(c, canvas: canvas))
            case .image(let path): return StillClipSource(try StillPicture.image(path, fit: clip.fit, canvas: canvas))
            case .video(let info, let orientation):
                return try VideoClipSource(path: info.path, info: info, orientation: orientation, from: clip.from,
                                           seconds: clip.seconds, fit: clip.fit, canvas: canvas,
                                           toneMap: out.toneMap, threads: decodeThreads, tolerateErrors: out.tolerateErrors,
                                           checkBitstream: out.checkBitstream, warn: warn)
            }
        }
        compositor.closed = { clip, source in reports.record(clip.index, source) }

        // Stage 2 on its own thread; stage 3 here.
        let pictures = BoundedQueue<Frame>(capacity: 1)
        let failure = FirstError()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do {
                for n in 0..<plan.totalFrames {
                    guard failure.error == nil, pictures.push(try compositor.frame(n)) else { break }
                }
            } catch { failure.record(error) }
            compositor.finish()
            pictures.close()
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()

        func mixAudio(upTo sample: Int) throws {
            guard mixer.hasSound else { return }
            try mixer.mix(upTo: sample, block: sink.audioBlock) { l, r, n in try sink.write(left: l, right: r, count: n) }
        }

        var frames = 0
        var lastReport = Date.distantPast
        let total = plan.totalSeconds
        do {
            while let picture = pictures.pop() {
                try sink.write(picture: picture)
                frames += 1
                try mixAudio(upTo: fps.sample(ofFrame: frames, sampleRate: AudioMixer.rate))
                let now = Date()
                if now.timeIntervalSince(lastReport) >= 0.25 {
                    lastReport = now
                    progress(ConversionProgress(frames: frames, outTime: fps.time(ofFrame: frames).seconds, totalTime: total,
                                                elapsed: now.timeIntervalSince(started), finished: false))
                }
            }
        } catch {
            failure.record(error)
            pictures.close()
        }
        done.wait()
        if let error = failure.error { throw error }
        try mixAudio(upTo: mixer.totalSamples)
        try sink.finish()

        progress(ConversionProgress(frames: frames, outTime: total, totalTime: total, elapsed: Date().timeIntervalSince(started), finished: true))
        let clips = plan.clips.map { c -> CompositionResult.Clip in
            let start = fps.time(ofFrame: c.startFrame).seconds, shown = fps.time(ofFrame: c.frames).seconds
            switch c.content {
            case .video(let info, let orientation):
                return .init(source: info.path, kind: "video", hdr: reports.hdr[c.index] ?? info.video.hdrKind, orientationExif: orientation.rawValue,
                             from: c.from, to: c.from + c.seconds, start: start, duration: shown, transition: c.spec.transition)
            case .image(let path):
                return .init(source: path, kind: "image", hdr: .sdr, orientationExif: 1, from: nil, to: nil, start: start, duration: shown,
                             transition: c.spec.transition)
            case .color(let color):
                return .init(source: "color:\(color.hex)", kind: "color", hdr: .sdr, orientationExif: 1, from: nil, to: nil, start: start,
                             duration: shown, transition: c.spec.transition)
            }
        }
        let anyHDR = clips.contains { $0.hdr != .sdr }
        return CompositionResult(output: out.path, preset: out.preset.name, width: canvas.width, height: canvas.height, frameRate: fps,
                                 duration: total, frames: frames, hasAudio: mixer.hasSound, clips: clips,
                                 toneMapping: anyHDR ? out.toneMap.rawValue : "none",
                                 decodeErrors: reports.errors + mixer.errorsConcealed, mostClipsOpen: compositor.mostOpen,
                                 elapsed: Date().timeIntervalSince(started))
    }
}

/// What each video clip turned out to be, recorded as it closes (on the compositor's thread).
final class ClipReports: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var hdr: [Int: HDRKind] = [:]
    private(set) var errors = 0
    func record(_ index: Int, _ source: ClipSource) {
        guard let video = source as? VideoClipSource else { return }
        lock.lock(); defer { lock.unlock() }
        if let kind = video.chain.sourceColor?.hdrKind { hdr[index] = kind }
        errors += video.errorsConcealed
    }
}
