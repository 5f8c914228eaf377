import Foundation
import SDRifyMedia
import SDRifyValues

/// What a conversion keeps of its one input besides the picture: its sound, tags, chapters and subtitle tracks
/// (retimed with the picture), and caption files added as soft subtitle tracks. A timeline that has it is a
/// conversion (`convert`, `hls`, the stills): one video clip whose input is carried over rather than mixed.
package struct CarryOverSpec: Sendable {
    package var keepLocation = false
    package var keepChapters = true  // the input's chapters, retimed by the clip's range
    package var keepSubtitles = true  // the input's text subtitle tracks, retimed by the clip's range
    package var subtitleFiles: [(file: String, language: String?)] = []  // soft subtitle tracks to write (mov_text)
    /// Which of the input's audio tracks are kept (`--audio-track`).
    package var audioTrack = AudioTrackChoice.automatic
    /// What is kept of the input's container tags (`--metadata`).
    package var metadata = MetadataPolicy.minimal
    /// Keep the sound of a retimed conversion (time-stretched), or leave it out (`--speed-audio mute`).
    package var retimedSound = true

    package init() {}

    /// Nothing but the picture's own path: a render for what it measures (`probe --scene-stats`).
    package static let pictureOnly: CarryOverSpec = {
        var c = CarryOverSpec()
        c.keepChapters = false; c.keepSubtitles = false
        return c
    }()
}
