import CFFmpeg
import SDRifyProbe
import SDRifyValues

/// What a conversion keeps of its input's container tags (`--metadata`).
package enum MetadataPolicy: String, CaseIterable, Sendable {
    /// The creation time (and location with `--keep-location`).
    case minimal
    /// Every tag people rely on: creation time, make, model, software, location, Apple's and Android's keys.
    case keep
}

/// Where a segmented output (HLS: fragmented MP4, CMAF) puts its segments: the muxer asks before each packet
/// whether it begins a new segment, and for the new segment's file when one begins (the previous one is then
/// complete). The header (ftyp + moov) goes to the file the muxer was made with: the init segment.
package protocol SegmentedOutput: AnyObject {
    /// Whether a packet starting at `time` (on the output's clock) begins a new segment; the first always does.
    func beginsSegment(at time: MediaTime, keyframe: Bool) -> Bool
    /// The file the segment starting at `time` is written to; the one before is complete.
    func nextSegment(startingAt time: MediaTime) throws -> Int32
    /// A packet was written that ends at `time`.
    func wrote(until time: MediaTime)
}

/// Writes an MP4/MOV file: streams from the encoder or copied from the input, fast start (moov first),
/// no display matrix and no HDR side data on the video stream.
package final class Muxer {
    let ctx: UnsafeMutablePointer<AVFormatContext>
    private let path: String
    package let fd: Int32  // the output, read and written: fast start reads it back, and tracks FFmpeg cannot write are added after
    private var headerWritten = false
    private var ioOpen = false
    /// Fragmented and cut into segments (HLS), or nil for one file with the index first (fast start).
    package weak var segments: SegmentedOutput? = nil
    private var segmentOpen = false
    /// A segmented output's clock starts this late: every track's decode times then stay positive (B-frame
    /// reordering puts the first picture's decode time before 0, AAC priming the first sound's), so each fragment
    /// states its absolute decode time and tracks in separate files (HLS renditions) stay in sync, as MPEG-TS HLS
    /// starts its clock late too. Without it, movenc starts every track's decode time at 0 and the video shows its
    /// reordering delay late.
    package var segmentedStart = MediaTime.zero
    /// movenc (frag_discont) takes the first packet's presentation time as the first fragment's decode time, which
    /// puts every picture late by the first packet's reordering delay: taken off again, so times are exact.
    private var firstReorderDelay: Int64? = nil

    /// Writes through `fd` (opened for reading and writing: fast start reads the file back); `path` names the
    /// output in messages.
    package init(fd: Int32, path: String, formatName: String) throws {
        self.path = path
        self.fd = fd
        var c: UnsafeMutablePointer<AVFormatContext>? = nil
        try ffCheck(
            avformat_alloc_output_context2(&c, nil, formatName, path), "\(path): output format",
            status: .outputProblem)
        ctx = c!
    }

    deinit {
        if ioOpen { cffmpeg_fd_avio_free(&ctx.pointee.pb) }
        avformat_free_context(ctx)
    }

    package var needsGlobalHeader: Bool { ctx.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    package func addStream(from encoder: VideoEncoder) throws -> Int {
        guard let st = avformat_new_stream(ctx, nil) else { throw SDRifyError.conversion("out of memory") }
        try ffCheck(avcodec_parameters_from_context(st.pointee.codecpar, encoder.ctx), "video stream parameters")
        if let tag = encoder.codec.catalog.codecTag { st.pointee.codecpar.pointee.codec_tag = tag }
        st.pointee.time_base = encoder.ctx.pointee.time_base
        st.pointee.avg_frame_rate = encoder.ctx.pointee.framerate
        try Muxer.attach(encoder.hdr, to: st)
        return Int(st.pointee.index)
    }

    /// The stream's static HDR metadata as side data, which the MP4/QuickTime muxer writes as its `mdcv` and `clli`.
    private static func attach(_ hdr: HDRMetadata, to st: UnsafeMutablePointer<AVStream>) throws {
        func q(_ v: Double, _ den: Int32) -> AVRational { AVRational(num: Int32((v * Double(den)).rounded()), den: den) }
        if let md = hdr.masteringDisplay {
            let size = MemoryLayout<AVMasteringDisplayMetadata>.size
            guard let data = av_stream_new_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, size) else {
                throw SDRifyError.conversion("out of memory")
            }
            var m = AVMasteringDisplayMetadata()
            m.display_primaries = (
                (q(md.redX, 50000), q(md.redY, 50000)), (q(md.greenX, 50000), q(md.greenY, 50000)), (q(md.blueX, 50000), q(md.blueY, 50000))
            )
            m.white_point = (q(md.whitePointX, 50000), q(md.whitePointY, 50000))
            m.max_luminance = q(md.maxLuminance, 10000)
            m.min_luminance = q(md.minLuminance, 10000)
            m.has_primaries = 1; m.has_luminance = 1
            UnsafeMutableRawPointer(data).storeBytes(of: m, as: AVMasteringDisplayMetadata.self)
        }
        if let cll = hdr.contentLightLevel {
            guard let data = av_stream_new_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, MemoryLayout<AVContentLightMetadata>.size) else {
                throw SDRifyError.conversion("out of memory")
            }
            let c = AVContentLightMetadata(MaxCLL: UInt32(cll.maxCLL), MaxFALL: UInt32(cll.maxFALL))
            UnsafeMutableRawPointer(data).storeBytes(of: c, as: AVContentLightMetadata.self)
        }
    }

    /// An audio stream fed by sdrify's AAC encoder.
    package func addStream(audio encoder: AACEncoder) throws -> Int { try addStream(audio: encoder.ctx) }

    /// An audio stream fed by an encoder; `like`: the input stream it carries (its language is kept).
    func addStream(
        audio encoder: UnsafeMutablePointer<AVCodecContext>, like input: UnsafeMutablePointer<AVStream>? = nil, isDefault: Bool = true
    ) throws -> Int {
        guard let st = avformat_new_stream(ctx, nil) else { throw SDRifyError.conversion("out of memory") }
        try ffCheck(avcodec_parameters_from_context(st.pointee.codecpar, encoder), "audio stream parameters")
        st.pointee.time_base = encoder.pointee.time_base
        st.pointee.disposition = isDefault ? AV_DISPOSITION_DEFAULT : 0
        if let input { Muxer.copyLanguage(from: input, to: st) }
        return Int(st.pointee.index)
    }

    private static func copyLanguage(from input: UnsafeMutablePointer<AVStream>, to st: UnsafeMutablePointer<AVStream>) {
        if let lang = av_dict_get(input.pointee.metadata, "language", nil, 0) {
            av_dict_set(&st.pointee.metadata, "language", lang.pointee.value, 0)
        }
    }

    /// A subtitle stream fed by a subtitle encoder, with its language (ISO 639-2).
    func addStream(subtitles encoder: UnsafeMutablePointer<AVCodecContext>, language: String?) throws -> Int {
        guard let st = avformat_new_stream(ctx, nil) else { throw SDRifyError.conversion("out of memory") }
        try ffCheck(avcodec_parameters_from_context(st.pointee.codecpar, encoder), "subtitle stream parameters")
        st.pointee.time_base = encoder.pointee.time_base
        if let language { av_dict_set(&st.pointee.metadata, "language", language, 0) }
        return Int(st.pointee.index)
    }

    /// The video stream copied as is (Passthrough), without its display matrix or HDR side data.
    package func addCopiedVideoStream(from demuxer: Demuxer) throws -> Int {
        let input = demuxer.videoStream
        guard let st = avformat_new_stream(ctx, nil) else { throw SDRifyError.conversion("out of memory") }
        try ffCheck(avcodec_parameters_copy(st.pointee.codecpar, input.pointee.codecpar), "video stream parameters")
        st.pointee.codecpar.pointee.codec_tag = CodecCatalog.codecTag(copying: input.pointee.codecpar.pointee.codec_id)
        st.pointee.time_base = input.pointee.time_base
        st.pointee.avg_frame_rate = input.pointee.avg_frame_rate
        return Int(st.pointee.index)
    }

    /// A stream copied as is from the input (AAC audio), its language kept.
    func addCopiedStream(from input: UnsafeMutablePointer<AVStream>, isDefault: Bool = true) throws -> Int {
        guard let st = avformat_new_stream(ctx, nil) else { throw SDRifyError.conversion("out of memory") }
        try ffCheck(avcodec_parameters_copy(st.pointee.codecpar, input.pointee.codecpar), "audio stream parameters")
        st.pointee.codecpar.pointee.codec_tag = 0
        st.pointee.time_base = input.pointee.time_base
        st.pointee.disposition = isDefault ? AV_DISPOSITION_DEFAULT : 0
        Muxer.copyLanguage(from: input, to: st)
        return Int(st.pointee.index)
    }

    func setMetadata(_ key: String, _ value: String) { av_dict_set(&ctx.pointee.metadata, key, value, 0) }

    /// Copies container metadata from the input. `.minimal`: creation time, and location only when asked (privacy).
    /// `.keep`: every tag but the container's own bookkeeping (brands, the muxer that wrote it): creation time,
    /// make, model, software, location, Apple's and Android's keys, written as the keys they were (QuickTime
    /// `mdta` keys, which MP4 carries too).
    package func copyMetadata(from demuxer: Demuxer, keepLocation: Bool, policy: MetadataPolicy = .minimal) {
        let input = demuxer.ctx
        switch policy {
        case .minimal:
            var keys = ["creation_time"]
            if keepLocation { keys += ["location", "location-eng", "com.apple.quicktime.location.ISO6709"] }
            for key in keys {
                if let entry = av_dict_get(input.pointee.metadata, key, nil, 0) { setMetadata(key, String(cString: entry.pointee.value)) }
            }
        case .keep:
            let bookkeeping: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder"]
            for (key, value) in MediaInspector.tags(input.pointee.metadata) where !bookkeeping.contains(key) { setMetadata(key, value) }
            writesMetadataKeys = true
        }
    }
    /// Whether the header writes tags as QuickTime metadata keys (any key kept as it is).
    private var writesMetadataKeys = false

    /// The input's chapters, moved by `shift` seconds and cut to [0, `end`) (those outside dropped). The output
    /// context frees them with itself.
    /// `onOutput`: where an input time lands on the output's clock; `end`: the output's end (nil: no cut).
    package func copyChapters(from demuxer: Demuxer, onOutput: (MediaTime) -> MediaTime, end: MediaTime?) throws {
        let input = demuxer.ctx
        var kept: [UnsafeMutablePointer<AVChapter>] = []
        for i in 0..<Int(input.pointee.nb_chapters) {
            guard let c = input.pointee.chapters[i] else { continue }
            let tb = TimeBase(c.pointee.time_base)
            let start = max(0, onOutput(MediaTime(ticks: c.pointee.start, tb)).seconds)
            var stop = onOutput(MediaTime(ticks: c.pointee.end, tb)).seconds
            if let end { stop = min(stop, end.seconds) }
            guard stop > start else { continue }
            guard let out = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self) else {
                throw SDRifyError.conversion("out of memory")
            }
            out.pointee.id = Int64(kept.count)
            out.pointee.time_base = AVRational(num: 1, den: 1000)
            out.pointee.start = Int64((start * 1000).rounded())
            out.pointee.end = Int64((stop * 1000).rounded())
            av_dict_copy(&out.pointee.metadata, c.pointee.metadata, 0)
            kept.append(out)
        }
        guard !kept.isEmpty,
            let array = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size * kept.count)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        else { return }
        for (i, c) in kept.enumerated() { array[i] = c }
        ctx.pointee.chapters = array
        ctx.pointee.nb_chapters = UInt32(kept.count)
    }

    package func writeHeader() throws {
        try ffCheck(cffmpeg_use_fd(ctx, fd), "\(path): cannot write", status: .outputProblem)
        ioOpen = true
        var opts: OpaquePointer? = nil
        if segments != nil {
            ctx.pointee.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED
            // One fragment per segment, cut where the segmenter says; moov empty in the init segment; every moof
            // addressing its own data (CMAF, as HLS and DASH players expect); no trailing index.
            // frag_discont: the first fragment states its own decode time (tfdt) instead of 0.
            av_dict_set(&opts, "movflags", "+frag_custom+empty_moov+default_base_moof+cmaf+skip_trailer+frag_discont", 0)
        } else {
            av_dict_set(&opts, "movflags", writesMetadataKeys ? "+faststart+use_metadata_tags" : "+faststart", 0)
        }
        defer { av_dict_free(&opts) }
        // The movie's encoder tag is sdrify's mark, what -y may replace. MP4's ©too is written from "encoding_tool";
        // QuickTime's ©swr (and a metadata key) from "encoder", which libavformat sets to its own name while it
        // initialises: ours goes in after that, before the movie box is written (at the header when segmented, at
        // the trailer otherwise).
        let mark = OutputMark.movieEncoder(libavformat: String(cString: cffmpeg_libavformat_ident()))
        setMetadata("encoding_tool", mark)
        try ffCheck(avformat_init_output(ctx, &opts), "\(path): writing the header", status: .outputProblem)
        setMetadata("encoder", mark)
        try ffCheck(avformat_write_header(ctx, &opts), "\(path): writing the header", status: .outputProblem)
        headerWritten = true
    }

    /// The stream's RFC 6381 codec name as written (`avc1.640028`, `hvc1.1.6.L93.B0`, `mp4a.40.2`).
    package func codecString(ofStream i: Int) -> String? { CodecString.of(ctx.pointee.streams[i]!.pointee.codecpar) }

    /// The output stream `i` (for a decoder of what is written).
    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream> { ctx.pointee.streams[i]! }

    /// The stream's channel count (an audio stream's).
    package func channels(ofStream i: Int) -> Int { Int(ctx.pointee.streams[i]!.pointee.codecpar.pointee.ch_layout.nb_channels) }

    func timeBase(ofStream i: Int) -> AVRational { ctx.pointee.streams[i]!.pointee.time_base }

    /// Sees every packet before it is written (a pass that measures what the encoders made).
    package var watcher: ((Packet, Int) throws -> Void)? = nil

    /// Writes a packet whose timestamps are in `from`, rescaled to the output stream's time base.
    package func write(_ packet: Packet, stream: Int, from: AVRational) throws {
        packet.av.pointee.stream_index = Int32(stream)
        try watcher?(packet, stream)
        if let segments, let pts = packet.pts {
            let start = MediaTime(ticks: pts, TimeBase(from))
            if !segmentOpen || segments.beginsSegment(at: start, keyframe: packet.isKeyframe) {
                // The fragment so far ends the segment before; what follows goes to the new segment's file.
                if segmentOpen { try ffCheck(av_write_frame(ctx, nil), "\(path): writing a segment", status: .outputProblem) }
                try ffCheck(
                    cffmpeg_fd_avio_next_file(ctx.pointee.pb, try segments.nextSegment(startingAt: start)), "\(path): writing",
                    status: .outputProblem)
                segmentOpen = true
            }
            segments.wrote(until: start + MediaTime(ticks: packet.duration, TimeBase(from)))
            if firstReorderDelay == nil {
                let dts = packet.av.pointee.dts
                firstReorderDelay = dts == ffNoPTS ? 0 : max(0, pts - dts)
            }
            let lead = segmentedStart.ticks(TimeBase(from)) - firstReorderDelay!
            packet.av.pointee.pts += lead
            if packet.av.pointee.dts != ffNoPTS {
                packet.av.pointee.dts += lead
                guard packet.av.pointee.dts >= 0 else {
                    throw SDRifyError.conversion("\(path): a decode time before the segmented output's start")
                }
            }
        }
        av_packet_rescale_ts(packet.av, from, timeBase(ofStream: stream))
        packet.av.pointee.pos = -1
        try ffCheck(av_interleaved_write_frame(ctx, packet.av), "\(path): writing", status: .outputProblem)
    }

    /// Writes the trailer (and the fast-start moov move), then flushes and closes the file.
    package func finish() throws {
        guard headerWritten else { return }
        try ffCheck(av_write_trailer(ctx), "\(path): finishing the file", status: .outputProblem)
        avio_flush(ctx.pointee.pb)
        let err = ctx.pointee.pb.pointee.error
        try ffCheck(err, "\(path): writing", status: .outputProblem)
        cffmpeg_fd_avio_free(&ctx.pointee.pb)
        ioOpen = false
    }
}
