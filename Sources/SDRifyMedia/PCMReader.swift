import CFFmpeg
import SDRifyValues

/// Sound read in order as 48 kHz stereo float: one file's (PCMReader), or several mixed (a split screen's cells).
package protocol SoundReader: AnyObject {
    /// Up to `count` samples into `left`/`right`; fewer only at the end.
    func read(_ count: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) throws -> Int
    /// Damage concealed so far (tolerate-errors).
    var errorsConcealed: Int { get }
}

/// Decoded audio of one file as 48 kHz stereo float, read in order from a chosen instant: a composition's clip
/// audio and its music. Opens its own input (audio stream only; other streams are discarded unread), so a clip's
/// sound does not depend on how far its pictures have been read. A retimed clip's sound (a speed, slow motion: a
/// time map) is time-stretched on the way (SoundRetimer), so sample n is at output time n / 48000 of the clip.
package final class PCMReader: SoundReader {
    package static let sampleRate = Int(AACEncoder.sampleRate)
    package let path: String
    private let ctx: UnsafeMutablePointer<AVFormatContext>
    private let stream: Int32
    private let decoder: UnsafeMutablePointer<AVCodecContext>
    private var resampler: OpaquePointer? = nil
    private let fifo: OpaquePointer
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: Packet
    private let tolerateErrors: Bool
    private var start: MediaTime  // the time of the stream that sample 0 is
    private var aligned = false  // the first decoded samples have been placed relative to `start`
    private var ended = false
    package private(set) var errorsConcealed = 0
    private var resampledLeft: [Float] = [], resampledRight: [Float] = []  // reused for every decoded frame
    private let retimer: SoundRetimer?

    /// Whether `path` has an audio stream this libavcodec decodes (nil: no usable audio), and opens it.
    package init?(path: String, start: MediaTime, tolerateErrors: Bool, map: TimeMap = .identity) throws {
        self.path = path
        self.start = start
        self.tolerateErrors = tolerateErrors
        retimer = map.isIdentity ? nil : SoundRetimer(channels: 2, rate: PCMReader.sampleRate, map: map, first: start)
        var c: UnsafeMutablePointer<AVFormatContext>? = nil
        let opened = avformat_open_input(&c, path, nil, nil)
        guard opened >= 0, let ctx = c else { throw SDRifyError.invalidInput("\(path): not a readable media file (\(ffErrorString(opened)))") }
        self.ctx = ctx
        func close() { var p: UnsafeMutablePointer<AVFormatContext>? = ctx; avformat_close_input(&p) }
        ctx.pointee.probesize = 8 << 20
        ctx.pointee.max_analyze_duration = Int64(AV_TIME_BASE / 2)
        guard avformat_find_stream_info(ctx, nil) >= 0 else { close(); throw SDRifyError.invalidInput("\(path): cannot read stream information") }
        var codec: UnsafePointer<AVCodec>? = nil
        let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard a >= 0, let codec, let d = avcodec_alloc_context3(codec) else { close(); return nil }
        stream = a
        decoder = d
        for i in 0..<Int(ctx.pointee.nb_streams) where i != Int(a) { ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
        let st = ctx.pointee.streams[Int(a)]!
        guard avcodec_parameters_to_context(d, st.pointee.codecpar) >= 0 else {
            close(); throw SDRifyError.invalidInput("\(path): audio decoder parameters")
        }
        d.pointee.pkt_timebase = st.pointee.time_base
        let r = avcodec_open2(d, codec, nil)
        guard r >= 0, let f = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, 4096), let fr = av_frame_alloc() else {
            var p: UnsafeMutablePointer<AVCodecContext>? = d; avcodec_free_context(&p); close()
            throw SDRifyError.invalidInput("\(path): cannot open the audio decoder (\(ffErrorString(r)))")
        }
        fifo = f; frame = fr
        packet = try Packet()
        if self.start > .zero { seek(to: self.start) }
    }

    deinit {
        var d: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&d)
        var p: UnsafeMutablePointer<AVFormatContext>? = ctx
        avformat_close_input(&p)
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// One tick per output sample.
    private static let sampleClock = TimeBase(num: 1, den: Int32(sampleRate))

    private var timeBase: AVRational { ctx.pointee.streams[Int(stream)]!.pointee.time_base }

    /// Whether the file also holds pictures (a cover-art picture does not count).
    package var hasVideo: Bool {
        (0..<Int(ctx.pointee.nb_streams)).contains { i in
            let st = ctx.pointee.streams[i]!.pointee
            return st.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && st.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
    }

    /// How long the sound is, as the stream or else the container declares it (nil: not declared).
    package var duration: MediaTime? {
        let st = ctx.pointee.streams[Int(stream)]!.pointee
        if st.duration != ffNoPTS, st.duration > 0 { return MediaTime(ticks: st.duration, TimeBase(st.time_base)) }
        if ctx.pointee.duration != ffNoPTS, ctx.pointee.duration > 0 { return MediaTime(ticks: ctx.pointee.duration, .microseconds) }
        return nil
    }

    private func seek(to time: MediaTime) {
        let ts = time.ticks(.microseconds)
        _ = avformat_seek_file(ctx, -1, Int64.min, ts, ts, 0)  // a file that cannot seek is read from the start
        avcodec_flush_buffers(decoder)
    }

    /// Back to `time` (music that loops): the next samples are those from there.
    package func restart(at time: MediaTime) {
        start = time
        seek(to: start)
        av_audio_fifo_reset(fifo)
        swr_free(&resampler)
        aligned = false
        ended = false
    }

    /// Up to `count` samples into `left`/`right`; fewer only at the end of the stream.
    package func read(_ count: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) throws -> Int {
        while Int(av_audio_fifo_size(fifo)) < count && !ended { try decodeMore() }
        let n = min(count, Int(av_audio_fifo_size(fifo)))
        guard n > 0 else { return 0 }
        var planes: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(left), UnsafeMutableRawPointer(right)]
        _ = planes.withUnsafeMutableBufferPointer { av_audio_fifo_read(fifo, $0.baseAddress, Int32(n)) }
        return n
    }

    /// The damage policy of the video's: refused, or counted with tolerate-errors.
    private func damaged(_ what: String) throws {
        guard tolerateErrors else { throw SDRifyError.invalidInput("\(path): damaged audio (\(what))") }
        errorsConcealed += 1
    }

    private func decodeMore() throws {
        let r = av_read_frame(ctx, packet.av)
        if r == ffEOF {
            _ = avcodec_send_packet(decoder, nil)
        } else if r < 0 {
            try damaged(ffErrorString(r))
            _ = avcodec_send_packet(decoder, nil)
        } else {
            defer { av_packet_unref(packet.av) }
            guard packet.av.pointee.stream_index == stream else { return }
            let s = avcodec_send_packet(decoder, packet.av)
            if s < 0 && s != ffEAGAIN { try damaged(ffErrorString(s)); return }
        }
        while true {
            let g = avcodec_receive_frame(decoder, frame)
            if g == ffEOF {
                try resample(nil)
                try retimer?.finish { try store($0, $1) }
                ended = true
                return
            }
            if g == ffEAGAIN { if r < 0 { ended = true }; return }
            if g < 0 { try damaged(ffErrorString(g)); continue }
            if frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 { try damaged("a damaged frame") }
            try resample(frame)
            av_frame_unref(frame)
        }
    }

    private func resample(_ input: UnsafeMutablePointer<AVFrame>?) throws {
        if resampler == nil {
            guard let input else { return }
            var stereo = AVChannelLayout()
            av_channel_layout_default(&stereo, 2)
            try ffCheck(
                swr_alloc_set_opts2(
                    &resampler, &stereo, AV_SAMPLE_FMT_FLTP, Int32(PCMReader.sampleRate),
                    &input.pointee.ch_layout, AVSampleFormat(rawValue: input.pointee.format),
                    input.pointee.sample_rate, 0, nil), "\(path): audio resampler")
            try ffCheck(swr_init(resampler), "\(path): audio resampler")
        }
        let inSamples = input.map { Int32($0.pointee.nb_samples) } ?? 0
        let capacity = Int(swr_get_out_samples(resampler, inSamples)) + 32
        if resampledLeft.count < capacity {
            resampledLeft = [Float](repeating: 0, count: capacity)
            resampledRight = resampledLeft
        }
        let converted: Int32 = resampledLeft.withUnsafeMutableBufferPointer { lp in
            resampledRight.withUnsafeMutableBufferPointer { rp in
                var out: [UnsafeMutablePointer<UInt8>?] = [
                    UnsafeMutableRawPointer(lp.baseAddress!).assumingMemoryBound(to: UInt8.self),
                    UnsafeMutableRawPointer(rp.baseAddress!).assumingMemoryBound(to: UInt8.self)
                ]
                return out.withUnsafeMutableBufferPointer { o in
                    if let input {
                        return input.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) {
                            swr_convert(resampler, o.baseAddress, Int32(capacity), $0, inSamples)
                        }
                    }
                    return swr_convert(resampler, o.baseAddress, Int32(capacity), nil, 0)
                }
            }
        }
        try ffCheck(converted, "\(path): resampling audio")
        var n = Int(converted), skip = 0
        if !aligned, let input, n > 0 {
            // Place the first samples against `start`: drop what lies before it, pad with silence up to a late start.
            aligned = true
            let pts = input.pointee.best_effort_timestamp
            if pts != ffNoPTS {
                let offset = Int((MediaTime(ticks: pts, TimeBase(timeBase)) - start).ticks(PCMReader.sampleClock))
                if offset < 0 { skip = min(-offset, n) } else if offset > 0 { try pad(silence: min(offset, 10 * PCMReader.sampleRate)) }
            }
        }
        n -= skip
        guard n > 0 else { return }
        try resampledLeft.withUnsafeBufferPointer { lp in
            try resampledRight.withUnsafeBufferPointer { rp in try place([lp.baseAddress! + skip, rp.baseAddress! + skip], n) }
        }
    }

    private func pad(silence n: Int) throws {
        let zeros = [Float](repeating: 0, count: n)
        try zeros.withUnsafeBufferPointer { z in try place([z.baseAddress!, z.baseAddress!], n) }
    }

    /// Samples on the source's clock, in order: retimed when there is a map, then buffered.
    private func place(_ planes: [UnsafePointer<Float>], _ n: Int) throws {
        if let retimer { try retimer.process(planes, count: n) { try store($0, $1) } } else { try store(planes, n) }
    }

    private func store(_ planes: [UnsafePointer<Float>], _ n: Int) throws {
        var p: [UnsafeMutableRawPointer?] = planes.map { UnsafeMutableRawPointer(mutating: $0) }
        try ffCheck(p.withUnsafeMutableBufferPointer { av_audio_fifo_write(fifo, $0.baseAddress, Int32(n)) }, "\(path): buffering audio")
    }
}
