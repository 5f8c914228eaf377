import CFFmpeg
import Foundation
import SDRifyValues

/// What a video's own pictures say of its timing: their presentation times, read without decoding. A container's
/// word may be wrong where its pictures are right (an HTC phone's Matroska says every picture lasts 1 ms; an MP4
/// whose decode steps are 1 ms carries the rest in composition offsets and states a track of 0.03 s for 1 s of
/// pictures), and what follows from it (the average rate, the track's length, the last picture's duration) is then
/// believed only where the pictures agree.
///
/// Read once per input by a reader of its own, so the conversion's reader stays where it stands: the first pictures
/// (up to `headPictures`) for the step between them, and the group after the last keyframe the index lists for where
/// the pictures end. Nothing is read where it cannot be cheap: a stream that cannot seek, one without timestamps,
/// one whose timestamps may jump (MPEG-TS/PS: its splices are re-based by the conversion's reader).
package struct PictureTiming: Sendable {
    /// The time base of the ticks below (the video stream's).
    package let timeBase: TimeBase
    /// The usual step between pictures in ticks (fractional: a millisecond time base rounds 1/30 s to 33 or 34): the
    /// mean of the steps within a quarter of the median one, so that a dropped picture or rounding leaves it alone.
    package let step: Double
    /// The first pictures' own average rate (pictures per second over their span), whatever their steps.
    package let averageRate: Double
    /// The median duration the container states for those pictures' packets (nil where it states none).
    package let statedDuration: Int64?
    /// The first picture's and the last picture's presentation times (the last from the final group; nil where the
    /// index lists no keyframe to start it from).
    package let first: Int64
    package let last: Int64?

    static let headPictures = 120
    /// Bytes read at most for either part (a group of pictures beyond this is not worth its reading).
    static let byteBudget: Int64 = 64 << 20

    /// The rate the steps make, in pictures per second.
    package var stepRate: Double { 1 / (step * timeBase.seconds) }

    /// The step in whole ticks.
    package var stepTicks: Int64 { Int64(step.rounded()) }

    /// Where the pictures end: the last one's time plus a step (nil where the last one is unknown).
    package var end: Int64? { last.map { $0 + stepTicks } }

    /// Whether the container's per-picture durations say something other than the pictures' own steps (more than a
    /// quarter off): they are then no measure of how long a picture shows.
    package var durationsDisagree: Bool {
        guard let statedDuration else { return false }
        return abs(Double(statedDuration) - step) > 0.25 * step
    }

    /// Whether the end a container states for its track is believed for a last picture shown at `last` (ticks) after
    /// pictures `step` apart, on a track `track` long: when it lies after that picture (an edit list may end it
    /// early: a phone's clip cut 4 ticks into its last picture) and at most four steps or a tenth of the track and
    /// two steps, and 10 s, after it (a picture held at the end of a recording; more is pictures missing, or a last
    /// sample that says it lasts seconds after one second of pictures). The one rule for the conversion's last
    /// picture and for the length.
    package static func believes(statedEnd: Int64, last: Int64, step: Int64, track: Int64, timeBase: TimeBase) -> Bool {
        let gap = statedEnd - last
        return gap > 0 && gap <= max(4 * step, track / 10 + 2 * step) && Double(gap) * timeBase.seconds <= 10
    }

    /// Whether a rate the container states (its average) is the pictures' own, within a factor of 1.5 of their
    /// average: a variable rate's drops keep it within that, a duration lie (1 ms, 100 ms per picture) does not.
    package func agrees(withRate fps: Double) -> Bool { fps > 0 && fps / averageRate < 1.5 && averageRate / fps < 1.5 }

    /// Reads the pictures' times of stream `index` of the file at `path`; nil where they cannot be read cheaply or
    /// are too few to say anything.
    static func survey(path: String, videoStream index: Int) -> PictureTiming? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }  // a file, to be opened again
        var c: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard avformat_open_input(&c, path, nil, nil) >= 0, let ctx = c else { return nil }
        defer {
            var p: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&p)
        }
        let format = ctx.pointee.iformat.pointee
        guard index < Int(ctx.pointee.nb_streams), format.flags & (AVFMT_NOTIMESTAMPS | AVFMT_TS_DISCONT) == 0,
            let pb = ctx.pointee.pb, pb.pointee.seekable != 0
        else { return nil }
        for i in 0..<Int(ctx.pointee.nb_streams) where i != index { ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
        let stream = ctx.pointee.streams[index]!
        let timeBase = TimeBase(stream.pointee.time_base)
        guard timeBase.num > 0, timeBase.den > 0, let packet = av_packet_alloc() else { return nil }
        var p: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&p) }

        // The head: the first pictures' times and stated durations.
        var times: [Int64] = [], durations: [Int64] = []
        var bytes: Int64 = 0, atEnd = false
        while times.count < headPictures, bytes < byteBudget {
            guard av_read_frame(ctx, packet) >= 0 else {
                atEnd = true
                break
            }
            defer { av_packet_unref(packet) }
            bytes += Int64(packet.pointee.size)
            guard packet.pointee.stream_index == index, packet.pointee.pts != ffNoPTS, packet.pointee.flags & AV_PKT_FLAG_DISCARD == 0
            else { continue }
            times.append(packet.pointee.pts)
            if packet.pointee.duration > 0 { durations.append(packet.pointee.duration) }
        }
        times.sort()
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
        guard steps.count >= 2, let first = times.first, let headLast = times.last else { return nil }
        let median = Double(steps.sorted()[steps.count / 2])
        let usual = steps.map(Double.init).filter { abs($0 - median) <= 0.25 * median }
        let step = usual.reduce(0, +) / Double(usual.count)
        let averageRate = Double(times.count - 1) / (Double(headLast - first) * timeBase.seconds)
        let stated = durations.isEmpty ? nil : durations.sorted()[durations.count / 2]

        // The tail: from the last keyframe the index lists, to the end.
        var last: Int64? = atEnd ? headLast : nil
        let entries = avformat_index_get_entries_count(stream)
        if !atEnd, entries > 0 {
            var keyframe: Int64? = nil
            for i in stride(from: entries - 1, through: 0, by: -1) {
                if let e = avformat_index_get_entry(stream, i), e.pointee.flags & AVINDEX_KEYFRAME != 0 {
                    keyframe = e.pointee.timestamp
                    break
                }
            }
            if let keyframe, av_seek_frame(ctx, Int32(index), keyframe, AVSEEK_FLAG_BACKWARD) >= 0 {
                var tail: Int64? = nil, tailBytes: Int64 = 0
                while tailBytes < byteBudget, av_read_frame(ctx, packet) >= 0 {
                    defer { av_packet_unref(packet) }
                    tailBytes += Int64(packet.pointee.size)
                    guard packet.pointee.stream_index == index, packet.pointee.pts != ffNoPTS,
                        packet.pointee.flags & AV_PKT_FLAG_DISCARD == 0
                    else { continue }
                    tail = max(tail ?? packet.pointee.pts, packet.pointee.pts)
                }
                if tailBytes < byteBudget, let tail { last = max(tail, headLast) }
            }
        }
        return PictureTiming(
            timeBase: timeBase, step: step, averageRate: averageRate, statedDuration: stated, first: first, last: last)
    }
}
