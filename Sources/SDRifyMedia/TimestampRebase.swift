import CFFmpeg
import SDRifyValues

/// Timestamp discontinuities in the formats that allow them (MPEG-TS and PS: `cat a.ts b.ts`, broadcast and
/// camcorder captures, a stream restarted mid-way). Where a stream's decode time steps back, or forward by more than
/// `maxJump`, its later packets are moved to follow on from the last one, as players do; MP4/MOV get no such
/// leniency (there the same disorder is damage). Each stream is re-based from its own packets, so the pictures'
/// demuxer and the sound's (each reading its own streams) move alike; at a splice the sound keeps its place to within
/// the difference of the two streams' ends before it.
struct TimestampRebase {
    /// A forward step bigger than this is a splice, not a pause (FFmpeg's own threshold for these formats).
    static let maxJump = MediaTime(10)

    private struct StreamState {
        var last: Int64  // the last decode time, re-based
        var step: Int64  // the last packet's duration (or the step before it)
        package var offset: Int64 = 0
        var splices = 0
    }
    private var streams: [Int32: StreamState] = [:]
    /// How many discontinuities were re-based (the most any one stream met: a splice moves every stream).
    package var count: Int { streams.values.map(\.splices).max() ?? 0 }

    /// Re-bases one packet's timestamps (in its stream's time base) in place.
    mutating func apply(_ p: UnsafeMutablePointer<AVPacket>, timeBase: TimeBase) {
        // Decode times rise packet by packet; presentation times do not (B-frames), so only they tell a splice.
        let raw = p.pointee.dts
        let index = p.pointee.stream_index
        guard raw != ffNoPTS else {
            if p.pointee.pts != ffNoPTS { p.pointee.pts += streams[index]?.offset ?? 0 }
            return
        }
        guard var s = streams[index] else {
            streams[index] = StreamState(last: raw, step: max(p.pointee.duration, 0))
            return
        }
        let expected = s.last + s.step
        let time = raw + s.offset
        if time < s.last || time - expected > TimestampRebase.maxJump.ticks(timeBase) {
            s.offset += expected - time
            s.splices += 1
        }
        let moved = raw + s.offset
        if p.pointee.pts != ffNoPTS { p.pointee.pts += s.offset }
        if p.pointee.dts != ffNoPTS { p.pointee.dts += s.offset }
        s.step = p.pointee.duration > 0 ? p.pointee.duration : max(moved - s.last, 0)
        s.last = moved
        streams[index] = s
    }

    /// After a seek the stream starts over from wherever it landed.
    mutating func reset() { streams = [:] }  // (the splices before it are forgotten: they were not crossed)
}
