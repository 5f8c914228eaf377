import CFFmpeg
import SDRifyValues

/// Any decodable audio → AAC-LC at 48 kHz (FFmpeg's native encoder): more than two channels are mixed down to
/// stereo, mono stays mono. Timestamps follow the first decoded sample, so the A/V offset is kept. With a time map
/// (a speed, slow motion) the sound is time-stretched on the way (SoundRetimer) and stamped by the map.
final class AudioTranscoder {
    private let aac: AACEncoder
    var encoder: UnsafeMutablePointer<AVCodecContext> { aac.ctx }
    private let decoder: UnsafeMutablePointer<AVCodecContext>
    private var resampler: OpaquePointer?
    private let fifo: OpaquePointer
    private let inTimeBase: AVRational
    private let label: String
    private var startSet = false  // the first decoded sample's time given to the encoder
    private let map: TimeMap
    private var retimer: SoundRetimer? = nil  // made at the first sample, when the map is not the identity
    private let stage: SoundStage?  // --loudness: its survey, or its gain and limiter
    private let frame: UnsafeMutablePointer<AVFrame>
    private let outFrame: UnsafeMutablePointer<AVFrame>
    static let sampleRate = AACEncoder.sampleRate

    package init(
        stream: UnsafeMutablePointer<AVStream>, globalHeader: Bool, label: String, map: TimeMap = .identity, stage: SoundStage? = nil
    ) throws {
        self.label = label
        self.map = map
        self.stage = stage
        inTimeBase = stream.pointee.time_base
        let par = stream.pointee.codecpar!
        guard let dec = avcodec_find_decoder(par.pointee.codec_id), let d = avcodec_alloc_context3(dec) else {
            throw SDRifyError.unsupported("\(label): no decoder for audio codec '\(String(cString: avcodec_get_name(par.pointee.codec_id)))'")
        }
        decoder = d
        try ffCheck(avcodec_parameters_to_context(d, par), "\(label): audio decoder parameters")
        d.pointee.pkt_timebase = stream.pointee.time_base
        try ffCheck(avcodec_open2(d, dec, nil), "\(label): opening the audio decoder", status: .invalidInput)

        let channels = min(Int32(max(par.pointee.ch_layout.nb_channels, 1)), 2)
        aac = try AACEncoder(channels: channels, globalHeader: globalHeader)
        guard let f = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, channels, 4096), let fr = av_frame_alloc(), let of = av_frame_alloc() else {
            throw SDRifyError.conversion("out of memory")
        }
        fifo = f; frame = fr; outFrame = of
    }

    deinit {
        var d: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&d)
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var o: UnsafeMutablePointer<AVFrame>? = outFrame
        av_frame_free(&o)
    }

    /// Decodes one packet (nil flushes everything) and hands each encoded AAC packet to `write`.
    func transcode(_ packet: Packet?, write: (Packet) throws -> Void) throws {
        let r = avcodec_send_packet(decoder, packet?.av)
        if r < 0 && r != ffEAGAIN && r != ffEOF { try ffCheck(r, "\(label): decoding audio", status: .invalidInput) }
        while true {
            let g = avcodec_receive_frame(decoder, frame)
            if g == ffEAGAIN || g == ffEOF { break }
            try ffCheck(g, "\(label): decoding audio", status: .invalidInput)
            try resample(frame)
            av_frame_unref(frame)
            try encodeFIFO(final: false, write: write)
        }
        if packet == nil {
            try resample(nil)
            try retimer?.finish { try staged($0, $1) }
            try stage?.finish { try buffer($0, $1) }
            try encodeFIFO(final: true, write: write)
            try aac.finish(write: write)
        }
    }

    private func resample(_ input: UnsafeMutablePointer<AVFrame>?) throws {
        if resampler == nil {
            guard let input else { return }
            try ffCheck(
                swr_alloc_set_opts2(
                    &resampler, &encoder.pointee.ch_layout, AV_SAMPLE_FMT_FLTP, AudioTranscoder.sampleRate,
                    &input.pointee.ch_layout, AVSampleFormat(rawValue: input.pointee.format),
                    input.pointee.sample_rate, 0, nil), "\(label): audio resampler")
            try ffCheck(swr_init(resampler), "\(label): audio resampler")
            if !startSet {
                startSet = true
                let pts = input.pointee.pts
                let first = pts == ffNoPTS ? MediaTime.zero : MediaTime(ticks: pts, TimeBase(inTimeBase))
                if !map.isIdentity {
                    retimer = SoundRetimer(
                        channels: Int(encoder.pointee.ch_layout.nb_channels), rate: Int(AudioTranscoder.sampleRate), map: map, first: first)
                    aac.nextPTS = map.output(first).ticks(TimeBase(encoder.pointee.time_base))
                } else if pts != ffNoPTS {
                    aac.nextPTS = av_rescale_q(pts, inTimeBase, encoder.pointee.time_base)
                }
            }
        }
        let inSamples = input.map { Int32($0.pointee.nb_samples) } ?? 0
        let capacity = Int32(swr_get_out_samples(resampler, inSamples)) + 32
        guard capacity > 0 else { return }
        outFrame.pointee.nb_samples = capacity
        outFrame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        outFrame.pointee.sample_rate = AudioTranscoder.sampleRate
        try ffCheck(av_channel_layout_copy(&outFrame.pointee.ch_layout, &encoder.pointee.ch_layout), "audio layout")
        try ffCheck(av_frame_get_buffer(outFrame, 0), "audio buffer")
        defer { av_frame_unref(outFrame) }
        let converted: Int32
        if let input {
            converted = input.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) {
                swr_convert(resampler, outFrame.pointee.extended_data, capacity, $0, inSamples)
            }
        } else {
            converted = swr_convert(resampler, outFrame.pointee.extended_data, capacity, nil, 0)  // flush
        }
        try ffCheck(converted, "\(label): resampling audio")
        if converted > 0 {
            let channels = Int(encoder.pointee.ch_layout.nb_channels)
            let planes = (0..<channels).map {
                UnsafePointer(outFrame.pointee.extended_data[$0]!.withMemoryRebound(to: Float.self, capacity: 1) { $0 })
            }
            if let retimer {
                try retimer.process(planes, count: Int(converted)) { try staged($0, $1) }
            } else {
                try staged(planes, Int(converted))
            }
        }
    }

    /// Through the stage (--loudness), if any, into the FIFO.
    private func staged(_ planes: [UnsafePointer<Float>], _ count: Int) throws {
        if let stage { try stage.process(planes, count: count) { try buffer($0, $1) } } else { try buffer(planes, count) }
    }

    /// Into the FIFO the encoder takes whole frames from.
    private func buffer(_ planes: [UnsafePointer<Float>], _ count: Int) throws {
        var p: [UnsafeMutableRawPointer?] = planes.map { UnsafeMutableRawPointer(mutating: $0) }
        let written = p.withUnsafeMutableBufferPointer { av_audio_fifo_write(fifo, $0.baseAddress, Int32(count)) }
        try ffCheck(written, "\(label): buffering audio")
    }

    /// Encodes whole 1024-sample frames from the FIFO (and the short remainder at the end).
    private func encodeFIFO(final: Bool, write: (Packet) throws -> Void) throws {
        let size = aac.frameSize
        while av_audio_fifo_size(fifo) >= size || (final && av_audio_fifo_size(fifo) > 0) {
            let n = min(Int32(size), av_audio_fifo_size(fifo))
            try aac.encode(
                count: Int(n),
                fill: { planes in
                    _ = planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { av_audio_fifo_read(fifo, $0, n) }
                }, write: write)
        }
    }
}
