import Foundation
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// A composition's sound, 48 kHz stereo: each clip's own audio at its volume, placed where the clip shows,
/// crossfaded (equal power) over the transitions; music under it at its volume, looped or cut to the video's
/// length, with fades. The mix is a plain sum of linear gains (not normalised), clipped only by the encoder's
/// float range. Clips without audio, pictures and colours are silence. Readers open when their clip starts and
/// close when it ends.
package final class AudioMixer {
    package struct Segment {
        package let clip: Int
        let start: Int  // first output sample
        let length: Int  // samples (overlaps included)
        let fadeIn: Int  // samples of crossfade with the previous clip
        package let fadeOut: Int  // with the next
        let volume: Float

        package init(clip: Int, start: Int, length: Int, fadeIn: Int, fadeOut: Int, volume: Float) {
            self.clip = clip
            self.start = start
            self.length = length
            self.fadeIn = fadeIn
            self.fadeOut = fadeOut
            self.volume = volume
        }
    }

    package static let rate = PCMReader.sampleRate
    package let totalSamples: Int
    private let segments: [Segment]
    private let music: MusicTrack?
    private let openClip: (Int) throws -> SoundReader?
    private var readers: [Int: SoundReader?] = [:]
    private var musicReader: PCMReader? = nil
    private var position = 0
    private var scratchL = [Float](), scratchR = [Float]()  // one clip's or the music's samples
    private var mixLeft = [Float](), mixRight = [Float]()  // the block being mixed (reused)
    /// Damage concealed in the audio (tolerate-errors).
    package private(set) var errorsConcealed = 0

    /// `segments`: where each clip with sound plays (silent ones left out); `totalSamples`: the output's length.
    package init(
        segments: [Segment], totalSamples: Int, music: MusicTrack?, tolerateErrors: Bool,
        openClip: @escaping (Int) throws -> SoundReader?
    ) throws {
        self.totalSamples = totalSamples
        self.segments = segments.filter { $0.volume > 0 }
        self.music = music
        self.openClip = openClip
        if let music, music.volume > 0 {
            let map = music.speed == .normal ? TimeMap.identity : TimeMap.speed(music.speed)
            guard let reader = try PCMReader(path: music.path, start: music.from, tolerateErrors: tolerateErrors, map: map) else {
                throw SDRifyError.invalidInput("\(music.path): no audio this build can decode")
            }
            musicReader = reader
        }
    }

    package var hasSound: Bool { !segments.isEmpty || musicReader != nil }

    /// Mixes up to output sample `end` (capped at the total), in blocks of `block` samples, handing each to `emit`.
    package func mix(upTo end: Int, block: Int, emit: (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws -> Void) throws {
        let end = min(end, totalSamples)
        if mixLeft.count < block { mixLeft = [Float](repeating: 0, count: block); mixRight = mixLeft }
        while end - position >= block || (end == totalSamples && position < end) {
            let n = min(block, end - position)
            for i in 0..<n { mixLeft[i] = 0; mixRight[i] = 0 }
            try mixLeft.withUnsafeMutableBufferPointer { l in
                try mixRight.withUnsafeMutableBufferPointer { r in
                    try addClips(l.baseAddress!, r.baseAddress!, n)
                    try addMusic(l.baseAddress!, r.baseAddress!, n)
                    try emit(l.baseAddress!, r.baseAddress!, n)
                }
            }
            position += n
        }
    }

    private func scratch(_ n: Int) {
        if scratchL.count < n { scratchL = [Float](repeating: 0, count: n); scratchR = scratchL }
    }

    /// Adds every clip sounding in [position, position + n).
    private func addClips(_ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>, _ n: Int) throws {
        let blockEnd = position + n
        for seg in segments where seg.start < blockEnd && seg.start + seg.length > position {
            if readers[seg.clip] == nil { readers[seg.clip] = .some(try openClip(seg.clip)) }
            guard let reader = readers[seg.clip] ?? nil else { continue }
            let from = max(seg.start, position), to = min(seg.start + seg.length, blockEnd)
            let count = to - from
            scratch(count)
            let got = try scratchL.withUnsafeMutableBufferPointer { sl in
                try scratchR.withUnsafeMutableBufferPointer { sr in
                    try reader.read(count, left: sl.baseAddress!, right: sr.baseAddress!)
                }
            }
            for i in 0..<got {
                let k = from + i - seg.start  // sample within the segment
                var g = seg.volume
                if k < seg.fadeIn { g *= Float(sin(Double.pi / 2 * (Double(k) + 0.5) / Double(seg.fadeIn))) }
                let tail = seg.length - k
                if tail <= seg.fadeOut { g *= Float(cos(Double.pi / 2 * (1 - (Double(tail) - 0.5) / Double(seg.fadeOut)))) }
                l[from - position + i] += scratchL[i] * g
                r[from - position + i] += scratchR[i] * g
            }
        }
        // Readers whose segment has ended are closed.
        for (clip, _) in readers where !segments.contains(where: { $0.clip == clip && $0.start + $0.length > blockEnd }) {
            if let reader = readers[clip] ?? nil { errorsConcealed += reader.errorsConcealed }
            readers[clip] = nil
        }
    }

    private func addMusic(_ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>, _ n: Int) throws {
        guard let music, let reader = musicReader else { return }
        scratch(n)
        var filled = 0, restarts = 0
        while filled < n {
            let got = try scratchL.withUnsafeMutableBufferPointer { sl in
                try scratchR.withUnsafeMutableBufferPointer { sr in
                    try reader.read(n - filled, left: sl.baseAddress! + filled, right: sr.baseAddress! + filled)
                }
            }
            filled += got
            if got == 0 {  // the song has ended: it starts again, or silence follows
                guard music.loop else {
                    for i in filled..<n { scratchL[i] = 0; scratchR[i] = 0 }
                    break
                }
                restarts += 1
                guard restarts < 2 else { throw SDRifyError.invalidInput("\(music.path): no audio samples") }
                reader.restart(at: music.from)
            }
        }
        let fadeIn = music.fadeIn.seconds * Double(AudioMixer.rate), fadeOut = music.fadeOut.seconds * Double(AudioMixer.rate)
        for i in 0..<n {
            let t = Double(position + i) + 0.5, left = Double(totalSamples) - t
            var g = music.volume
            if t < fadeIn { g *= t / fadeIn }
            if left < fadeOut { g *= max(left, 0) / fadeOut }
            l[i] += scratchL[i] * Float(g)
            r[i] += scratchR[i] * Float(g)
        }
    }
}

/// Several sounds played together, each at its gain (a split screen's cells): as long as the longest.
package final class SoundMix: SoundReader {
    private let parts: [(reader: SoundReader, gain: Float)]
    private var left: [Float] = [], right: [Float] = []

    package init(_ parts: [(reader: SoundReader, gain: Float)]) { self.parts = parts }

    package var errorsConcealed: Int { parts.reduce(0) { $0 + $1.reader.errorsConcealed } }

    package func read(_ count: Int, left l: UnsafeMutablePointer<Float>, right r: UnsafeMutablePointer<Float>) throws -> Int {
        if left.count < count { left = [Float](repeating: 0, count: count); right = left }
        l.update(repeating: 0, count: count)
        r.update(repeating: 0, count: count)
        var longest = 0
        for (reader, gain) in parts {
            let got = try left.withUnsafeMutableBufferPointer { sl in
                try right.withUnsafeMutableBufferPointer { sr in try reader.read(count, left: sl.baseAddress!, right: sr.baseAddress!) }
            }
            for i in 0..<got {
                l[i] += left[i] * gain
                r[i] += right[i] * gain
            }
            longest = max(longest, got)
        }
        return longest
    }
}
