import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

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
