import CFFmpeg
import SDRifyValues

extension TimeBase {
    var av: AVRational { AVRational(num: num, den: den) }

    package init(_ r: AVRational) { self.init(num: r.num, den: r.den) }
}

extension Demuxer {
    package var videoTimeBase: TimeBase { TimeBase(videoStream.pointee.time_base) }

    /// Average frame rate (falls back to the real base rate), as a rational for the encoder. A rate outside
    /// 1–1000 fps comes from a damaged sample table (it would give the encoder hour-long frames): 30 instead.
    package var videoFrameRate: FrameRate {
        let st = videoStream.pointee
        for rate in [st.avg_frame_rate, st.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            if (1...1000).contains(rate.double) { return FrameRate(num: Int64(rate.num), den: Int64(rate.den)) }
        }
        return FrameRate(num: 30, den: 1)
    }

    /// The rate a clip was recorded at, for a composition's constant output rate: the median interval between the
    /// first pictures the index lists (decoding order), snapped to a standard rate within 1 %. A phone's variable-rate
    /// 29.97 fps clip averages 28 fps where it dropped pictures in low light: its average would resample every clip.
    /// Without an index (or with one whose steps are no picture rate), the average as before.
    package var nominalFrameRate: FrameRate {
        let count = min(Int(avformat_index_get_entries_count(videoStream)), 600)
        var steps: [Int64] = []
        var previous: Int64? = nil
        for i in 0..<count {
            guard let entry = avformat_index_get_entry(videoStream, Int32(i)) else { break }
            if let previous, entry.pointee.timestamp > previous { steps.append(entry.pointee.timestamp - previous) }
            previous = entry.pointee.timestamp
        }
        let average = FrameRate(approximating: videoFrameRate.fps)
        guard steps.count >= 2 else { return average }
        let median = steps.sorted()[steps.count / 2]
        let fps = 1 / (Double(median) * videoTimeBase.seconds)
        guard FrameRate.valid.contains(fps) else { return average }
        let nearest = FrameRate.standard.min { abs($0.fps - fps) < abs($1.fps - fps) }!
        return abs(nearest.fps - fps) <= 0.01 * nearest.fps ? nearest : average
    }

    /// The video track's ID in the container (an MP4/MOV track_ID).
    package var videoTrackID: Int { Int(videoStream.pointee.id) }

    /// The first video timestamp (0 when the container does not say).
    package var videoStart: MediaTime { MediaTime(ticks: videoStartTicks, videoTimeBase) }

    /// How long the container says the video track lasts, in video ticks (nil when it does not say).
    package var videoDurationTicks: Int64? {
        let d = videoStream.pointee.duration
        return d == ffNoPTS || d <= 0 ? nil : d
    }

    /// Where the container says the video track ends, in video ticks (its start plus its duration; nil when it does
    /// not say).
    package var videoEndTicks: Int64? { videoDurationTicks.map { videoStartTicks + $0 } }

    /// The first video timestamp, in video ticks (0 when the container does not say).
    var videoStartTicks: Int64 { videoStream.pointee.start_time == ffNoPTS ? 0 : videoStream.pointee.start_time }
}

extension Packet {
    package var pts: Int64? { av.pointee.pts == ffNoPTS ? nil : av.pointee.pts }
    var duration: Int64 { av.pointee.duration }
    /// The packet's byte position in the file (-1 when the demuxer does not say).
    package var position: Int64 { av.pointee.pos }
    package func setDuration(_ ticks: Int64) { av.pointee.duration = ticks }

    /// The demuxer marks samples outside the edit list (pre-roll before the presentation start, a trimmed tail)
    /// to be decoded but not shown.
    package var isOutsideEdit: Bool { av.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
    /// Clears that mark: the decoder then returns the picture, for the caller to leave out (see ClipDecoder).
    package func keepOutsideEdit() { av.pointee.flags &= ~AV_PKT_FLAG_DISCARD }

    /// Moves the packet earlier by `ticks` of its own time base.
    package func shift(by ticks: Int64) {
        if av.pointee.pts != ffNoPTS { av.pointee.pts -= ticks }
        if av.pointee.dts != ffNoPTS { av.pointee.dts -= ticks }
    }
}

extension Muxer {
    package func write(_ packet: Packet, stream: Int, from tb: TimeBase) throws { try write(packet, stream: stream, from: tb.av) }
}

extension VideoEncoder {
    package var timeBase: TimeBase { TimeBase(ctx.pointee.time_base) }
}
