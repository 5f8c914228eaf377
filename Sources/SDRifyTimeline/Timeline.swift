import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

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
