import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

/// The transitions between two clips (ffmpeg xfade's names).
package enum TransitionKind: String, CaseIterable, Sendable {
    case none, fade, fadeblack, fadewhite, wipeleft, wiperight, wipeup, wipedown, slideleft, slideright, slideup, slidedown

    package init?(name: String) {
        let n = name.lowercased()
        self.init(rawValue: n == "crossfade" ? "fade" : n)
    }
}

package struct Transition: Equatable, Sendable {
    package var kind: TransitionKind
    package var duration: MediaTime  // of overlap; 0 with `none`
    package init(kind: TransitionKind, duration: MediaTime) { self.kind = kind; self.duration = kind == .none ? .zero : duration }
    static let cut = Transition(kind: .none, duration: .zero)
    static let defaultDuration: MediaTime = 0.5

    /// `TYPE[:SECONDS]`.
    package init?(spec: String) {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let kind = TransitionKind(name: parts[0]) else { return nil }
        var duration = Transition.defaultDuration
        if parts.count == 2 {
            guard let s = Double(parts[1]), s.isFinite, s > 0 else { return nil }
            duration = MediaTime(seconds: s)
        }
        self.init(kind: kind, duration: duration)
    }
}

/// What one clip shows.
package enum ClipMedia: Equatable, Sendable {
    case video(String)  // a video file
    case image(String)  // a still picture, held `duration` seconds
    case color(RGBColor)  // a solid colour, held `duration` seconds

    /// `color:#RRGGBB[:SECONDS]`, or a file (video or image: told apart when its headers are read).
    package var name: String {
        switch self {
        case .video(let p), .image(let p): p
        case .color(let c): "color:\(c.hex)"
        }
    }
}

package struct TimelineClip: Equatable, Sendable {
    package var source: ClipMedia
    package var from: MediaTime? = nil  // on the clip's own clock (videos)
    package var to: MediaTime? = nil
    package var duration: MediaTime? = nil  // how long it shows (images and colours)
    package var fit: Fit? = nil  // nil: the output's
    package var volume: Double = 1  // linear gain of the clip's own audio
    package var transition: Transition = .cut  // into the next clip
    /// A turn on top of the file's own orientation and a crop (`"rotate"`, `"flip"`, `"crop"`; videos and images).
    package var framing = Framing()
    /// Played this many times as fast (`"speed"`; videos): pictures retimed, sound time-stretched, pitch kept.
    package var speed = Speed.normal
    /// A Ken Burns move over the clip's picture (`"zoom"`; photos and videos), nil for none.
    package var zoom: Zoom? = nil
    /// A motion photo shows its movie rather than its still (`"motion": true`).
    package var motion = false
    package init(source: ClipMedia) { self.source = source }
}

package struct MusicTrack: Equatable, Sendable {
    package var path: String
    package var volume: Double = 1  // linear gain: 1 as recorded
    package var fadeIn: MediaTime = 0
    package var fadeOut: MediaTime = 0
    package var from: MediaTime = 0  // into the file, where it starts (and restarts when it loops)
    package var loop = true  // false: silence once it ends
    package var speed = Speed.normal  // played this many times as fast, time-stretched (an audio-only convert's --speed)
    package init(path: String) { self.path = path }
}

/// A still of the output written beside it (`--poster FILE --poster-at TIME`).
package struct PosterRequest: Sendable {
    package var path: String
    package var at: MediaTime? = nil  // output time; nil: the default time
    package init(path: String, at: MediaTime? = nil) { self.path = path; self.at = at }

    /// 1 s in, or the middle of outputs shorter than 2 s.
    package static func defaultTime(outputLength: MediaTime?) -> MediaTime {
        guard let d = outputLength, d < 2 else { return 1 }
        return d.half
    }
}

/// The output: where, at what size and rate, and how it is encoded.
package struct OutputSpec: Sendable {
    package var path: String
    package var preset: ExportPreset
    package var fps: FrameRate? = nil  // nil: the first video clip's
    package var background = Background.black
    package var fit = Fit.contain
    package var imageDuration: MediaTime = 3  // for images given without one
    package var overwrite = false
    package var crf: Int? = nil
    package var encoderPreset: String? = nil
    package var maxBitRate: BitRate? = nil  // --max-bitrate
    package var loudness: Double? = nil  // --loudness: the mix's integrated loudness (LUFS)
    package var threads = 0
    package var toneMap = ToneMapOperator.default
    package var tolerateErrors = false
    package var checkBitstream = true  // H.264 and HEVC slice data checked by our own parser (BitstreamCheck)
    package var poster: PosterRequest? = nil
    /// Play a phone's slow-motion recordings as its gallery does (`--slow-motion auto`, `"slow_motion"`); false keeps
    /// the file's own timing.
    package var flattenSlowMotion = true
    /// The path is a video file (its extension names the container); false for outputs whose sinks check their own
    /// paths (an HLS directory, images).
    package var isVideoFile = true
    package init(path: String, preset: ExportPreset) { self.path = path; self.preset = preset }

    /// The encoder's settings against the codec table: nil when they fit, else which setting ("crf" or
    /// "encoder-preset") and what is wrong with it.
    package func encodingProblem() -> (setting: String, message: String)? {
        let codec = preset.codec.catalog
        if let crf, !codec.crfRange.contains(crf) {
            return ("crf", "must be between \(codec.crfRange.lowerBound) and \(codec.crfRange.upperBound)")
        }
        if let encoderPreset, !codec.speedPresets.contains(encoderPreset) {
            return ("encoder-preset", "must be one of \(codec.speedPresets.joined(separator: ", ")) (\(codec.shortName)), not '\(encoderPreset)'")
        }
        return nil
    }

    /// How its inputs are decoded.
    package var decodeSettings: DecodeSettings {
        var s = DecodeSettings()
        s.tolerateErrors = tolerateErrors; s.checkBitstream = checkBitstream; s.threads = threads
        return s
    }

    /// The encoder's settings, with its share of the thread budget.
    package func encoderSettings(threads: Int) -> VideoEncoderSettings {
        VideoEncoderSettings(
            codec: preset.codec, crf: crf ?? preset.crf, preset: encoderPreset ?? preset.encoderPreset, threads: threads, maxBitRate: maxBitRate)
    }
}

/// A composition as a value: clips in order with the transition into each next one, optional music, layers on
/// the output's clock, and the output. `convert` is the one-clip case. `validate` is the one place its values
/// are checked; its messages speak of the timeline, not of command-line flags.
package struct Timeline: Sendable {
    package var output: OutputSpec
    package var clips: [TimelineClip]
    package var music: MusicTrack? = nil
    package var overlays = OverlaySpec()

    package init(output: OutputSpec, clips: [TimelineClip]) { self.output = output; self.clips = clips }

    /// The overlay description's background wins over the output's.
    package var background: Background { overlays.background ?? output.background }

    /// Every file the composition reads: clips, music, layers, background (the sandbox allows these).
    package var filesRead: [String] {
        let clipFiles = clips.compactMap { c -> String? in if case .color = c.source { nil } else { c.source.name } }
        return clipFiles + (music.map { [$0.path] } ?? []) + overlays.filesRead + (output.background.file.map { [$0] } ?? [])
    }

    /// Checks every value that does not need the media; `where` names each clip (a JSON path or "clip 3").
    package func validate(where name: (Int) -> String = { "clip \($0 + 1)" }) throws {
        if output.isVideoFile { _ = try CodecCatalog.muxer(forOutput: output.path) }
        guard !clips.isEmpty else { throw SDRifyError.usage("a timeline needs at least one clip") }
        guard output.preset.passthrough == false || clips.count == 1 else {
            throw SDRifyError.usage("Passthrough copies one file; a composition needs a preset that re-encodes")
        }
        if let problem = output.encodingProblem() { throw SDRifyError.usage("\(problem.setting) \(problem.message)") }
        if !(output.imageDuration > .zero) { throw SDRifyError.usage("the image duration must be more than 0 seconds") }
        for (i, clip) in clips.enumerated() {
            let at = name(i)
            if let f = clip.from, !(f >= .zero) { throw SDRifyError.usage("\(at): the start must be 0 or more seconds") }
            if let t = clip.to, !(t > .zero) { throw SDRifyError.usage("\(at): to must be more than 0 seconds") }
            if let f = clip.from, let t = clip.to, t <= f {
                throw SDRifyError.usage("\(at): to (\(t.seconds) s) must be after from (\(f.seconds) s)")
            }
            if let d = clip.duration, !(d > .zero) { throw SDRifyError.usage("\(at): the duration must be more than 0 seconds") }
            if case .video = clip.source {
            } else if clip.from != nil || clip.to != nil {
                throw SDRifyError.usage("\(at): from/to apply to video clips; an image or colour takes a duration")
            }
            if case .color = clip.source, !clip.framing.isIdentity {
                throw SDRifyError.usage("\(at): rotate, flip and crop apply to videos and images")
            }
            if !(clip.volume >= 0 && clip.volume.isFinite) { throw SDRifyError.usage("\(at): volume must be 0 or more") }
            let t = clip.transition
            if t.kind != .none, !(t.duration > .zero) {
                throw SDRifyError.usage("\(at): the transition's duration must be more than 0 seconds")
            }
        }
        if case .image(let path, _) = background, !FileManager.default.isReadableFile(atPath: path) {
            throw SDRifyError.usage("background: cannot read \(path)")
        }
        if case .blur(let r?) = background, !(r > 0 && r.isFinite) { throw SDRifyError.usage("background: the blur radius must be more than 0") }
        if let poster = output.poster {
            if ImageFileType(path: poster.path) == nil { throw SDRifyError.usage("\(poster.path): a poster is a \(ImageFileType.extensions) file") }
            if let at = poster.at, !(at >= .zero) { throw SDRifyError.usage("the poster time must be 0 or more seconds") }
            if poster.path == output.path { throw SDRifyError.usage("the poster and the video cannot be the same file") }
        }
        if let music {
            if !(music.volume >= 0 && music.volume.isFinite) { throw SDRifyError.usage("music: volume must be 0 or more") }
            if !(music.fadeIn >= .zero) { throw SDRifyError.usage("music: fade_in must be 0 or more seconds") }
            if !(music.fadeOut >= .zero) { throw SDRifyError.usage("music: fade_out must be 0 or more seconds") }
        }
    }
}

/// A Ken Burns move: the clip's picture seen through a window that goes from one view to another over the clip,
/// with an easing. A view is a scale (1: the whole picture, 2: half its width) and the centre of the window as
/// fractions of the picture (0.5, 0.5: the middle); the window always stays inside the picture.
package struct Zoom: Equatable, Sendable {
    package struct View: Equatable, Sendable {
        package var scale: Double
        package var x: Double, y: Double
        package init(scale: Double, x: Double = 0.5, y: Double = 0.5) { self.scale = scale; self.x = x; self.y = y }
    }
    var from = View(scale: 1)
    var to = View(scale: 1.25)
    var easing = Easing.linear
    /// The scales a view may take.
    static let scales: ClosedRange<Double> = 1...8
    package init() {}

    /// The view at `progress` (0 at the clip's first picture, 1 at its last), its centre kept where the window
    /// fits inside the picture.
    package func view(at progress: Double) -> View {
        let p = easing.apply(progress)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * p }
        let scale = exp(mix(log(from.scale), log(to.scale)))  // even zooming: the same ratio each step
        let half = 0.5 / scale
        return View(scale: scale, x: min(max(mix(from.x, to.x), half), 1 - half), y: min(max(mix(from.y, to.y), half), 1 - half))
    }
}
