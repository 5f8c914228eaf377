import CFFmpeg

/// H.264 settings the pipeline asks for.
public struct VideoEncoderSettings: Sendable {
    public var crf: Int = 23
    public var x264Preset: String = "veryfast"
    public var threads: Int = 0  // 0 = x264's own choice
    public init(crf: Int = 23, x264Preset: String = "veryfast", threads: Int = 0) {
        self.crf = crf; self.x264Preset = x264Preset; self.threads = threads
    }
}

/// libx264 through libavcodec: High profile, 8-bit 4:2:0, BT.709 tags in the VUI, source timestamps kept.
final class VideoEncoder {
    let ctx: UnsafeMutablePointer<AVCodecContext>

    init(width: Int, height: Int, timeBase: AVRational, frameRate: AVRational, settings: VideoEncoderSettings,
         globalHeader: Bool) throws {
        guard let codec = avcodec_find_encoder_by_name("libx264") else {
            throw SDRifyError.conversion("libx264 is not available in this libavcodec")
        }
        guard let c = avcodec_alloc_context3(codec) else { throw SDRifyError.conversion("out of memory") }
        ctx = c
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = timeBase
        c.pointee.framerate = frameRate
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.thread_count = Int32(settings.threads)
        let fps = frameRate.double > 0 ? frameRate.double : 30
        c.pointee.gop_size = Int32(max(1, (fps * 2).rounded()))  // a keyframe about every 2 s
        c.pointee.profile = FF_PROFILE_H264_HIGH
        ColorMapping.apply(.sdrOutput, to: c)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var opts: OpaquePointer? = nil
        av_dict_set(&opts, "preset", settings.x264Preset, 0)
        av_dict_set(&opts, "crf", String(settings.crf), 0)
        av_dict_set(&opts, "profile", "high", 0)
        defer { av_dict_free(&opts) }
        try ffCheck(avcodec_open2(c, codec, &opts), "opening libx264 (preset \(settings.x264Preset), crf \(settings.crf))")
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
    }

    func send(_ frame: Frame?) throws {
        if let f = frame { f.av.pointee.pict_type = AV_PICTURE_TYPE_NONE }
        let r = avcodec_send_frame(ctx, frame?.av)
        if r == ffEOF { return }
        try ffCheck(r, "encoding video")
    }

    /// The next encoded packet, or false when the encoder wants more input.
    func receive(into packet: Packet) throws -> Bool {
        av_packet_unref(packet.av)
        let r = avcodec_receive_packet(ctx, packet.av)
        if r == ffEAGAIN || r == ffEOF { return false }
        try ffCheck(r, "encoding video")
        return true
    }
}
