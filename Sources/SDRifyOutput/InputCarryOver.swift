import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// What a conversion's file keeps of its input besides the pictures: the sound (copied or transcoded), the
/// creation time (and location on request), chapters and text subtitles, all on the pictures' clock.
package struct InputCarryOver {
    package var path: String
    package var clock: ClipClock
    var videoStart: MediaTime  // the video's first timestamp: where an untrimmed read begins
    package var keepLocation = false
    package var keepChapters = true
    /// Soft subtitle tracks to write, their cues already on the output's clock.
    package var subtitles: [(cues: [Cue], language: String?)] = []
    package var tolerateErrors = false
    /// Which audio tracks are kept (`--audio-track`).
    package var audio = AudioTrackChoice.automatic
    package var keepSound = true  // false: a retimed conversion with --speed-audio mute
    package var metadata = MetadataPolicy.minimal
    /// `--loudness`: each kept track's gain and limiter (in the order of the kept tracks), from the first pass.
    package var loudness: [LoudnessNormalizer] = []

    package init(path: String, clock: ClipClock, videoStart: MediaTime) {
        self.path = path
        self.clock = clock
        self.videoStart = videoStart
    }
}
