import CFFmpeg
import SDRifyValues

extension TimeBase {
    var av: AVRational { AVRational(num: num, den: den) }

    package init(_ r: AVRational) { self.init(num: r.num, den: r.den) }
}

extension Demuxer {
    package var videoTimeBase: TimeBase { TimeBase(videoStream.pointee.time_base) }

    /// Average frame rate (falls back to the real base rate), as a rational for the encoder. A rate outside
    /// 1–1000 fps comes from a damaged sample table (it would give the encoder hour-long frames), and one the
    /// pictures' own times contradict from durations the container gets wrong: the pictures' rate instead, or 30.
    package var videoFrameRate: FrameRate {
        let st = videoStream.pointee
        for rate in [st.avg_frame_rate, st.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            if (1...1000).contains(rate.double), pictureTiming?.agrees(withRate: rate.double) ?? true {
                return FrameRate(num: Int64(rate.num), den: Int64(rate.den))
            }
        }
        if let pictures = pictureTiming, (1...1000).contains(pictures.averageRate) { return FrameRate(approximating: pictures.averageRate) }
        return FrameRate(num: 30, den: 1)
    }

    /// The rate a clip was recorded at, for a composition's constant output rate: the usual step between its first
    /// pictures (`PictureTiming`), snapped to a standard rate within 1 %. A phone's variable-rate 29.97 fps clip
    /// averages 28 fps where it dropped pictures in low light: its average would resample every clip. Where the
    /// pictures cannot be read ahead (no index to seek back with), the median step of the index's first entries;
    /// where that says no picture rate either, the average as before.
    package var nominalFrameRate: FrameRate {
        let average = FrameRate(approximating: videoFrameRate.fps)
        func snapped(_ fps: Double) -> FrameRate? {
            guard FrameRate.valid.contains(fps) else { return nil }
            let nearest = FrameRate.standard.min { abs($0.fps - fps) < abs($1.fps - fps) }!
            return abs(nearest.fps - fps) <= 0.01 * nearest.fps ? nearest : nil
        }
        if let pictures = pictureTiming {
            return snapped(pictures.stepRate) ?? (FrameRate.valid.contains(pictures.stepRate) ? FrameRate(approximating: pictures.stepRate) : average)
        }
        let count = min(Int(avformat_index_get_entries_count(videoStream)), 600)
        var steps: [Int64] = []
        var previous: Int64? = nil
        for i in 0..<count {
            guard let entry = avformat_index_get_entry(videoStream, Int32(i)) else { break }
            if let previous, entry.pointee.timestamp > previous { steps.append(entry.pointee.timestamp - previous) }
            previous = entry.pointee.timestamp
        }
        guard steps.count >= 2 else { return average }
        let median = steps.sorted()[steps.count / 2]
        return snapped(1 / (Double(median) * videoTimeBase.seconds)) ?? average
    }

    /// The video track's ID in the container (an MP4/MOV track_ID).
    package var videoTrackID: Int { Int(videoStream.pointee.id) }

    /// The first video timestamp (0 when the container does not say).
    package var videoStart: MediaTime { MediaTime(ticks: videoStartTicks, videoTimeBase) }

    /// How long the container says the video track lasts, in video ticks (nil when it does not say).
    package var videoDurationTicks: Int64? { statedDurationTicks(videoStreamIndex) }

    /// How long the video lasts: the container's word where its pictures reach it (`PictureTiming.believes`: a last
    /// picture held at the end of a recording), else the pictures' own span, the last one lasting the usual step (an
    /// MP4 whose decode steps are 1 ms states 0.03 s for a second of pictures; one whose last sample says 2 s, three).
    /// A sample table that lost pictures is damage, told by the conversion against the container's word.
    package var videoLength: MediaTime? {
        let stated = videoDurationTicks
        guard let pictures = pictureTiming, let last = pictures.last, var end = pictures.end else {
            return stated.map { MediaTime(ticks: $0, videoTimeBase) }
        }
        if let stated, let statedEnd = videoEndTicks, !pictures.durationsDisagree,
            PictureTiming.believes(statedEnd: statedEnd, last: last, step: pictures.stepTicks, track: stated, timeBase: videoTimeBase)
        {
            end = statedEnd
        }
        return MediaTime(ticks: end - videoStartTicks, videoTimeBase)
    }

    /// Where the container says the video track ends, in video ticks (its start plus its duration; nil when it does
    /// not say).
    package var videoEndTicks: Int64? { statedEndTicks(videoStreamIndex) }

    /// The first video timestamp, in video ticks: the first picture's own (libavformat's start time is an estimate
    /// that durations the pictures contradict can move: 0 for a Matroska whose pictures start at 21 ms), else the
    /// container's (0 when it does not say).
    var videoStartTicks: Int64 {
        pictureTiming?.first ?? (videoStream.pointee.start_time == ffNoPTS ? 0 : videoStream.pointee.start_time)
    }
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
