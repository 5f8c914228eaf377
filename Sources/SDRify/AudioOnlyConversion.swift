import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyOutput
import SDRifySecurity
import SDRifyTimeline
import SDRifyValues

/// An input with sound and no pictures (a song, a voice memo, a podcast) becomes a video: the background (an image,
/// or a colour; black by default) held as a still for as long as the sound lasts, with the layers over it
/// (lyrics as captions, titles). It is the one-clip composition of that still, with the input as its music.
package enum AudioOnlyConversion {
    /// The still's frame rate: captions and titles change on whole frames of it.
    static let rate = FrameRate(num: 30, den: 1)

    /// Whether `path` is such an input: it decodes as sound and holds no pictures. Its length, or nil.
    package static func length(of path: String) -> MediaTime? {
        guard let reader = try? PCMReader(path: path, start: .zero, tolerateErrors: false), !reader.hasVideo else { return nil }
        return reader.duration
    }

    static func run(
        _ conversion: Timeline, length whole: MediaTime, warn: @escaping WarningHandler,
        progress: @escaping ProgressHandler
    ) throws -> ExportResult {
        let input = conversion.input, speed = conversion.clips[0].speed
        try Limits.checkDuration(whole.seconds, of: input)  // the sound is how long the video will be
        let from = conversion.clips[0].from ?? .zero
        guard from < whole else {
            throw SDRifyError.usage(
                String(format: "\(input): the start (%.3f s) is past the end of the sound (%.3f s)", from.seconds, whole.seconds))
        }
        // --start/--duration are the sound's own times; --speed retimes what they select.
        let used = min(conversion.clips[0].duration ?? whole, whole - from)
        let map = speed == .normal ? TimeMap.identity : TimeMap.speed(speed)
        let shown = map.output(from + used) - map.output(from)
        var edit = conversion
        edit.carryOver = nil  // the input's sound is the music
        var clip: TimelineClip
        switch conversion.background {
        case .color(let c): clip = TimelineClip(source: .color(c))
        case .image(let path, let fit):
            clip = TimelineClip(source: .image(path))
            clip.fit = fit
        case .blur:
            throw SDRifyError.usage("\(input): has no picture to blur; give a colour or an image as the background")
        }
        clip.duration = shown
        edit.clips = [clip]
        edit.output.background = .black  // behind a contained image: plain bars
        edit.overlays = conversion.overlaysOnOutputClock(clock: map.isIdentity ? nil : CueClock(map: map, origin: from, cut: from))
        edit.overlays.background = nil
        edit.output.fps = rate
        var music = MusicTrack(path: input)
        music.from = from
        music.loop = false
        music.speed = speed
        if !(conversion.carryOver?.retimedSound ?? true), !map.isIdentity { music.volume = 0 }
        edit.music = music
        var result = try Export.run(ExportRequest(edit), clipName: { _ in "background" }, warn: warn, progress: progress)
        // Reported as the conversion it is.
        result.form = .conversion
        result.input = input
        result.clips = []
        result.toneMapping = "none"
        return result
    }
}
