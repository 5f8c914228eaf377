import CFFmpeg
import SDRifyValues

/// Encoder settings the pipeline asks for.
package struct VideoEncoderSettings: Sendable {
    package var codec: VideoCodec = .h264
    var crf: Int = 23
    var speed: String = "veryfast"  // the encoder's speed preset (x264's names; not an export preset)
    var threads: Int = 0  // 0 = the encoder's own choice
    /// A cap on the bit rate (`--max-bitrate`): the encoder's VBV with CRF, nil for none.
    var maxBitRate: BitRate? = nil
    /// What the pictures are: SDR (8-bit BT.709) or the HDR kept (10-bit BT.2020, PQ or HLG), and (HDR) the source's
    /// static metadata to carry.
    package var range: HDRKind = .sdr
    package var hdr = HDRMetadata()

    package init(
        codec: VideoCodec = .h264, crf: Int = 23, speed: String = "veryfast", threads: Int = 0, maxBitRate: BitRate? = nil,
        range: HDRKind = .sdr, hdr: HDRMetadata = HDRMetadata()
    ) {
        self.codec = codec; self.crf = crf; self.speed = speed; self.threads = threads; self.maxBitRate = maxBitRate
        self.range = range; self.hdr = hdr
    }

    /// The static metadata written: the values that can describe a real display and programme (nonsense is dropped,
    /// as the tone map drops it).
    var carriedHDR: HDRMetadata {
        guard range != .sdr else { return HDRMetadata() }
        return HDRMetadata(
            masteringDisplay: hdr.masteringDisplay.flatMap { $0.defect == nil ? $0 : nil },
            contentLightLevel: hdr.contentLightLevel.flatMap { $0.defect == nil && $0.maxCLL > 0 ? $0 : nil })
    }
}

/// libx264 (High; High 4:4:4 Predictive for lossless CRF 0), libx265 (Main) or SVT-AV1 (Main) through libavcodec:
/// 8-bit 4:2:0, BT.709 tags in the VUI or sequence header, source timestamps kept; the level follows from size and
/// rate (the encoders choose it). The HDR kept: 10-bit 4:2:0 (x265 Main 10, SVT-AV1 Main), BT.2020 and the
/// transfer tagged, the source's mastering display and light level written in the stream.
package final class VideoEncoder {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    package let codec: VideoCodec
    /// The static HDR metadata in the stream (the muxer writes it in the container too).
    let hdr: HDRMetadata
    /// Pictures sent and the end not yet: freed so, SVT-AV1 waits forever for its threads (it wants the end first).
    private var inFlight = false

    package init(
        width: Int, height: Int, timeBase: TimeBase, frameRate: FrameRate, settings: VideoEncoderSettings,
        globalHeader: Bool
    ) throws {
        let timeBase = timeBase.av
        let frameRate = AVRational(num: Int32(clamping: frameRate.num), den: Int32(clamping: frameRate.den))
        self.codec = settings.codec
        hdr = settings.carriedHDR
        let entry = settings.codec.catalog
        if let problem = CodecCatalog.rangeProblem(settings.codec, kind: settings.range) { throw SDRifyError.usage(problem) }
        guard let codec = avcodec_find_encoder_by_name(entry.encoder) else {
            throw SDRifyError.conversion("\(entry.encoder) is not available in this libavcodec")
        }
        if let problem = CodecCatalog.sizeProblem(settings.codec, width: width, height: height) { throw SDRifyError.usage(problem) }
        for variable in entry.environment { setenv(variable.name, variable.value, 0) }
        guard let c = avcodec_alloc_context3(codec) else { throw SDRifyError.conversion("out of memory") }
        ctx = c
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = PlanarFormat.output(settings.range).avPixelFormat!
        c.pointee.time_base = timeBase
        c.pointee.framerate = frameRate
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.thread_count = Int32(settings.threads)
        if let cap = settings.maxBitRate {  // CRF within a VBV: the quality of the CRF where the cap allows it
            c.pointee.rc_max_rate = cap.encoderMaxRate
            c.pointee.rc_buffer_size = Int32(clamping: cap.bufferBits)
        }
        // Keyframes are the encoder's: at scene cuts and at least every 250 frames, as ffmpeg leaves them. A fixed
        // 2 s interval was measured costing 14 % more bytes and 8 % more x264 time at the same CRF.
        ColorMapping.apply(.output(settings.range), to: c)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var opts: OpaquePointer? = nil
        av_dict_set(&opts, "preset", settings.speed, 0)
        av_dict_set(&opts, "crf", String(settings.crf), 0)
        let profile: (String, Int32)
        if settings.range != .sdr, let hdrProfile = entry.hdrProfile {
            profile = (hdrProfile.name, hdrProfile.id ?? FF_PROFILE_UNKNOWN)
        } else if settings.crf == 0, let lossless = entry.losslessProfile {
            profile = lossless
        } else {
            profile = (entry.profile, entry.profileID ?? FF_PROFILE_UNKNOWN)
        }
        if profile.1 != FF_PROFILE_UNKNOWN { c.pointee.profile = profile.1 }
        av_dict_set(&opts, "profile", profile.0, 0)
        let params = entry.params(settings.threads) + (settings.range == .sdr ? [] : entry.hdrParams(hdr))
        if let option = entry.paramsOption, !params.isEmpty { av_dict_set(&opts, option, params.joined(separator: ":"), 0) }
        av_dict_set(&opts, "forced-idr", "1", 0)  // a keyframe asked for (a segment's start) is an IDR picture
        defer { av_dict_free(&opts) }
        try ffCheck(
            avcodec_open2(c, codec, &opts),
            "opening \(entry.encoder) (preset \(settings.speed), crf \(settings.crf))")
    }

    deinit {
        if inFlight, avcodec_send_frame(ctx, nil) >= 0 {
            // A conversion that failed midway: the pictures still inside are encoded and dropped.
            let packet = av_packet_alloc()
            while avcodec_receive_packet(ctx, packet) >= 0 { av_packet_unref(packet) }
            var pk = packet
            av_packet_free(&pk)
        }
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
    }

    /// Encodes a picture (nil: the end); with `keyframe` it starts a closed group of pictures (an IDR picture:
    /// where a segment of a stream that is cut begins).
    package func send(_ frame: Frame?, keyframe: Bool = false) throws {
        if let f = frame { f.av.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
        let r = avcodec_send_frame(ctx, frame?.av)
        if r == ffEOF { return }
        try ffCheck(r, "encoding video")
        inFlight = frame != nil
    }

    /// The next encoded packet, or false when the encoder wants more input.
    package func receive(into packet: Packet) throws -> Bool {
        av_packet_unref(packet.av)
        let r = avcodec_receive_packet(ctx, packet.av)
        if r == ffEAGAIN || r == ffEOF { return false }
        try ffCheck(r, "encoding video")
        saneDecodeTime(packet.av)
        return true
    }

    /// The latest decode time handed out.
    private var lastDTS: Int64? = nil

    /// x265's 10-bit library leaves the decode time of a picture flushed alone unset (any value; seen with
    /// libavcodec 5.1 on one-picture inputs, which the muxer then refuses). A decode time after the presentation
    /// time, not after the previous one, or earlier than any reordering puts it (16 pictures) is none: it becomes the
    /// latest one plus a tick, at most the presentation time (the presentation time itself for the first packet).
    private func saneDecodeTime(_ p: UnsafeMutablePointer<AVPacket>) {
        let pts = p.pointee.pts, dts = p.pointee.dts
        guard pts != ffNoPTS else { return }
        let tb = ctx.pointee.time_base, rate = ctx.pointee.framerate
        let picture = rate.num > 0 && tb.num > 0 ? max(1, Int64(tb.den) * Int64(rate.den) / (Int64(tb.num) * Int64(rate.num))) : 1
        let deepest = pts - 16 * picture
        if dts == ffNoPTS || dts > pts || dts < deepest || lastDTS.map({ dts <= $0 }) == true {
            p.pointee.dts = lastDTS.map { min(pts, $0 + 1) } ?? pts
        }
        lastDTS = p.pointee.dts
    }
}
