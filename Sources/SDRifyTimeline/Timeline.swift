import Foundation
import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

/// A composition as a value: clips in order with the transition into each next one, optional music, layers on
/// the output's clock, and the output. A conversion is the one-clip case with `carryOver`: its input's sound,
/// tags, chapters and subtitles are carried over instead of mixed. `validate` is the one place its values are
/// checked; its messages speak of the timeline, not of command-line flags.
package struct Timeline: Sendable {
    package var output: OutputSpec
    package var clips: [TimelineClip]
    package var music: MusicTrack? = nil
    package var overlays = OverlaySpec()
    /// A conversion's: what is kept of its one input (nil: a composition, whose clips' sound is mixed).
    package var carryOver: CarryOverSpec? = nil

    package init(output: OutputSpec, clips: [TimelineClip]) { self.output = output; self.clips = clips }

    /// A conversion: the one video `input` into `output`, keeping what `carryOver` says of it.
    package static func conversion(of input: String, into output: OutputSpec, keeping carryOver: CarryOverSpec = CarryOverSpec()) -> Timeline {
        var t = Timeline(output: output, clips: [TimelineClip(source: .video(input))])
        t.carryOver = carryOver
        return t
    }

    /// A conversion's input (its one clip's file; empty for a timeline without clips, which `validate` refuses).
    package var input: String { clips.first?.source.name ?? "" }

    /// The overlay description's background wins over the output's.
    package var background: Background { overlays.background ?? output.background }

    /// Every file the composition reads: clips, music, layers, background (the sandbox allows these).
    package var filesRead: [String] {
        let clipFiles = clips.flatMap { $0.source.files + $0.pip.map(\.file) }
        return clipFiles + (carryOver?.subtitleFiles.map(\.file) ?? []) + (music.map { [$0.path] } ?? []) + overlays.filesRead
            + (output.background.file.map { [$0] } ?? [])
    }

    /// The layers on the output's clock: a conversion's caption files and its input's tracks follow the input's
    /// clock, so its cut moves them earlier (and a retimed input, `clock`, moves them with its pictures).
    package func overlaysOnOutputClock(clock: CueClock? = nil) -> OverlaySpec {
        var spec = overlays
        guard carryOver != nil else { return spec }
        let shift = (clips[0].from ?? .zero).seconds  // caption and title times are seconds as their files give them
        for i in spec.captions.indices {
            if let clock { spec.captions[i].clock = clock } else { spec.captions[i].offset -= shift }
        }
        for i in spec.titles.indices where spec.titles[i].source.map({ if case .track = $0 { true } else { false } }) ?? false {
            // A track of the input runs on the input's clock.
            if let clock { spec.titles[i].clock = clock } else { spec.titles[i].sourceOffset -= shift }
        }
        return spec
    }

    /// Checks every value that does not need the media; `where` names each clip (a JSON path or "clip 3").
    package func validate(where name: (Int) -> String = { "clip \($0 + 1)" }) throws {
        if output.isVideoFile { _ = try CodecCatalog.muxer(forOutput: output.path, codec: output.preset.passthrough ? nil : output.preset.codec) }
        guard !clips.isEmpty else { throw SDRifyError.usage("a timeline needs at least one clip") }
        guard output.preset.passthrough == false || clips.count == 1 else {
            throw SDRifyError.usage("Passthrough copies one file; a composition needs a preset that re-encodes")
        }
        if let problem = output.encodingProblem() { throw SDRifyError.usage("\(problem.setting) \(problem.message)") }
        if !(output.imageDuration > .zero) { throw SDRifyError.usage("the image duration must be more than 0 seconds") }
        for (i, clip) in clips.enumerated() {
            try Timeline.check(clip, at: name(i))
            if case .split(let cells, let layout) = clip.source {
                guard cells.count == layout.cellCount else {
                    throw SDRifyError.usage("\(name(i)): a \(layout.rawValue) split screen has \(layout.cellCount) cells, not \(cells.count)")
                }
                for (k, cell) in cells.enumerated() { try Timeline.check(cell, at: "\(name(i)), cell \(k + 1)") }
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
        if let hdr = output.hdrOutput {
            if hdr == output.path { throw SDRifyError.usage("--hdr-output and the output cannot be the same file") }
            var kept = output
            kept.range = .hdr
            _ = try CodecCatalog.muxer(forOutput: hdr, codec: kept.preset.codec)
        }
        if carryOver != nil {
            guard clips.count == 1, case .video = clips[0].source, music == nil else {
                throw SDRifyError.usage("a conversion is one video clip, without music")
            }
            if output.preset.passthrough { try checkPassthrough() }
        }
        if let music {
            if !(music.volume >= 0 && music.volume.isFinite) { throw SDRifyError.usage("music: volume must be 0 or more") }
            if !(music.fadeIn >= .zero) { throw SDRifyError.usage("music: fade_in must be 0 or more seconds") }
            if !(music.fadeOut >= .zero) { throw SDRifyError.usage("music: fade_out must be 0 or more seconds") }
        }
    }

    /// The values of one clip (or a split screen's cell) that need no media.
    private static func check(_ clip: TimelineClip, at: String) throws {
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

    /// Passthrough copies the input's packets: nothing that changes them may be asked for.
    private func checkPassthrough() throws {
        let clip = clips[0], carry = carryOver ?? CarryOverSpec()
        if !overlays.isEmpty { throw SDRifyError.usage("Passthrough copies the video; overlays need a preset that re-encodes") }
        if clip.from != nil || clip.duration != nil {
            throw SDRifyError.usage("Passthrough copies whole files; a start or duration needs a preset that re-encodes")
        }
        if output.fps != nil || output.poster != nil || !clip.framing.isIdentity || carry.audioTrack != .automatic || clip.speed != .normal
            || output.maxBitRate != nil || output.loudness != nil
        {
            throw SDRifyError.usage(
                "Passthrough copies the file; a frame rate, a poster, a rotation, a flip, a crop, a speed, a bit-rate cap, a loudness or a choice of audio tracks needs a preset that re-encodes"
            )
        }
    }
}
