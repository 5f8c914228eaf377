import CFFmpeg
import SDRifySecurity
import SDRifyValues

/// How a render decodes its inputs: the same values for every clip and every caller.
package struct DecodeSettings: Sendable {
    /// Conceal decode errors and go on (counted) instead of failing with exit 2.
    package var tolerateErrors = false
    /// Our own check of H.264 and HEVC slice data (BitstreamCheck): on unless the caller trusts its input.
    package var checkBitstream = true
    /// The whole render's thread budget (0: automatic; 1: everything on the calling thread).
    package var threads = 0

    package init() {}
}

/// A video decoder for one stream, frame-threaded.
package final class Decoder {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    private let label: String
    private let errorCount = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// `sideDataOnly`: the caller wants the first picture's side data (SEI), not its pixels, so the decoder
    /// may skip loop filtering and use slice threads (frame threads would delay the first picture).
    init(stream: UnsafeMutablePointer<AVStream>, threads: Int, label: String, sideDataOnly: Bool = false) throws {
        self.label = label
        let par = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else { throw Decoder.missing(par.pointee, label: label) }
        guard let c = avcodec_alloc_context3(codec) else { throw SDRifyError.conversion("out of memory") }
        ctx = c
        errorCount.initialize(to: 0)
        c.pointee.opaque = UnsafeMutableRawPointer(errorCount)  // where the log callback counts this decoder's errors
        try ffCheck(avcodec_parameters_to_context(c, par), "\(label): decoder parameters")
        c.pointee.pkt_timebase = stream.pointee.time_base
        // Every check the decoders offer (checksums, bitstream conformance, buffer bounds) reports damage.
        c.pointee.err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_CAREFUL | AV_EF_COMPLIANT
        // --max-pixels also binds a picture that grows mid-stream: libavcodec refuses to allocate it.
        if let cap = Limits.current.maxPixels { c.pointee.max_pixels = Int64(cap) }
        c.pointee.thread_count = Int32(threads)  // 0 = one per core
        c.pointee.thread_type = sideDataOnly ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE
        if sideDataOnly { c.pointee.skip_loop_filter = AVDISCARD_ALL }
        try ffCheck(
            avcodec_open2(c, codec, nil), "\(label): opening the \(String(cString: codec.pointee.name)) decoder",
            status: .invalidInput)
    }

    /// The input's video decoder.
    package convenience init(videoOf demuxer: Demuxer, threads: Int) throws {
        try self.init(stream: demuxer.videoStream, threads: threads, label: "\(demuxer.path): video")
    }

    /// The refusal for a stream no decoder here can read.
    static func missing(_ par: AVCodecParameters, label: String) -> SDRifyError {
        if par.codec_id == AV_CODEC_ID_NONE {
            // Dolby Vision profile 10 is AV1 under its own sample entry, which this libavformat does not map to AV1.
            if fourCC(par.codec_tag) == "dav1" {
                return SDRifyError.unsupported(
                    "\(label): Dolby Vision profile 10 (AV1 in a 'dav1' sample entry), which this FFmpeg does not read: unsupported")
            }
            return SDRifyError.unsupported("\(label): unknown codec (fourcc '\(fourCC(par.codec_tag))')")
        }
        return SDRifyError.unsupported("\(label): no decoder for codec '\(String(cString: avcodec_get_name(par.codec_id)))'")
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
        errorCount.deallocate()
    }

    /// Waits for the decoding threads to go idle once the decoder is drained (flushing its buffers), so that any
    /// message they log about the last pictures has been counted.
    package func finish() { avcodec_flush_buffers(ctx) }

    /// Error-level messages this decoder has logged so far: damage it concealed without failing a call (counted
    /// by the log callback that silenceFFmpegLogging installs, from every decoding thread).
    package var loggedErrors: Int { Int(cffmpeg_load_count(errorCount)) }

    /// Feeds one packet (nil drains). Corrupt data is invalid input.
    package func send(_ packet: Packet?) throws {
        let r = avcodec_send_packet(ctx, packet?.av)
        if r == ffEAGAIN || r == ffEOF { return }
        if r < 0 { try checkPictureSize() }
        try ffCheck(r, "\(label): decoding", status: .invalidInput)
    }

    /// A decoding failure because the stream's pictures grew beyond --max-pixels is that limit (exit 3).
    private func checkPictureSize() throws {
        try Limits.checkPicture(width: Int(ctx.pointee.width), height: Int(ctx.pointee.height), in: label)
    }

    /// The next decoded frame, or nil when the decoder needs more input (or is drained).
    package func receive() throws -> Frame? {
        let frame = try Frame()
        let r = avcodec_receive_frame(ctx, frame.av)
        if r == ffEAGAIN || r == ffEOF { return nil }
        if r < 0 { try checkPictureSize() }
        try ffCheck(r, "\(label): decoding", status: .invalidInput)
        // The picture's own timestamp (its packet's), not libavcodec's "best effort" guess, which switches to the
        // decoding timestamps when presentation timestamps misbehave and so hides damaged timing; the guess
        // only where there is none (raw streams).
        if frame.av.pointee.pts == ffNoPTS { frame.av.pointee.pts = frame.av.pointee.best_effort_timestamp }
        return frame
    }
}
